//===- ContractionOps.cpp - Matmuls and convolutions on the CPU -----------===//
//
// Products run on oneDNN's matmul where it has a native kernel (bf16 with
// bf16 dot products in hardware, f32), else on OpenBLAS (sgemm, or dgemm
// for f64 reference runs) with f16 and bf16 operands widened to f32 first:
// every low-precision contraction accumulates in f32. Convolutions run on
// oneDNN's direct kernels likewise; the rest are im2col + GEMM in NHWC
// (NCHW operands are permuted in and out), which keeps one well-tuned
// kernel behind forward, backward-data and backward-filter. (The device
// backends call cuBLAS and cuDNN here, so there is no shared code to run.)
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "CpuOps.h"
#include "Elementwise.h"
#include "Gemm.h"
#include "OneDnn.h"
#include "StagedGemm.h"
#include <algorithm>

using namespace amprt;
using namespace amprt::cpu;

namespace {

/// Runs `body<C>()` with C = double for f64 operands, float otherwise.
template <typename Body> void withCompute(amprt_dtype dtype, Body body) {
  if (dtype == AMPRT_F64)
    body(double());
  else
    body(float());
}

/// NCHW <-> NHWC (and OIHW <-> OHWI) as compute-type copies.
template <typename C>
Scratch<C> toChannelsLast(const C *src, int64_t n, int64_t c, int64_t h,
                          int64_t w) {
  Scratch<C> out(n * c * h * w);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          out[((i * h + y) * w + x) * c + ch] =
              src[((i * c + ch) * h + y) * w + x];
  return out;
}
template <typename C>
void fromChannelsLast(const C *src, C *dst, int64_t n, int64_t c, int64_t h,
                      int64_t w) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          dst[((i * c + ch) * h + y) * w + x] =
              src[((i * h + y) * w + x) * c + ch];
}

/// col[(n, oy, ox), (ky, kx, c)] = x[n, iy, ix, c], zero outside.
template <typename C> void im2col(const C *x, C *col, const ConvGeometry &g) {
  int64_t rows = g.n * g.oh * g.ow, width = g.kh * g.kw * g.c;
  parallelFor(rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t ox = r % g.ow, oy = (r / g.ow) % g.oh, n = r / (g.ow * g.oh);
      C *dst = col + r * width;
      int64_t ix0 = ox * g.sw - g.pl;
      // Undilated windows inside the row: each filter row is one run of
      // kw * c values in x (a 3x3 window over one channel would otherwise
      // be nine one-element copies).
      bool interior = g.dw == 1 && ix0 >= 0 && ix0 + g.kw <= g.w;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        int64_t iy = oy * g.sh - g.pt + ky * g.dh;
        if (interior && iy >= 0 && iy < g.h) {
          const C *s = x + ((n * g.h + iy) * g.w + ix0) * g.c;
          C *d = dst + ky * g.kw * g.c;
          for (int64_t j = 0; j < g.kw * g.c; ++j)
            d[j] = s[j];
          continue;
        }
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          int64_t ix = ox * g.sw - g.pl + kx * g.dw;
          C *d = dst + (ky * g.kw + kx) * g.c;
          if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
            std::fill(d, d + g.c, C(0));
            continue;
          }
          const C *s = x + ((n * g.h + iy) * g.w + ix) * g.c;
          std::copy(s, s + g.c, d);
        }
      }
    }
  });
}

/// The adjoint of im2col: dx[n, iy, ix, c] += col[...].
template <typename C> void col2im(const C *col, C *dx, const ConvGeometry &g) {
  int64_t width = g.kh * g.kw * g.c;
  std::fill(dx, dx + g.n * g.h * g.w * g.c, C(0));
  // One image per thread: images never overlap.
  parallelFor(g.n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const C *src = col + ((n * g.oh + oy) * g.ow + ox) * width;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            int64_t iy = oy * g.sh - g.pt + ky * g.dh;
            if (iy < 0 || iy >= g.h)
              continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              int64_t ix = ox * g.sw - g.pl + kx * g.dw;
              if (ix < 0 || ix >= g.w)
                continue;
              C *d = dx + ((n * g.h + iy) * g.w + ix) * g.c;
              const C *s = src + (ky * g.kw + kx) * g.c;
              for (int64_t c = 0; c < g.c; ++c)
                d[c] += s[c];
            }
          }
        }
  });
}

