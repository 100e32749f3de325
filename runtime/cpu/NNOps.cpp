//===- NNOps.cpp - Bias, pooling, normalization, softmax and loss ---------===//
//
// Statistics, reductions over rows and the loss accumulate in double (f32
// data) so low-precision storage never costs accuracy inside an op.
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "Common.h"
#include "CpuExec.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

using namespace amprt;
using namespace amprt::cpu;

namespace {

/// Rows (of softmax, cross-entropy, layer norm) worth a thread.
constexpr int64_t kRowGrain = 16;

amprt_status channelDim(const char *op, const amprt_tensor *x,
                        amprt_layout layout, int64_t &dim) {
  if (layout != AMPRT_NHWC && layout != AMPRT_NCHW)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown layout %d", op,
                (int)layout);
  if (x->shape.size() < 2)
    return fail(AMPRT_ERROR_SHAPE, "%s: input must have rank >= 2", op);
  dim = (layout == AMPRT_NCHW && x->shape.size() > 2) ? 1 : x->shape.size() - 1;
  return AMPRT_OK;
}

amprt_status poolGeometry(const char *op, const Shape &x, const Shape &y,
                          const int64_t *window, const int64_t *strides,
                          const int64_t *padding, amprt_layout layout,
                          Pool &p) {
  if (!window || !strides || !padding)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: window, strides and padding are required", op);
  if (layout != AMPRT_NHWC && layout != AMPRT_NCHW)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown layout", op);
  if (window[0] < 1 || window[1] < 1 || strides[0] < 1 || strides[1] < 1 ||
      padding[0] < 0 || padding[1] < 0 || padding[2] < 0 || padding[3] < 0)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: window and strides must be >= 1, padding >= 0", op);
  if (x.size() != 4 || y.size() != 4)
    return fail(AMPRT_ERROR_SHAPE, "%s: operands must be rank 4", op);
  p.nchw = layout == AMPRT_NCHW;
  int hi = p.nchw ? 2 : 1, wi = p.nchw ? 3 : 2, ci = p.nchw ? 1 : 3;
  p.n = x[0], p.h = x[hi], p.w = x[wi], p.c = x[ci];
  p.kh = window[0], p.kw = window[1], p.sh = strides[0], p.sw = strides[1];
  p.pt = padding[0], p.pl = padding[2];
  auto count = [](int64_t size, int64_t k, int64_t s, int64_t lo, int64_t hi) {
    int64_t padded = size + lo + hi;
    return padded < k ? 0 : (padded - k) / s + 1;
  };
  p.oh = count(p.h, p.kh, p.sh, padding[0], padding[1]);
  p.ow = count(p.w, p.kw, p.sw, padding[2], padding[3]);
  Shape expected =
      p.nchw ? Shape{p.n, p.c, p.oh, p.ow} : Shape{p.n, p.oh, p.ow, p.c};
  if (p.oh < 1 || p.ow < 1 || y != expected)
    return fail(AMPRT_ERROR_SHAPE, "%s: the pooled shape must be %s, got %s",
                op, shapeString(expected).c_str(), shapeString(y).c_str());
  return AMPRT_OK;
}

/// Visits every window: fn(outIndex, n, c, y0, x0), in the output's memory
/// order (channel innermost for NHWC, so reads stay in cache lines), one
/// image per thread: windows of different images never overlap, so the
/// gradients may accumulate without locks.
template <typename Fn> void forEachWindow(const Pool &p, Fn fn) {
  parallelFor(p.n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      auto visit = [&](int64_t c, int64_t oy, int64_t ox) {
        fn(p.at(n, oy, ox, c, p.oh, p.ow), n, c, oy * p.sh - p.pt,
           ox * p.sw - p.pl);
      };
      if (p.nchw) {
        for (int64_t c = 0; c < p.c; ++c)
          for (int64_t oy = 0; oy < p.oh; ++oy)
            for (int64_t ox = 0; ox < p.ow; ++ox)
              visit(c, oy, ox);
      } else {
        for (int64_t oy = 0; oy < p.oh; ++oy)
          for (int64_t ox = 0; ox < p.ow; ++ox)
            for (int64_t c = 0; c < p.c; ++c)
              visit(c, oy, ox);
      }
    }
  });
}

