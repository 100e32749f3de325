//===- NNApi.cpp - Bias, pooling, normalization, softmax and loss: C API --===//
//
// Checks and geometry (channel splits, pooling windows), then the op on the
// context's backend (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include <vector>

using namespace amprt;

namespace {

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
amprt_status pool(const char *op, bool isMax, amprt_context *ctx,
                  const amprt_tensor *x, const int64_t *window,
                  const int64_t *strides, const int64_t *padding,
                  amprt_layout layout, amprt_tensor *y) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, x->shape, y->shape, window, strides, padding,
                           layout, p));
  AMPRT_RUN(ctx, pool(ctx, isMax, x, p, y));
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
  AMPRT_CHECK(checkOperands(op, ctx, {{"input", a}, {"output", out}}));
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
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"b", b}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "b", b, x->dtype));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, x, layout, dim));
  AMPRT_CHECK(checkShape(op, "b", b, {x->shape[dim]}));
  Split s = split(x->shape, dim);
  AMPRT_RUN(ctx, biasAdd(ctx, x, b, s, y));
}

amprt_status amprt_bias_add_grad(amprt_context *ctx, const amprt_tensor *dy,
                                 amprt_layout layout, amprt_tensor *db) {
  const char *op = "amprt_bias_add_grad";
  AMPRT_CHECK(checkOperands(op, ctx, {{"dy", dy}, {"db", db}}));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  // A 16-bit dy may sum into an f32 db (widening is exact).
  bool widened = db->dtype == AMPRT_F32 &&
                 (dy->dtype == AMPRT_F16 || dy->dtype == AMPRT_BF16);
  if (!widened)
    AMPRT_CHECK(checkSameDtype(op, "db", db, dy->dtype));
  int64_t dim = 0; // set by the check below
  AMPRT_CHECK(channelDim(op, dy, layout, dim));
  AMPRT_CHECK(checkShape(op, "db", db, {dy->shape[dim]}));
  Split s = split(dy->shape, dim);
  AMPRT_RUN(ctx, biasAddGrad(ctx, dy, s, db));
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
  AMPRT_CHECK(
      checkOperands(op, ctx, {{"dy", dy}, {"x", x}, {"y", y}, {"dx", dx}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  for (const amprt_tensor *t : {dy, y, (const amprt_tensor *)dx})
    AMPRT_CHECK(checkSameDtype(op, "operand", t, x->dtype));
  AMPRT_CHECK(checkShape(op, "dx", dx, x->shape));
  AMPRT_CHECK(checkShape(op, "y", y, dy->shape));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, x->shape, dy->shape, window, strides, padding,
                           layout, p));
  AMPRT_RUN(ctx, poolGrad(ctx, true, dy, x, y, p, dx));
}

amprt_status amprt_avg_pool2d_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const int64_t *window,
                                   const int64_t *strides,
                                   const int64_t *padding, amprt_layout layout,
                                   amprt_tensor *dx) {
  const char *op = "amprt_avg_pool2d_grad";
  AMPRT_CHECK(checkOperands(op, ctx, {{"dy", dy}, {"dx", dx}}));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  AMPRT_CHECK(checkSameDtype(op, "dx", dx, dy->dtype));
  Pool p;
  AMPRT_CHECK(poolGeometry(op, dx->shape, dy->shape, window, strides, padding,
                           layout, p));
  AMPRT_RUN(ctx, poolGrad(ctx, false, dy, nullptr, nullptr, p, dx));
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
  AMPRT_RUN(ctx,
            batchNorm(ctx, x, scale, offset, epsilon, s, y, mean, inv_std));
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
  AMPRT_RUN(ctx, batchNormGrad(ctx, dy, x, scale, mean, inv_std, s, dx, dscale,
                               doffset));
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
  AMPRT_RUN(ctx, layerNorm(ctx, x, gamma, beta, epsilon, y, mean, inv_std));
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
  AMPRT_RUN(ctx,
            layerNormGrad(ctx, dy, x, gamma, mean, inv_std, dx, dgamma, dbeta));
}

amprt_status amprt_softmax(amprt_context *ctx, const amprt_tensor *x,
                           int64_t axis, amprt_tensor *y) {
  const char *op = "amprt_softmax";
  Split s;
  AMPRT_CHECK(softmaxCheck(op, ctx, x, nullptr, y, axis, s));
  AMPRT_RUN(ctx, softmax(ctx, 0, x, nullptr, s, y));
}

amprt_status amprt_causal_softmax(amprt_context *ctx, const amprt_tensor *x,
                                  amprt_tensor *y) {
  const char *op = "amprt_causal_softmax";
  Split s;
  AMPRT_CHECK(softmaxCheck(op, ctx, x, nullptr, y, -1, s));
  if (x->shape.size() < 2)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: x must be [..., queries, keys] (rank >= 2), got rank %zu",
                op, x->shape.size());
  AMPRT_RUN(ctx, causalSoftmax(ctx, x, x->shape[x->shape.size() - 2], y));
}

amprt_status amprt_log_softmax(amprt_context *ctx, const amprt_tensor *x,
                               int64_t axis, amprt_tensor *y) {
  const char *op = "amprt_log_softmax";
  Split s;
  AMPRT_CHECK(softmaxCheck(op, ctx, x, nullptr, y, axis, s));
  AMPRT_RUN(ctx, softmax(ctx, 1, x, nullptr, s, y));
}

amprt_status amprt_softmax_grad(amprt_context *ctx, const amprt_tensor *dy,
                                const amprt_tensor *y, int64_t axis,
                                amprt_tensor *dx) {
  const char *op = "amprt_softmax_grad";
  Split s;
  AMPRT_CHECK(softmaxCheck(op, ctx, dy, y, dx, axis, s));
  AMPRT_RUN(ctx, softmax(ctx, 2, dy, y, s, dx));
}

amprt_status amprt_log_softmax_grad(amprt_context *ctx, const amprt_tensor *dy,
                                    const amprt_tensor *y, int64_t axis,
                                    amprt_tensor *dx) {
  const char *op = "amprt_log_softmax_grad";
  Split s;
  AMPRT_CHECK(softmaxCheck(op, ctx, dy, y, dx, axis, s));
  AMPRT_RUN(ctx, softmax(ctx, 3, dy, y, s, dx));
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
  AMPRT_RUN(ctx, crossEntropy(ctx, op, logits, labels, nullptr, loss));
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
  AMPRT_RUN(ctx, crossEntropy(ctx, op, logits, labels, dloss, dlogits));
}

} // extern "C"