/// `t`'s shape over f32 data: a widened operand or a staged result.
amprt_tensor asF32(const amprt_tensor &t, const float *data) {
  amprt_tensor view = t;
  view.dtype = AMPRT_F32;
  view.data = const_cast<float *>(data);
  return view;
}

/// One implementation for the three convolutions: `in` and `out` are the
/// op's operands in NHWC compute-type form.
template <typename C>
void runConv(ConvKind kind, const ConvGeometry &g, const C *first,
             const C *second, C *result) {
  int64_t rows = g.n * g.oh * g.ow, width = g.kh * g.kw * g.c;
  Scratch<C> col(rows * width);
  switch (kind) {
  case ConvKind::Forward: // first = x, second = w (OHWI) -> y
    im2col(first, col.data(), g);
    gemm(false, true, rows, g.o, width, C(1), col.data(), width, second, width,
         C(0), result, g.o);
    break;
  case ConvKind::BackwardInput: // first = dy, second = w -> dx
    gemm(false, false, rows, width, g.o, C(1), first, g.o, second, width, C(0),
         col.data(), width);
    col2im(col.data(), result, g);
    break;
  case ConvKind::BackwardFilter: // first = x, second = dy -> dw
    im2col(first, col.data(), g);
    gemm(true, false, g.o, width, rows, C(1), second, g.o, col.data(), width,
         C(0), result, width);
    break;
  }
}

/// A 16-bit product on stagedMatmul, each operand TC or f32 (rounded),
/// with the bias (TC) and the activation in its epilogue.
template <typename TC>
amprt_status staged(const amprt_tensor *a, const amprt_tensor *b,
                    const amprt_tensor *bias, const device::Activation &act,
                    amprt_tensor *c, bool ta, bool tb, int64_t m, int64_t n,
                    int64_t k, int64_t count) {
  const TC *pbias = bias ? static_cast<const TC *>(bias->data) : nullptr;
  auto run = [&](auto *pa) {
    TC *pc = static_cast<TC *>(c->data);
    if (b->dtype == AMPRT_F32)
      stagedMatmul(pa, static_cast<const float *>(b->data), pc, ta, tb, m, n, k,
                   count, pbias, act);
    else
      stagedMatmul(pa, static_cast<const TC *>(b->data), pc, ta, tb, m, n, k,
                   count, pbias, act);
  };
  if (a->dtype == AMPRT_F32)
    run(static_cast<const float *>(a->data));
  else
    run(static_cast<const TC *>(a->data));
  return ok();
}

/// An operand of a 16-bit product in the product's type: the tensor
/// itself, or an f32 one cast into scratch by amprt_cast's own kernel.
class RoundedOperand {
public:
  RoundedOperand(Ctx *ctx, const Tensor *t, amprt_dtype type) : view(*t) {
    if (t->dtype == type)
      return;
    copy.allocate(t->numel * int64_t(amprt_dtype_size(type)));
    view.dtype = type;
    view.data = copy.data();
    status = cast(ctx, t, &view);
  }
  const Tensor *get() const { return &view; }
  amprt_status status = AMPRT_OK;

private:
  Tensor view;
  Scratch<unsigned char> copy;
};

