//===- ContractionOps.cpp - Matmuls and convolutions on the CPU -----------===//
//
// Products run on OpenBLAS (sgemm, or dgemm for f64 reference runs); f16
// and bf16 operands are widened to f32 first, so every low-precision
// contraction accumulates in f32. Convolutions are im2col + GEMM in NHWC
// (NCHW operands are permuted in and out), which keeps one well-tuned
// kernel behind forward, backward-data and backward-filter.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "Elementwise.h"
#include "Gemm.h"

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

amprt_status contraction(const char *op, amprt_context *ctx,
                         const amprt_tensor *a, const amprt_tensor *b,
                         bool ta, bool tb, amprt_tensor *c, bool batched) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "a", a, ctx));
  AMPRT_CHECK(checkTensor(op, "b", b, ctx));
  AMPRT_CHECK(checkTensor(op, "c", c, ctx));
  AMPRT_CHECK(checkFloat(op, "a", a));
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, a->dtype));
  int64_t rank = a->shape.size();
  if (!batched && (rank != 2 || b->shape.size() != 2))
    return fail(AMPRT_ERROR_SHAPE, "%s: operands must be rank 2", op);
  if (batched && (rank < 3 || (int64_t)b->shape.size() != rank))
    return fail(AMPRT_ERROR_SHAPE, "%s: operands must have equal rank >= 3",
                op);
  Shape batch(a->shape.begin(), a->shape.end() - 2);
  if (Shape(b->shape.begin(), b->shape.end() - 2) != batch)
    return fail(AMPRT_ERROR_SHAPE, "%s: batch dimensions differ", op);
  int64_t m = ta ? a->shape[rank - 1] : a->shape[rank - 2];
  int64_t k = ta ? a->shape[rank - 2] : a->shape[rank - 1];
  int64_t kb = tb ? b->shape[rank - 1] : b->shape[rank - 2];
  int64_t n = tb ? b->shape[rank - 2] : b->shape[rank - 1];
  if (k != kb)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: contracting dimensions differ (%lld vs %lld)", op,
                (long long)k, (long long)kb);
  Shape out = batch;
  out.push_back(m);
  out.push_back(n);
  AMPRT_CHECK(checkShape(op, "c", c, out));
  int64_t count = 1;
  for (int64_t d : batch)
    count *= d;
  AMPRT_ON_CUDA(ctx, matmul(ctx, a, b, ta, tb, c, m, n, k, count));
  int64_t lda = a->shape[rank - 1], ldb = b->shape[rank - 1];
  withCompute(a->dtype, [&](auto tag) {
    using C = decltype(tag);
    Widened<C> wa(a), wb(b);
    Narrowed<C> wc(c);
    for (int64_t i = 0; i < count; ++i)
      gemm(ta, tb, m, n, k, C(1), wa.data() + i * a->shape[rank - 2] * lda,
           lda, wb.data() + i * b->shape[rank - 2] * ldb, ldb, C(0),
           wc.data() + i * m * n, n);
    wc.finish();
  });
  return ok();
}

int64_t windowCount(int64_t size, int64_t k, int64_t s, int64_t d,
                    int64_t lo, int64_t hi) {
  int64_t span = d * (k - 1) + 1, padded = size + lo + hi;
  return padded < span ? 0 : (padded - span) / s + 1;
}