/// dx = acc, rounded to dx's type.
void storeAll(amprt_tensor *dx, const std::vector<double> &acc) {
  AMPRT_FLOAT_DISPATCH(dx->dtype, T, {
    T *out = static_cast<T *>(dx->data);
    parallelFor(dx->numel, 1 << 14, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        store(out, i, (typename Compute<T>::type)acc[i]);
    });
  });
}

/// The offsets in an NHWC image of the window of output (oy, ox), clipped
/// to the image, in (ky, kx) order; returns how many there are.
int64_t windowOffsets(const Pool &p, int64_t oy, int64_t ox, int64_t *offsets) {
  int64_t count = 0, y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
  for (int64_t iy = std::max<int64_t>(y0, 0), ey = std::min(y0 + p.kh, p.h);
       iy < ey; ++iy)
    for (int64_t ix = std::max<int64_t>(x0, 0), ex = std::min(x0 + p.kw, p.w);
         ix < ex; ++ix)
      offsets[count++] = (iy * p.w + ix) * p.c;
  return count;
}

/// NHWC pooling, one output row per task: each window position adds a
/// whole channel vector at once (contiguous, vectorisable), with the bounds
/// checked per position rather than per element. Max accumulates in the
/// compute type (exact); avg in double like the general path.
template <typename T, bool IsMax>
void poolRowsNHWC(const Pool &p, const T *xs, T *ys) {
  using C = typename Compute<T>::type;
  using Acc = std::conditional_t<IsMax, C, double>;
  parallelFor(p.n * p.oh, 1, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(p.c);
    std::vector<int64_t> offsets(p.kh * p.kw);
    for (int64_t row = begin; row < end; ++row) {
      int64_t n = row / p.oh, oy = row % p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        std::fill(acc.begin(), acc.end(),
                  IsMax ? -std::numeric_limits<Acc>::infinity() : Acc(0));
        int64_t count = windowOffsets(p, oy, ox, offsets.data());
        for (int64_t k = 0; k < count; ++k) {
          const T *in = xs + n * p.h * p.w * p.c + offsets[k];
          for (int64_t c = 0; c < p.c; ++c) {
            Acc v = (Acc)load(in, c);
            if constexpr (IsMax)
              acc[c] = (v != v || v > acc[c]) ? v : acc[c];
            else
              acc[c] += v;
          }
        }
        T *out = ys + ((n * p.oh + oy) * p.ow + ox) * p.c;
        for (int64_t c = 0; c < p.c; ++c)
          store(out, c, IsMax ? (C)acc[c] : (C)(acc[c] / double(p.kh * p.kw)));
      }
    }
  });
}

/// NHWC max-pool gradient, one image per task (windows of one image may
/// overlap), accumulated in the compute type in an image-sized buffer and
/// stored once. Per window, a branch-free pass over its positions finds
/// each channel's first maximum (a vector of positions, so the channel loop
/// vectorises); one scalar add per channel then routes the gradient.
template <typename T>
void maxPoolGradNHWC(const Pool &p, const T *xs, const T *ys, const T *dys,
                     T *dxs) {
  using C = typename Compute<T>::type;
  int64_t image = p.h * p.w * p.c;
  parallelFor(p.n, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> acc(image), target(p.c);
    std::vector<int32_t> first(p.c);
    std::vector<int64_t> offsets(p.kh * p.kw);
    for (int64_t n = begin; n < end; ++n) {
      std::fill(acc.begin(), acc.end(), C(0));
      const T *xn = xs + n * image;
      for (int64_t oy = 0; oy < p.oh; ++oy)
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          int64_t out = ((n * p.oh + oy) * p.ow + ox) * p.c;
          for (int64_t c = 0; c < p.c; ++c) {
            target[c] = load(ys, out + c);
            first[c] = -1;
          }
          int32_t count = (int32_t)windowOffsets(p, oy, ox, offsets.data());
          for (int32_t k = 0; k < count; ++k) {
            const T *in = xn + offsets[k];
            for (int64_t c = 0; c < p.c; ++c) {
              C v = load(in, c), t = target[c];
              bool equal = (v == t) | ((t != t) & (v != v));
              first[c] = (first[c] < 0) & equal ? k : first[c];
            }
          }
          for (int64_t c = 0; c < p.c; ++c)
            if (first[c] >= 0)
              acc[offsets[first[c]] + c] += (C)load(dys, out + c);
        }
      T *dxn = dxs + n * image;
      for (int64_t i = 0; i < image; ++i)
        store(dxn, i, acc[i]);
    }
  });
}

