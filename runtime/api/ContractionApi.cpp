//===- ContractionApi.cpp - Matmuls and convolutions: C API ---------------===//
//
// Checks the shapes and computes the geometry (m, n, k, batch count; the
// convolution's ConvGeometry), then runs the op on the context's backend.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include <utility>

using namespace amprt;

namespace {

/// A live bias (checked by the caller) for a result of `type` with
/// `channels` channels: the result's type, shape [channels].
amprt_status checkBias(const char *op, const amprt_tensor *bias,
                       amprt_dtype type, int64_t channels) {
  AMPRT_CHECK(checkSameDtype(op, "bias", bias, type));
  return checkShape(op, "bias", bias, {channels});
}

/// `act` (with `alpha` and `pre`) as the backends' epilogue activation.
amprt_status activationOf(const char *op, amprt_activation act, double alpha,
                          amprt_tensor *pre, device::Activation &out) {
  switch (act) {
#define AMPRT_ACTIVATION(CODE, Kind)                                           \
  case AMPRT_ACTIVATION_##CODE:                                                \
    out.kind = Unary::Kind;                                                    \
    break;
#include "amprt/amprt_activation.def"
  default:
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown activation %d", op,
                (int)act);
  }
  out.on = true;
  out.alpha = alpha;
  out.pre = pre;
  return AMPRT_OK;
}

/// An activation's `pre` (when it has one) for a live, checked `result`:
/// a live tensor of the result's type and shape, not the result itself.
amprt_status checkPre(const char *op, amprt_context *ctx,
                      const device::Activation &act,
                      const amprt_tensor *result) {
  if (!act.on || !act.pre)
    return AMPRT_OK;
  AMPRT_CHECK(checkOperands(op, ctx, {{"pre", act.pre}}));
  if (act.pre == result)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: pre must be a tensor other than the result", op);
  AMPRT_CHECK(checkSameDtype(op, "pre", act.pre, result->dtype));
  return checkShape(op, "pre", act.pre, result->shape);
}

amprt_status contraction(const char *op, amprt_context *ctx,
                         const amprt_tensor *a, const amprt_tensor *b, bool ta,
                         bool tb, const amprt_tensor *bias,
                         const device::Activation &act, amprt_tensor *c,
                         bool batched) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"a", a}, {"b", b}, {"c", c}}));
  AMPRT_CHECK(checkFloat(op, "c", c));
  // An operand is c's type, or f32 rounded to c's 16-bit type first.
  bool narrow = c->dtype == AMPRT_F16 || c->dtype == AMPRT_BF16;
  for (auto [name, t] : {std::pair{"a", a}, {"b", b}})
    if (t->dtype != c->dtype && !(narrow && t->dtype == AMPRT_F32))
      return fail(AMPRT_ERROR_DTYPE,
                  "%s: %s must be c's type%s (got %s, c is %s)", op, name,
                  narrow ? " or f32" : "", dtypeName(t->dtype),
                  dtypeName(c->dtype));
  GemmShape g;
  AMPRT_CHECK(gemmShape(op, a, b, ta, tb, batched, c, g));
  int64_t m = g.m, n = g.n, k = g.k, count = g.batch;
  if (bias)
    AMPRT_CHECK(checkBias(op, bias, c->dtype, n));
  AMPRT_CHECK(checkPre(op, ctx, act, c));
  OpTimer timer(ctx, op); // the rounding below is part of the product
  if (ctx->device == AMPRT_DEVICE_CPU ||
      (a->dtype == c->dtype && b->dtype == c->dtype))
    AMPRT_RUN(ctx, matmul(ctx, a, b, ta, tb, bias, act, c, m, n, k, count));
  // The CPU rounds f32 operands while it stages them; device GEMMs take
  // one type, so the rounded copies live for this call.
  amprt_tensor *rounded[2] = {nullptr, nullptr};
  amprt_status status = AMPRT_OK;
  for (int i = 0; i < 2 && status == AMPRT_OK; ++i) {
    const amprt_tensor *t = i == 0 ? a : b;
    if (t->dtype == c->dtype)
      continue;
    status = amprt_tensor_create(ctx, c->dtype, (int)t->shape.size(),
                                 t->shape.data(), &rounded[i]);
    if (status == AMPRT_OK)
      status = opsFor(ctx)->cast(ctx, t, rounded[i]);
  }
  if (status == AMPRT_OK)
    status = opsFor(ctx)->matmul(ctx, rounded[0] ? rounded[0] : a,
                                 rounded[1] ? rounded[1] : b, ta, tb, bias, act,
                                 c, m, n, k, count);
  for (amprt_tensor *t : rounded)
    if (t)
      amprt_tensor_release(t);
  return status;
}