/// A 16-bit product with an f32 operand on oneDNN's primitive for the
/// all-16-bit product, its f32 operands cast into scratch: the kernel that
/// runs (AMX, AVX-512 BF16, oneDNN's own bf16 emulation) sums in its own
/// order, so only the same primitive on the same operands gives the bits
/// of casting first. False when oneDNN has no native kernel for it (or a
/// cast failed): the staged path, which rounds on the way in, runs it.
bool dnnlRounded(Ctx *ctx, const Tensor *a, const Tensor *b, bool ta, bool tb,
                 Tensor *c, int64_t m, int64_t n, int64_t k, int64_t count) {
  if (!dnnlMatmulRuns(c->dtype, ta, tb, m, n, k, count))
    return false;
  RoundedOperand ra(ctx, a, c->dtype), rb(ctx, b, c->dtype);
  return ra.status == AMPRT_OK && rb.status == AMPRT_OK &&
         dnnlMatmul(ra.get(), rb.get(), ta, tb, c, m, n, k, count);
}

/// amprt_bias_add's own pass over a result written without its bias, in
/// place: the products and convolutions whose kernels take no bias.
amprt_status addBiasInPlace(Ctx *ctx, const Tensor *bias, Tensor *result,
                            int64_t inner) {
  return biasAdd(ctx, result, bias,
                 channelSplit(result->numel, bias->numel, inner), result);
}

/// amprt_unary's own pass from the product (and bias) a kernel without an
/// activation epilogue wrote into `written` (act.target(result)).
amprt_status activate(Ctx *ctx, const device::Activation &act,
                      const Tensor *written, Tensor *result) {
  return act.on ? unary(ctx, act.kind, written, result, act.alpha) : ok();
}

/// A forward convolution, the backward ones, and the bias added to a
/// forward one's result.
amprt_status convWithBias(Ctx *ctx, ConvKind kind, const Tensor *first,
                          const Tensor *second, const Tensor *bias,
                          Tensor *result, const ConvGeometry &g);

} // namespace

namespace amprt::cpu {

amprt_status stridedMatmul(Ctx *ctx, const Tensor *a, const StridedView &av,
                           const Tensor *b, const StridedView &bv, Tensor *c,
                           const StridedView &cv, bool *ran) {
  *ran = dnnlStridedMatmul(a, av, b, bv, c, cv);
  return ok();
}

amprt_status matmul(Ctx *ctx, const Tensor *a, const Tensor *b, bool ta,
                    bool tb, const Tensor *bias, const device::Activation &act,
                    Tensor *c, int64_t m, int64_t n, int64_t k, int64_t count) {
  // bf16 and f32 products run on oneDNN where it has a native kernel for
  // the product of operands of c's type, f32 operands of a bf16 product
  // rounded first; 16-bit products it declines (f16, bf16 without bf16
  // kernels) are staged per thread, rounding f32 operands on the way in;
  // f32 it declines and f64 run on the tensors themselves. Either way an
  // f32 operand gives the bits of a cast one. Staged products add the bias
  // and the activation while they round; after oneDNN and the plain GEMMs
  // both are passes of their own, which is what the separate calls run
  // (oneDNN's epilogue may add the bias before the last part of its sum;
  // its relu post-op gives -0 for negative inputs, amprt_relu +0; its gelu
  // has its own erf).
  Tensor *out = act.target(c);
  bool rounded = a->dtype != c->dtype || b->dtype != c->dtype;
  bool onDnnl = rounded ? dnnlRounded(ctx, a, b, ta, tb, out, m, n, k, count)
                        : dnnlMatmul(a, b, ta, tb, out, m, n, k, count);
  if (onDnnl) {
    if (bias)
      AMPRT_CHECK(addBiasInPlace(ctx, bias, out, 1));
    return activate(ctx, act, out, c);
  }
  if (c->dtype == AMPRT_F16)
    return staged<half_t>(a, b, bias, act, c, ta, tb, m, n, k, count);
  if (c->dtype == AMPRT_BF16)
    return staged<bf16_t>(a, b, bias, act, c, ta, tb, m, n, k, count);
  int64_t rank = a->shape.size();
  int64_t lda = a->shape[rank - 1], ldb = b->shape[rank - 1];
  withCompute(a->dtype, [&](auto tag) {
    using C = decltype(tag);
    const C *pa = static_cast<const C *>(a->data);
    const C *pb = static_cast<const C *>(b->data);
    C *pc = static_cast<C *>(out->data);
    for (int64_t i = 0; i < count; ++i)
      gemm(ta, tb, m, n, k, C(1), pa + i * a->shape[rank - 2] * lda, lda,
           pb + i * b->shape[rank - 2] * ldb, ldb, C(0), pc + i * m * n, n);
  });
  if (bias)
    AMPRT_CHECK(addBiasInPlace(ctx, bias, out, 1));
  return activate(ctx, act, out, c);
}

amprt_status conv(Ctx *ctx, ConvKind kind, const Tensor *first,
                  const Tensor *second, const Tensor *bias,
                  const device::Activation &act, Tensor *result,
                  const ConvGeometry &g) {
  Tensor *out = act.target(result);
  AMPRT_CHECK(convWithBias(ctx, kind, first, second, bias, out, g));
  return activate(ctx, act, out, result);
}

} // namespace amprt::cpu