amprt_status pool(const char *op, bool isMax, amprt_context *ctx,
                  const amprt_tensor *x, const int64_t *window,
                  const int64_t *strides, const int64_t *padding,
                  amprt_layout layout, amprt_tensor *y) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, x->shape, y->shape, window, strides, padding,
                           layout, p));
  AMPRT_ON_CUDA(ctx, pool(ctx, isMax, x, p, y));
  if (!p.nchw) {
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      if (isMax)
        poolRowsNHWC<T, true>(p, static_cast<const T *>(x->data),
                              static_cast<T *>(y->data));
      else
        poolRowsNHWC<T, false>(p, static_cast<const T *>(x->data),
                               static_cast<T *>(y->data));
    });
    return ok();
  }
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    T *ys = static_cast<T *>(y->data);
    forEachWindow(p, [&](int64_t out, int64_t n, int64_t c, int64_t y0,
                         int64_t x0) {
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t ky = 0; ky < p.kh; ++ky)
        for (int64_t kx = 0; kx < p.kw; ++kx) {
          int64_t iy = y0 + ky, ix = x0 + kx;
          // Padding is ignored by max and counts as zeros for avg.
          if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
            continue;
          double v = load(xs, p.at(n, iy, ix, c, p.h, p.w));
          if (isMax)
            acc = (v != v || v > acc) ? v : acc;
          else
            acc += v;
        }
      store(
          ys, out,
          (typename Compute<T>::type)(isMax ? acc : acc / double(p.kh * p.kw)));
    });
  });
  return ok();
}

amprt_status normStatsCheck(const char *op, const amprt_tensor *t,
                            const char *name, amprt_dtype data,
                            const Shape &shape) {
  AMPRT_CHECK(checkSameDtype(op, name, t, statsDtype(data)));
  return checkShape(op, name, t, shape);
}

/// Softmax-family rows: the axis split of a tensor.
amprt_status softmaxCheck(const char *op, amprt_context *ctx,
                          const amprt_tensor *a, const amprt_tensor *b,
                          const amprt_tensor *out, int64_t axis, Split &s) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "input", a, ctx));
  AMPRT_CHECK(checkTensor(op, "output", out, ctx));
  AMPRT_CHECK(checkFloat(op, "input", a));
  if (b) {
    AMPRT_CHECK(checkTensor(op, "y", b, ctx));
    AMPRT_CHECK(checkSameDtype(op, "y", b, a->dtype));
    AMPRT_CHECK(checkShape(op, "y", b, a->shape));
  }
  AMPRT_CHECK(checkSameDtype(op, "output", out, a->dtype));
  AMPRT_CHECK(checkShape(op, "output", out, a->shape));
  int64_t dim = 0; // set by the check below
  if (a->shape.empty() || !normalizeAxis(axis, a->shape.size(), dim))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: axis %lld out of range", op,
                (long long)axis);
  s = split(a->shape, dim);
  return AMPRT_OK;
}

amprt_status crossEntropyCheck(const char *op, amprt_context *ctx,
                               const amprt_tensor *logits,
                               const amprt_tensor *labels, bool &indices) {
  AMPRT_CHECK(checkTensor(op, "logits", logits, ctx));
  AMPRT_CHECK(checkTensor(op, "labels", labels, ctx));
  AMPRT_CHECK(checkFloat(op, "logits", logits));
  if (logits->shape.size() != 2)
    return fail(AMPRT_ERROR_SHAPE, "%s: logits must be [N, C]", op);
  int64_t n = logits->shape[0];
  indices = labels->dtype == AMPRT_I32 || labels->dtype == AMPRT_I64;
  if (indices) {
    // Label values are checked where they are read: by the op code both
    // backends share (device::crossEntropy).
    return checkShape(op, "labels", labels, {n});
  }
  AMPRT_CHECK(checkSameDtype(op, "labels", labels, logits->dtype));
  return checkShape(op, "labels", labels, logits->shape);
}

} // namespace