/// Validates attributes and the input/filter/output shapes of a conv.
amprt_status convGeometry(const char *op, const Shape &x, const Shape &w,
                          const Shape &y, const int64_t *strides,
                          const int64_t *padding, const int64_t *dilations,
                          amprt_layout layout, ConvGeometry &g) {
  if (!strides || !padding || !dilations)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: strides, padding and dilations are required", op);
  if (layout != AMPRT_NHWC && layout != AMPRT_NCHW)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown layout %d", op,
                (int)layout);
  if (strides[0] < 1 || strides[1] < 1 || dilations[0] < 1 ||
      dilations[1] < 1 || padding[0] < 0 || padding[1] < 0 ||
      padding[2] < 0 || padding[3] < 0)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: strides and dilations must be >= 1, padding >= 0", op);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    return fail(AMPRT_ERROR_SHAPE, "%s: input, filter and output must be "
                "rank 4", op);
  g.nchw = layout == AMPRT_NCHW;
  // Filters are OHWI for NHWC and OIHW for NCHW.
  int hi = g.nchw ? 2 : 1, wi = g.nchw ? 3 : 2, ci = g.nchw ? 1 : 3;
  g.n = x[0], g.h = x[hi], g.w = x[wi], g.c = x[ci];
  g.o = w[0], g.kh = w[hi], g.kw = w[wi];
  if (w[ci] != g.c)
    return fail(AMPRT_ERROR_SHAPE, "%s: input has %lld channels, the filter "
                "%lld", op, (long long)g.c, (long long)w[ci]);
  g.sh = strides[0], g.sw = strides[1], g.dh = dilations[0],
  g.dw = dilations[1], g.pt = padding[0], g.pl = padding[2];
  g.pb = padding[1], g.pr = padding[3];
  g.oh = windowCount(g.h, g.kh, g.sh, g.dh, padding[0], padding[1]);
  g.ow = windowCount(g.w, g.kw, g.sw, g.dw, padding[2], padding[3]);
  Shape expected = g.nchw ? Shape{g.n, g.o, g.oh, g.ow}
                          : Shape{g.n, g.oh, g.ow, g.o};
  if (g.oh < 1 || g.ow < 1 || y != expected)
    return fail(AMPRT_ERROR_SHAPE, "%s: the output must be %s, got %s", op,
                shapeString(expected).c_str(), shapeString(y).c_str());
  return AMPRT_OK;
}

/// NCHW <-> NHWC (and OIHW <-> OHWI) as compute-type copies.
template <typename C>
std::vector<C> toChannelsLast(const C *src, int64_t n, int64_t c, int64_t h,
                              int64_t w) {
  std::vector<C> out(n * c * h * w);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          out[((i * h + y) * w + x) * c + ch] = src[((i * c + ch) * h + y) * w + x];
  return out;
}
template <typename C>
void fromChannelsLast(const C *src, C *dst, int64_t n, int64_t c, int64_t h,
                      int64_t w) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          dst[((i * c + ch) * h + y) * w + x] = src[((i * h + y) * w + x) * c + ch];
}