namespace {

amprt_status convWithBias(Ctx *ctx, ConvKind kind, const Tensor *first,
                          const Tensor *second, const Tensor *bias,
                          Tensor *result, const ConvGeometry &g) {
  // A bias (forward only) goes into the pass that rounds a 16-bit NHWC
  // result from its f32 staging; the rest add it in a pass of their own
  // (not oneDNN's epilogue: its AVX2 kernels add it before the sum).
  int64_t biasInner = g.nchw ? g.oh * g.ow : 1;
  if (dnnlConv(kind, g, first, second, result))
    return bias ? addBiasInPlace(ctx, bias, result, biasInner) : ok();
  // Rounds a staged result into `result`, with the bias when that pass can
  // add it (NHWC: the bias is each row's last dimension).
  bool biasAdded = false;
  auto finish = [&](auto &out) {
    biasAdded = bias && !g.nchw;
    if (biasAdded)
      out.finishWithBias(bias);
    else
      out.finish();
  };
  withCompute(first->dtype, [&](auto tag) {
    using C = decltype(tag);
    Widened<C> a(first), b(second);
    Narrowed<C> out(result);
    // f16 (and bf16 where the CPU lacks bf16 dot products) has only
    // oneDNN's reference kernels: its widened operands run f32's, which
    // accumulate in f32 like im2col + GEMM and took the f16 CNN step from
    // 2.61 to 1.74 ms.
    if constexpr (std::is_same_v<C, float>) {
      if (first->dtype != AMPRT_F32) {
        amprt_tensor wa = asF32(*first, a.data()),
                     wb = asF32(*second, b.data()),
                     wr = asF32(*result, out.data());
        if (dnnlConv(kind, g, &wa, &wb, &wr))
          return finish(out);
      }
    }
    // Operands in NHWC / OHWI form (x and dy are activations, w a filter).
    auto activation = [&](const C *p, const Shape &s) {
      return toChannelsLast(p, s[0], s[1], s[2], s[3]);
    };
    if (!g.nchw) {
      runConv(kind, g, a.data(), b.data(), out.data());
    } else {
      Scratch<C> fa = activation(a.data(), first->shape);
      Scratch<C> fb = activation(b.data(), second->shape);
      Scratch<C> tmp(result->numel);
      runConv(kind, g, fa.data(), fb.data(), tmp.data());
      const Shape &r = result->shape;
      fromChannelsLast(tmp.data(), out.data(), r[0], r[1], r[2], r[3]);
    }
    finish(out);
  });
  return bias && !biasAdded ? addBiasInPlace(ctx, bias, result, biasInner)
                            : ok();
}

} // namespace