extern "C" {

amprt_status amprt_bias_add(amprt_context *ctx, const amprt_tensor *x,
                            const amprt_tensor *b, amprt_layout layout,
                            amprt_tensor *y) {
  const char *op = "amprt_bias_add";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "b", b, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "b", b, x->dtype));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, x, layout, dim));
  AMPRT_CHECK(checkShape(op, "b", b, {x->shape[dim]}));
  Split s = split(x->shape, dim);
  AMPRT_ON_CUDA(ctx, biasAdd(ctx, x, b, s, y));
  // Typed rows of `inner` elements sharing one bias: no per-element type
  // dispatch or division (this loop was 13% of the CNN step).
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    const T *bs = static_cast<const T *>(b->data);
    T *ys = static_cast<T *>(y->data);
    int64_t grain = std::max<int64_t>(1, (1 << 14) / (s.axis * s.inner));
    parallelFor(s.outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o)
        for (int64_t c = 0; c < s.axis; ++c) {
          auto bias = load(bs, c);
          int64_t row = (o * s.axis + c) * s.inner;
          for (int64_t i = row; i < row + s.inner; ++i)
            store(ys, i, load(xs, i) + bias);
        }
    });
  });
  return ok();
}

amprt_status amprt_bias_add_grad(amprt_context *ctx, const amprt_tensor *dy,
                                 amprt_layout layout, amprt_tensor *db) {
  const char *op = "amprt_bias_add_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "dy", dy, ctx));
  AMPRT_CHECK(checkTensor(op, "db", db, ctx));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  AMPRT_CHECK(checkSameDtype(op, "db", db, dy->dtype));
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, dy, layout, dim));
  AMPRT_CHECK(checkShape(op, "db", db, {dy->shape[dim]}));
  Split s = split(dy->shape, dim);
  AMPRT_ON_CUDA(ctx, biasAddGrad(ctx, dy, s, db));
  // Typed passes in memory order (a channel-by-channel walk re-reads the
  // whole tensor per channel), in double.
  std::vector<double> sums;
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    const T *g = static_cast<const T *>(dy->data);
    sums = channelSums(s, 1, [&](int64_t c, int64_t k, double *acc) {
      acc[c] += (double)load(g, k);
    });
  });
  for (int64_t c = 0; c < s.axis; ++c)
    set(db, c, sums[c]);
  return ok();
}

amprt_status amprt_max_pool2d(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *window, const int64_t *strides,
                              const int64_t *padding, amprt_layout layout,
                              amprt_tensor *y) {
  return pool("amprt_max_pool2d", true, ctx, x, window, strides, padding,
              layout, y);
}

amprt_status amprt_avg_pool2d(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *window, const int64_t *strides,
                              const int64_t *padding, amprt_layout layout,
                              amprt_tensor *y) {
  return pool("amprt_avg_pool2d", false, ctx, x, window, strides, padding,
              layout, y);
}

amprt_status amprt_max_pool2d_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x, const amprt_tensor *y,
                                   const int64_t *window,
                                   const int64_t *strides,
                                   const int64_t *padding, amprt_layout layout,
                                   amprt_tensor *dx) {
  const char *op = "amprt_max_pool2d_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "dy", dy, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkTensor(op, "dx", dx, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  for (const amprt_tensor *t : {dy, y, (const amprt_tensor *)dx})
    AMPRT_CHECK(checkSameDtype(op, "operand", t, x->dtype));
  AMPRT_CHECK(checkShape(op, "dx", dx, x->shape));
  AMPRT_CHECK(checkShape(op, "y", y, dy->shape));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, x->shape, dy->shape, window, strides, padding,
                           layout, p));
  AMPRT_ON_CUDA(ctx, poolGrad(ctx, true, dy, x, y, p, dx));
  if (!p.nchw) {
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      maxPoolGradNHWC<T>(
          p, static_cast<const T *>(x->data), static_cast<const T *>(y->data),
          static_cast<const T *>(dy->data), static_cast<T *>(dx->data));
    });
    return ok();
  }
  std::vector<double> acc(x->numel, 0.0);
  // Each (n, c) plane is written by one thread only.
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    const T *ys = static_cast<const T *>(y->data);
    const T *dys = static_cast<const T *>(dy->data);
    forEachWindow(
        p, [&](int64_t out, int64_t n, int64_t c, int64_t y0, int64_t x0) {
          double target = load(ys, out);
          for (int64_t ky = 0; ky < p.kh; ++ky)
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              int64_t iy = y0 + ky, ix = x0 + kx;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
                continue;
              int64_t in = p.at(n, iy, ix, c, p.h, p.w);
              double v = load(xs, in);
              // The first maximum of the window takes the gradient.
              if (v == target || (target != target && v != v)) {
                acc[in] += load(dys, out);
                return;
              }
            }
        });
  });
  storeAll(dx, acc);
  return ok();
}