int64_t windowCount(int64_t size, int64_t k, int64_t s, int64_t d, int64_t lo,
                    int64_t hi) {
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
      dilations[1] < 1 || padding[0] < 0 || padding[1] < 0 || padding[2] < 0 ||
      padding[3] < 0)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: strides and dilations must be >= 1, padding >= 0", op);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: input, filter and output must be "
                "rank 4",
                op);
  g.nchw = layout == AMPRT_NCHW;
  // Filters are OHWI for NHWC and OIHW for NCHW.
  int hi = g.nchw ? 2 : 1, wi = g.nchw ? 3 : 2, ci = g.nchw ? 1 : 3;
  g.n = x[0], g.h = x[hi], g.w = x[wi], g.c = x[ci];
  g.o = w[0], g.kh = w[hi], g.kw = w[wi];
  if (w[ci] != g.c)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: input has %lld channels, the filter "
                "%lld",
                op, (long long)g.c, (long long)w[ci]);
  g.sh = strides[0], g.sw = strides[1], g.dh = dilations[0],
  g.dw = dilations[1], g.pt = padding[0], g.pl = padding[2];
  g.pb = padding[1], g.pr = padding[3];
  g.oh = windowCount(g.h, g.kh, g.sh, g.dh, padding[0], padding[1]);
  g.ow = windowCount(g.w, g.kw, g.sw, g.dw, padding[2], padding[3]);
  Shape expected =
      g.nchw ? Shape{g.n, g.o, g.oh, g.ow} : Shape{g.n, g.oh, g.ow, g.o};
  if (g.oh < 1 || g.ow < 1 || y != expected)
    return fail(AMPRT_ERROR_SHAPE, "%s: the output must be %s, got %s", op,
                shapeString(expected).c_str(), shapeString(y).c_str());
  return AMPRT_OK;
}

amprt_status conv(const char *op, ConvKind kind, amprt_context *ctx,
                  const amprt_tensor *first, const amprt_tensor *second,
                  const amprt_tensor *bias, const int64_t *strides,
                  const int64_t *padding, const int64_t *dilations,
                  amprt_layout layout, const device::Activation &act,
                  amprt_tensor *result) {
  AMPRT_CHECK(checkOperands(op, ctx,
                            {{"first operand", first},
                             {"second operand", second},
                             {"result", result}}));
  AMPRT_CHECK(checkFloat(op, "first operand", first));
  AMPRT_CHECK(checkSameDtype(op, "second operand", second, first->dtype));
  AMPRT_CHECK(checkSameDtype(op, "result", result, first->dtype));
  // Map the operands back to (x, w, y) to check one geometry.
  const Shape &x =
      kind == ConvKind::BackwardInput ? result->shape : first->shape;
  const Shape &w =
      kind == ConvKind::BackwardFilter ? result->shape : second->shape;
  const Shape &y = kind == ConvKind::Forward         ? result->shape
                   : kind == ConvKind::BackwardInput ? first->shape
                                                     : second->shape;
  ConvGeometry g;
  AMPRT_CHECK(
      convGeometry(op, x, w, y, strides, padding, dilations, layout, g));
  if (bias)
    AMPRT_CHECK(checkBias(op, bias, result->dtype, g.o));
  AMPRT_CHECK(checkPre(op, ctx, act, result));
  AMPRT_RUN(ctx, conv(ctx, kind, first, second, bias, act, result, g));
}

} // namespace

amprt_status amprt::gemmShape(const char *op, const amprt_tensor *a,
                              const amprt_tensor *b, bool ta, bool tb,
                              bool batched, const amprt_tensor *c,
                              GemmShape &g) {
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
  g = {m, n, k, 1};
  for (int64_t d : batch)
    g.batch *= d;
  return AMPRT_OK;
}