/// col[(n, oy, ox), (ky, kx, c)] = x[n, iy, ix, c], zero outside.
template <typename C>
void im2col(const C *x, C *col, const ConvGeometry &g) {
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
template <typename C>
void col2im(const C *col, C *dx, const ConvGeometry &g) {
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

/// One implementation for the three convolutions: `in` and `out` are the
/// op's operands in NHWC compute-type form.
template <typename C>
void runConv(ConvKind kind, const ConvGeometry &g, const C *first,
             const C *second, C *result) {
  int64_t rows = g.n * g.oh * g.ow, width = g.kh * g.kw * g.c;
  std::vector<C> col(rows * width);
  switch (kind) {
  case ConvKind::Forward: // first = x, second = w (OHWI) -> y
    im2col(first, col.data(), g);
    gemm(false, true, rows, g.o, width, C(1), col.data(), width, second,
         width, C(0), result, g.o);
    break;
  case ConvKind::BackwardInput: // first = dy, second = w -> dx
    gemm(false, false, rows, width, g.o, C(1), first, g.o, second, width,
         C(0), col.data(), width);
    col2im(col.data(), result, g);
    break;
  case ConvKind::BackwardFilter: // first = x, second = dy -> dw
    im2col(first, col.data(), g);
    gemm(true, false, g.o, width, rows, C(1), second, g.o, col.data(), width,
         C(0), result, width);
    break;
  }
}

amprt_status conv(const char *op, ConvKind kind, amprt_context *ctx,
                  const amprt_tensor *first, const amprt_tensor *second,
                  const int64_t *strides, const int64_t *padding,
                  const int64_t *dilations, amprt_layout layout,
                  amprt_tensor *result) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "first operand", first, ctx));
  AMPRT_CHECK(checkTensor(op, "second operand", second, ctx));
  AMPRT_CHECK(checkTensor(op, "result", result, ctx));
  AMPRT_CHECK(checkFloat(op, "first operand", first));
  AMPRT_CHECK(checkSameDtype(op, "second operand", second, first->dtype));
  AMPRT_CHECK(checkSameDtype(op, "result", result, first->dtype));
  // Map the operands back to (x, w, y) to check one geometry.
  const Shape &x = kind == ConvKind::BackwardInput ? result->shape
                                                   : first->shape;
  const Shape &w = kind == ConvKind::BackwardFilter ? result->shape
                                                    : second->shape;
  const Shape &y = kind == ConvKind::Forward          ? result->shape
                   : kind == ConvKind::BackwardInput ? first->shape
                                                     : second->shape;
  ConvGeometry g;
  AMPRT_CHECK(
      convGeometry(op, x, w, y, strides, padding, dilations, layout, g));
  AMPRT_ON_CUDA(ctx, conv(ctx, kind, first, second, result, g));
  withCompute(first->dtype, [&](auto tag) {
    using C = decltype(tag);
    Widened<C> a(first), b(second);
    Narrowed<C> out(result);
    // Operands in NHWC / OHWI form (x and dy are activations, w a filter).
    auto activation = [&](const C *p, const Shape &s) {
      return toChannelsLast(p, s[0], s[1], s[2], s[3]);
    };
    if (!g.nchw) {
      runConv(kind, g, a.data(), b.data(), out.data());
    } else {
      std::vector<C> fa = activation(a.data(), first->shape);
      std::vector<C> fb = activation(b.data(), second->shape);
      std::vector<C> tmp(result->numel);
      runConv(kind, g, fa.data(), fb.data(), tmp.data());
      const Shape &r = result->shape;
      fromChannelsLast(tmp.data(), out.data(), r[0], r[1], r[2], r[3]);
    }
    out.finish();
  });
  return ok();
}

} // namespace

extern "C" {

amprt_status amprt_matmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *b, int transpose_a,
                          int transpose_b, amprt_tensor *c) {
  return contraction("amprt_matmul", ctx, a, b, transpose_a, transpose_b, c,
                     false);
}

amprt_status amprt_batch_matmul(amprt_context *ctx, const amprt_tensor *a,
                                const amprt_tensor *b, int transpose_a,
                                int transpose_b, amprt_tensor *c) {
  return contraction("amprt_batch_matmul", ctx, a, b, transpose_a,
                     transpose_b, c, true);
}

amprt_status amprt_conv2d(amprt_context *ctx, const amprt_tensor *x,
                          const amprt_tensor *w, const int64_t *strides,
                          const int64_t *padding, const int64_t *dilations,
                          amprt_layout layout, amprt_tensor *y) {
  return conv("amprt_conv2d", ConvKind::Forward, ctx, x, w, strides, padding,
              dilations, layout, y);
}

amprt_status amprt_conv2d_backward_input(
    amprt_context *ctx, const amprt_tensor *dy, const amprt_tensor *w,
    const int64_t *strides, const int64_t *padding, const int64_t *dilations,
    amprt_layout layout, amprt_tensor *dx) {
  return conv("amprt_conv2d_backward_input", ConvKind::BackwardInput, ctx, dy,
              w, strides, padding, dilations, layout, dx);
}

amprt_status amprt_conv2d_backward_filter(
    amprt_context *ctx, const amprt_tensor *x, const amprt_tensor *dy,
    const int64_t *strides, const int64_t *padding, const int64_t *dilations,
    amprt_layout layout, amprt_tensor *dw) {
  return conv("amprt_conv2d_backward_filter", ConvKind::BackwardFilter, ctx,
              x, dy, strides, padding, dilations, layout, dw);
}

} // extern "C"