amprt_status amprt_avg_pool2d_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const int64_t *window,
                                   const int64_t *strides,
                                   const int64_t *padding, amprt_layout layout,
                                   amprt_tensor *dx) {
  const char *op = "amprt_avg_pool2d_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "dy", dy, ctx));
  AMPRT_CHECK(checkTensor(op, "dx", dx, ctx));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  AMPRT_CHECK(checkSameDtype(op, "dx", dx, dy->dtype));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, dx->shape, dy->shape, window, strides, padding,
                           layout, p));
  AMPRT_ON_CUDA(ctx, poolGrad(ctx, false, dy, nullptr, nullptr, p, dx));
  std::vector<double> acc(dx->numel, 0.0);
  double share = 1.0 / double(p.kh * p.kw);
  forEachWindow(p,
                [&](int64_t out, int64_t n, int64_t c, int64_t y0, int64_t x0) {
                  double g = get(dy, out) * share;
                  for (int64_t ky = 0; ky < p.kh; ++ky)
                    for (int64_t kx = 0; kx < p.kw; ++kx) {
                      int64_t iy = y0 + ky, ix = x0 + kx;
                      if (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w)
                        acc[p.at(n, iy, ix, c, p.h, p.w)] += g;
                    }
                });
  storeAll(dx, acc);
  return ok();
}

amprt_status amprt_batch_norm(amprt_context *ctx, const amprt_tensor *x,
                              const amprt_tensor *scale,
                              const amprt_tensor *offset, double epsilon,
                              amprt_layout layout, amprt_tensor *y,
                              amprt_tensor *mean, amprt_tensor *inv_std) {
  const char *op = "amprt_batch_norm";
  AMPRT_CHECK(requireContext(op, ctx));
  for (auto [t, name] : {std::pair{x, "x"},
                         {scale, "scale"},
                         {offset, "offset"},
                         {(const amprt_tensor *)y, "y"},
                         {(const amprt_tensor *)mean, "mean"},
                         {(const amprt_tensor *)inv_std, "inv_std"}})
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  if (!(epsilon >= 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: epsilon must be >= 0", op);
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, x, layout, dim));
  Shape c{x->shape[dim]};
  for (auto [t, name] : {std::pair{scale, "scale"},
                         {offset, "offset"},
                         {(const amprt_tensor *)mean, "mean"},
                         {(const amprt_tensor *)inv_std, "inv_std"}})
    AMPRT_CHECK(normStatsCheck(op, t, name, x->dtype, c));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  Split s = split(x->shape, dim);
  AMPRT_ON_CUDA(ctx,
                batchNorm(ctx, x, scale, offset, epsilon, s, y, mean, inv_std));
  double count = double(s.outer * s.inner);
  // Statistics in double, visiting memory in order (channels-last data
  // strided per channel was 14% of the CNN step), on all cores.
  std::vector<double> mu(s.axis), is(s.axis);
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    std::vector<double> sum =
        channelSums(s, 1, [&](int64_t c, int64_t k, double *acc) {
          acc[c] += (double)load(xs, k);
        });
    for (int64_t c = 0; c < s.axis; ++c)
      mu[c] = sum[c] / count;
    std::vector<double> sq =
        channelSums(s, 1, [&](int64_t c, int64_t k, double *acc) {
          double d = (double)load(xs, k) - mu[c];
          acc[c] += d * d;
        });
    std::vector<double> g(s.axis), b(s.axis);
    for (int64_t c = 0; c < s.axis; ++c) {
      is[c] = 1.0 / std::sqrt(sq[c] / count + epsilon);
      g[c] = get(scale, c);
      b[c] = get(offset, c);
      set(mean, c, mu[c]);
      set(inv_std, c, is[c]);
    }
    T *ys = static_cast<T *>(y->data);
    parallelForInOrder(s, [&](int64_t c, int64_t k) {
      store(ys, k,
            (typename Compute<T>::type)((load(xs, k) - mu[c]) * is[c] * g[c] +
                                        b[c]));
    });
  });
  return ok();
}