extern "C" {

amprt_status amprt_matmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *b, int transpose_a,
                          int transpose_b, amprt_tensor *c) {
  return contraction("amprt_matmul", ctx, a, b, transpose_a, transpose_b,
                     nullptr, {}, c, false);
}

amprt_status amprt_matmul_bias(amprt_context *ctx, const amprt_tensor *a,
                               const amprt_tensor *b, int transpose_a,
                               int transpose_b, const amprt_tensor *bias,
                               amprt_tensor *c) {
  const char *op = "amprt_matmul_bias";
  AMPRT_CHECK(checkOperands(op, ctx, {{"bias", bias}}));
  return contraction(op, ctx, a, b, transpose_a, transpose_b, bias, {}, c,
                     false);
}

amprt_status amprt_matmul_bias_act(amprt_context *ctx, const amprt_tensor *a,
                                   const amprt_tensor *b, int transpose_a,
                                   int transpose_b, const amprt_tensor *bias,
                                   amprt_activation act, double alpha,
                                   amprt_tensor *pre, amprt_tensor *c) {
  const char *op = "amprt_matmul_bias_act";
  device::Activation activation;
  AMPRT_CHECK(activationOf(op, act, alpha, pre, activation));
  return contraction(op, ctx, a, b, transpose_a, transpose_b, bias, activation,
                     c, false);
}

amprt_status amprt_batch_matmul(amprt_context *ctx, const amprt_tensor *a,
                                const amprt_tensor *b, int transpose_a,
                                int transpose_b, amprt_tensor *c) {
  return contraction("amprt_batch_matmul", ctx, a, b, transpose_a, transpose_b,
                     nullptr, {}, c, true);
}

amprt_status amprt_conv2d(amprt_context *ctx, const amprt_tensor *x,
                          const amprt_tensor *w, const int64_t *strides,
                          const int64_t *padding, const int64_t *dilations,
                          amprt_layout layout, amprt_tensor *y) {
  return conv("amprt_conv2d", ConvKind::Forward, ctx, x, w, nullptr, strides,
              padding, dilations, layout, {}, y);
}

amprt_status amprt_conv2d_bias(amprt_context *ctx, const amprt_tensor *x,
                               const amprt_tensor *w, const amprt_tensor *bias,
                               const int64_t *strides, const int64_t *padding,
                               const int64_t *dilations, amprt_layout layout,
                               amprt_tensor *y) {
  const char *op = "amprt_conv2d_bias";
  AMPRT_CHECK(checkOperands(op, ctx, {{"bias", bias}}));
  return conv(op, ConvKind::Forward, ctx, x, w, bias, strides, padding,
              dilations, layout, {}, y);
}

amprt_status amprt_conv2d_bias_act(
    amprt_context *ctx, const amprt_tensor *x, const amprt_tensor *w,
    const amprt_tensor *bias, const int64_t *strides, const int64_t *padding,
    const int64_t *dilations, amprt_layout layout, amprt_activation act,
    double alpha, amprt_tensor *pre, amprt_tensor *y) {
  const char *op = "amprt_conv2d_bias_act";
  device::Activation activation;
  AMPRT_CHECK(activationOf(op, act, alpha, pre, activation));
  return conv(op, ConvKind::Forward, ctx, x, w, bias, strides, padding,
              dilations, layout, activation, y);
}

amprt_status
amprt_conv2d_backward_input(amprt_context *ctx, const amprt_tensor *dy,
                            const amprt_tensor *w, const int64_t *strides,
                            const int64_t *padding, const int64_t *dilations,
                            amprt_layout layout, amprt_tensor *dx) {
  return conv("amprt_conv2d_backward_input", ConvKind::BackwardInput, ctx, dy,
              w, nullptr, strides, padding, dilations, layout, {}, dx);
}

amprt_status
amprt_conv2d_backward_filter(amprt_context *ctx, const amprt_tensor *x,
                             const amprt_tensor *dy, const int64_t *strides,
                             const int64_t *padding, const int64_t *dilations,
                             amprt_layout layout, amprt_tensor *dw) {
  return conv("amprt_conv2d_backward_filter", ConvKind::BackwardFilter, ctx, x,
              dy, nullptr, strides, padding, dilations, layout, {}, dw);
}

} // extern "C"