amprt_status
amprt_batch_norm_grad(amprt_context *ctx, const amprt_tensor *dy,
                      const amprt_tensor *x, const amprt_tensor *scale,
                      const amprt_tensor *mean, const amprt_tensor *inv_std,
                      amprt_layout layout, amprt_tensor *dx,
                      amprt_tensor *dscale, amprt_tensor *doffset) {
  const char *op = "amprt_batch_norm_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  for (auto [t, name] : {std::pair{dy, "dy"},
                         {x, "x"},
                         {scale, "scale"},
                         {mean, "mean"},
                         {inv_std, "inv_std"},
                         {(const amprt_tensor *)dx, "dx"},
                         {(const amprt_tensor *)dscale, "dscale"},
                         {(const amprt_tensor *)doffset, "doffset"}})
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, x, layout, dim));
  Shape c{x->shape[dim]};
  for (auto [t, name] : {std::pair{scale, "scale"},
                         {mean, "mean"},
                         {inv_std, "inv_std"},
                         {(const amprt_tensor *)dscale, "dscale"},
                         {(const amprt_tensor *)doffset, "doffset"}})
    AMPRT_CHECK(normStatsCheck(op, t, name, x->dtype, c));
  for (auto [t, name] :
       {std::pair{dy, "dy"}, {(const amprt_tensor *)dx, "dx"}}) {
    AMPRT_CHECK(checkSameDtype(op, name, t, x->dtype));
    AMPRT_CHECK(checkShape(op, name, t, x->shape));
  }
  Split s = split(x->shape, dim);
  AMPRT_ON_CUDA(ctx, batchNormGrad(ctx, dy, x, scale, mean, inv_std, s, dx,
                                   dscale, doffset));
  double count = double(s.outer * s.inner);
  std::vector<double> mu(s.axis), is(s.axis), g(s.axis), sumDy(s.axis, 0.0),
      sumDyXhat(s.axis, 0.0);
  for (int64_t c = 0; c < s.axis; ++c) {
    mu[c] = get(mean, c);
    is[c] = get(inv_std, c);
    g[c] = get(scale, c);
  }
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    const T *dys = static_cast<const T *>(dy->data);
    std::vector<double> sums =
        channelSums(s, 2, [&](int64_t c, int64_t k, double *acc) {
          double d = load(dys, k);
          acc[c] += d;
          acc[s.axis + c] += d * (load(xs, k) - mu[c]) * is[c];
        });
    std::copy(sums.begin(), sums.begin() + s.axis, sumDy.begin());
    std::copy(sums.begin() + s.axis, sums.end(), sumDyXhat.begin());
    T *dxs = static_cast<T *>(dx->data);
    parallelForInOrder(s, [&](int64_t c, int64_t k) {
      double xhat = (load(xs, k) - mu[c]) * is[c];
      store(dxs, k,
            (typename Compute<T>::type)(g[c] * is[c] / count *
                                        (count * (double)load(dys, k) -
                                         sumDy[c] - xhat * sumDyXhat[c])));
    });
  });
  for (int64_t c = 0; c < s.axis; ++c) {
    set(dscale, c, sumDyXhat[c]);
    set(doffset, c, sumDy[c]);
  }
  return ok();
}

amprt_status amprt_layer_norm(amprt_context *ctx, const amprt_tensor *x,
                              const amprt_tensor *gamma,
                              const amprt_tensor *beta, double epsilon,
                              amprt_tensor *y, amprt_tensor *mean,
                              amprt_tensor *inv_std) {
  const char *op = "amprt_layer_norm";
  AMPRT_CHECK(requireContext(op, ctx));
  for (auto [t, name] : {std::pair{x, "x"},
                         {gamma, "gamma"},
                         {beta, "beta"},
                         {(const amprt_tensor *)y, "y"},
                         {(const amprt_tensor *)mean, "mean"},
                         {(const amprt_tensor *)inv_std, "inv_std"}})
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  if (x->shape.empty() || !(epsilon >= 0))
    return fail(AMPRT_ERROR_SHAPE,
                "%s: x must have rank >= 1 and epsilon "
                ">= 0",
                op);
  int64_t d = x->shape.back();
  Shape rowShape(x->shape.begin(), x->shape.end() - 1);
  AMPRT_CHECK(normStatsCheck(op, gamma, "gamma", x->dtype, {d}));
  AMPRT_CHECK(normStatsCheck(op, beta, "beta", x->dtype, {d}));
  AMPRT_CHECK(normStatsCheck(op, mean, "mean", x->dtype, rowShape));
  AMPRT_CHECK(normStatsCheck(op, inv_std, "inv_std", x->dtype, rowShape));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_ON_CUDA(ctx, layerNorm(ctx, x, gamma, beta, epsilon, y, mean, inv_std));
  CpuExec exec(kRowGrain);
  return device::layerNorm(exec, x, gamma, beta, epsilon, y, mean, inv_std);
}

amprt_status amprt_layer_norm_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x,
                                   const amprt_tensor *gamma,
                                   const amprt_tensor *mean,
                                   const amprt_tensor *inv_std,
                                   amprt_tensor *dx, amprt_tensor *dgamma,
                                   amprt_tensor *dbeta) {
  const char *op = "amprt_layer_norm_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  for (auto [t, name] : {std::pair{dy, "dy"},
                         {x, "x"},
                         {gamma, "gamma"},
                         {mean, "mean"},
                         {inv_std, "inv_std"},
                         {(const amprt_tensor *)dx, "dx"},
                         {(const amprt_tensor *)dgamma, "dgamma"},
                         {(const amprt_tensor *)dbeta, "dbeta"}})
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  if (x->shape.empty())
    return fail(AMPRT_ERROR_SHAPE, "%s: x must have rank >= 1", op);
  int64_t d = x->shape.back();
  Shape rowShape(x->shape.begin(), x->shape.end() - 1);
  AMPRT_CHECK(normStatsCheck(op, gamma, "gamma", x->dtype, {d}));
  AMPRT_CHECK(normStatsCheck(op, dgamma, "dgamma", x->dtype, {d}));
  AMPRT_CHECK(normStatsCheck(op, dbeta, "dbeta", x->dtype, {d}));
  AMPRT_CHECK(normStatsCheck(op, mean, "mean", x->dtype, rowShape));
  AMPRT_CHECK(normStatsCheck(op, inv_std, "inv_std", x->dtype, rowShape));
  for (auto [t, name] :
       {std::pair{dy, "dy"}, {(const amprt_tensor *)dx, "dx"}}) {
    AMPRT_CHECK(checkSameDtype(op, name, t, x->dtype));
    AMPRT_CHECK(checkShape(op, name, t, x->shape));
  }
  AMPRT_ON_CUDA(
      ctx, layerNormGrad(ctx, dy, x, gamma, mean, inv_std, dx, dgamma, dbeta));
  // dgamma and dbeta fold each column over the rows in chunks added in
  // order, so the result does not depend on the thread count.
  CpuExec exec(kRowGrain);
  return device::layerNormGrad(exec, dy, x, gamma, mean, inv_std, dx, dgamma,
                               dbeta);
}

amprt_status amprt_softmax(amprt_context *ctx, const amprt_tensor *x,
                           int64_t axis, amprt_tensor *y) {
  Split s;
  AMPRT_CHECK(softmaxCheck("amprt_softmax", ctx, x, nullptr, y, axis, s));
  AMPRT_ON_CUDA(ctx, softmax(ctx, 0, x, nullptr, s, y));
  CpuExec exec(kRowGrain);
  return device::softmax(exec, device::SoftmaxKind::Softmax, x, nullptr, s, y);
}

amprt_status amprt_log_softmax(amprt_context *ctx, const amprt_tensor *x,
                               int64_t axis, amprt_tensor *y) {
  Split s;
  AMPRT_CHECK(softmaxCheck("amprt_log_softmax", ctx, x, nullptr, y, axis, s));
  AMPRT_ON_CUDA(ctx, softmax(ctx, 1, x, nullptr, s, y));
  CpuExec exec(kRowGrain);
  return device::softmax(exec, device::SoftmaxKind::LogSoftmax, x, nullptr, s,
                         y);
}

amprt_status amprt_softmax_grad(amprt_context *ctx, const amprt_tensor *dy,
                                const amprt_tensor *y, int64_t axis,
                                amprt_tensor *dx) {
  Split s;
  AMPRT_CHECK(softmaxCheck("amprt_softmax_grad", ctx, dy, y, dx, axis, s));
  AMPRT_ON_CUDA(ctx, softmax(ctx, 2, dy, y, s, dx));
  CpuExec exec(kRowGrain);
  return device::softmax(exec, device::SoftmaxKind::SoftmaxGrad, dy, y, s, dx);
}

amprt_status amprt_log_softmax_grad(amprt_context *ctx, const amprt_tensor *dy,
                                    const amprt_tensor *y, int64_t axis,
                                    amprt_tensor *dx) {
  Split s;
  AMPRT_CHECK(softmaxCheck("amprt_log_softmax_grad", ctx, dy, y, dx, axis, s));
  AMPRT_ON_CUDA(ctx, softmax(ctx, 3, dy, y, s, dx));
  CpuExec exec(kRowGrain);
  return device::softmax(exec, device::SoftmaxKind::LogSoftmaxGrad, dy, y, s,
                         dx);
}

amprt_status amprt_softmax_cross_entropy(amprt_context *ctx,
                                         const amprt_tensor *logits,
                                         const amprt_tensor *labels,
                                         amprt_tensor *loss) {
  const char *op = "amprt_softmax_cross_entropy";
  AMPRT_CHECK(requireContext(op, ctx));
  bool indices;
  AMPRT_CHECK(crossEntropyCheck(op, ctx, logits, labels, indices));
  AMPRT_CHECK(checkTensor(op, "loss", loss, ctx));
  int64_t n = logits->shape[0];
  AMPRT_CHECK(checkSameDtype(op, "loss", loss, logits->dtype));
  AMPRT_CHECK(checkShape(op, "loss", loss, {n}));
  AMPRT_ON_CUDA(ctx, crossEntropy(ctx, op, logits, labels, nullptr, loss));
  CpuExec exec(kRowGrain);
  return device::crossEntropy(exec, op, logits, labels, nullptr, loss);
}

amprt_status amprt_softmax_cross_entropy_grad(amprt_context *ctx,
                                              const amprt_tensor *dloss,
                                              const amprt_tensor *logits,
                                              const amprt_tensor *labels,
                                              amprt_tensor *dlogits) {
  const char *op = "amprt_softmax_cross_entropy_grad";
  AMPRT_CHECK(requireContext(op, ctx));
  bool indices;
  AMPRT_CHECK(crossEntropyCheck(op, ctx, logits, labels, indices));
  AMPRT_CHECK(checkTensor(op, "dloss", dloss, ctx));
  AMPRT_CHECK(checkTensor(op, "dlogits", dlogits, ctx));
  int64_t n = logits->shape[0];
  AMPRT_CHECK(checkSameDtype(op, "dloss", dloss, logits->dtype));
  AMPRT_CHECK(checkShape(op, "dloss", dloss, {n}));
  AMPRT_CHECK(checkSameDtype(op, "dlogits", dlogits, logits->dtype));
  AMPRT_CHECK(checkShape(op, "dlogits", dlogits, logits->shape));
  AMPRT_ON_CUDA(ctx, crossEntropy(ctx, op, logits, labels, dloss, dlogits));
  CpuExec exec(kRowGrain);
  return device::crossEntropy(exec, op, logits, labels, dloss, dlogits);
}

} // extern "C"
