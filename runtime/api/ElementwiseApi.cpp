//===- ElementwiseApi.cpp - The elementwise ops' C API --------------------===//
//
// Checks, then the op on the context's backend (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

using namespace amprt;

namespace {

amprt_status unary(const char *op, amprt_context *ctx, const amprt_tensor *x,
                   amprt_tensor *y, Unary kind, double alpha) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_RUN(ctx, unary(ctx, kind, x, y, alpha));
}

amprt_status binary(const char *op, amprt_context *ctx, const amprt_tensor *a,
                    const amprt_tensor *b, amprt_tensor *c, Binary kind) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"a", a}, {"b", b}, {"c", c}}));
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, a->dtype));
  Shape shape;
  if (!broadcastShapes(a->shape, b->shape, shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: shapes %s and %s do not broadcast", op,
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  AMPRT_CHECK(checkShape(op, "c", c, shape));
  bool integer = a->dtype == AMPRT_I32 || a->dtype == AMPRT_I64;
  if (integer && kind == Binary::Pow)
    return fail(AMPRT_ERROR_DTYPE, "%s: integer pow is not supported", op);
  if (!integer)
    AMPRT_CHECK(checkFloat(op, "a", a));
  AMPRT_RUN(ctx, binary(ctx, kind, a, b, c));
}

amprt_status activationGrad(const char *op, amprt_context *ctx,
                            const amprt_tensor *dy, const amprt_tensor *v,
                            amprt_tensor *dx, ActivationGrad kind,
                            double alpha) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"dy", dy}, {"saved", v}, {"dx", dx}}));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  AMPRT_CHECK(checkSameDtype(op, "saved", v, dy->dtype));
  AMPRT_CHECK(checkSameDtype(op, "dx", dx, dy->dtype));
  AMPRT_CHECK(checkShape(op, "saved", v, dy->shape));
  AMPRT_CHECK(checkShape(op, "dx", dx, dy->shape));
  AMPRT_RUN(ctx, activationGrad(ctx, kind, dy, v, dx, alpha));
}

amprt_status scaleLike(const char *op, amprt_context *ctx,
                       const amprt_tensor *x, const amprt_tensor *scale,
                       amprt_tensor *y, bool unscale) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"scale", scale}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_CHECK(checkFloat(op, "y", y));
  if (unscale && y->dtype != AMPRT_F32 && y->dtype != AMPRT_F64)
    return fail(AMPRT_ERROR_DTYPE, "%s: y must be f32 (f64 for f64 input)", op);
  if (!unscale)
    AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_RUN(ctx, scale(ctx, x, scale, y, unscale));
}

/// The step `code` names, or false for an unknown code.
bool chainStepOf(amprt_chain_op code, ChainStep &step) {
  step.binary = code >= AMPRT_CHAIN_ADD;
  switch (code) {
#define AMPRT_CHAIN_UNARY(code, kind)                                          \
  case code:                                                                   \
    step.op = (int)Unary::kind;                                                \
    return true;
#define AMPRT_CHAIN_BINARY(code, kind)                                         \
  case code:                                                                   \
    step.op = (int)Binary::kind;                                               \
    return true;
#define AMPRT_UNARY(name, Kind, CODE) AMPRT_CHAIN_UNARY(AMPRT_CHAIN_##CODE, Kind)
#include "amprt/amprt_unary.def"
#define AMPRT_BINARY(name, Kind, CODE)                                         \
  AMPRT_CHAIN_BINARY(AMPRT_CHAIN_##CODE, Kind)
#include "amprt/amprt_binary.def"
#undef AMPRT_CHAIN_UNARY
#undef AMPRT_CHAIN_BINARY
  case AMPRT_CHAIN_OP_MAX_ENUM:
    break;
  }
  return false;
}

} // namespace

extern "C" {

amprt_status amprt_elementwise_chain(amprt_context *ctx,
                                     const amprt_tensor *const *inputs,
                                     int num_inputs, const int64_t *program,
                                     const double *alphas, int num_steps,
                                     amprt_tensor *y) {
  const char *op = "amprt_elementwise_chain";
  AMPRT_CHECK(checkOperands(op, ctx, {{"y", y}}));
  AMPRT_CHECK(checkFloat(op, "y", y));
  if (num_inputs < 1 || num_inputs > kMaxChainInputs || num_steps < 1 ||
      num_steps > kMaxChainSteps)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: %d inputs and %d steps; 1 to %d inputs and 1 to %d steps "
                "are supported",
                op, num_inputs, num_steps, kMaxChainInputs, kMaxChainSteps);
  if (!inputs || !program || !alphas)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: inputs, program and alphas are required", op);
  for (int k = 0; k < num_inputs; ++k) {
    char name[32];
    snprintf(name, sizeof(name), "input %d", k);
    AMPRT_CHECK(checkOperands(op, ctx, {{name, inputs[k]}}));
    AMPRT_CHECK(checkSameDtype(op, name, inputs[k], y->dtype));
    AMPRT_CHECK(checkShape(op, name, inputs[k], y->shape));
  }
  Chain chain;
  chain.inputs = num_inputs;
  chain.steps = num_steps;
  for (int s = 0; s < num_steps; ++s) {
    ChainStep &step = chain.step[s];
    int64_t code = program[3 * s], a = program[3 * s + 1],
            b = program[3 * s + 2];
    if (code < 0 || code > INT32_MAX ||
        !chainStepOf((amprt_chain_op)code, step))
      return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: step %d: unknown op %lld",
                  op, s, (long long)code);
    int64_t defined = num_inputs + s;
    if (a < 0 || a >= defined || (step.binary && (b < 0 || b >= defined)))
      return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: step %d reads value %lld; only values 0 to %lld are "
                  "defined before it",
                  op, s, (long long)(a < 0 || a >= defined ? a : b),
                  (long long)defined - 1);
    step.a = (int)a;
    step.b = step.binary ? (int)b : (int)a;
    step.alpha = alphas[s];
  }
  AMPRT_RUN(ctx, elementwiseChain(ctx, inputs, chain, y));
}

#define AMPRT_DEFINE_UNARY(name, kind)                                         \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *x,         \
                            amprt_tensor *y) {                                 \
    return unary("amprt_" #name, ctx, x, y, Unary::kind, 0.0);                 \
  }
#define AMPRT_DEFINE_UNARY_ALPHA(name, kind)                                   \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *x,         \
                            double alpha, amprt_tensor *y) {                   \
    return unary("amprt_" #name, ctx, x, y, Unary::kind, alpha);               \
  }
#define AMPRT_UNARY(name, Kind, CODE) AMPRT_DEFINE_UNARY(name, Kind)
#define AMPRT_UNARY_ALPHA(name, Kind, CODE) AMPRT_DEFINE_UNARY_ALPHA(name, Kind)
#include "amprt/amprt_unary.def"
#undef AMPRT_DEFINE_UNARY
#undef AMPRT_DEFINE_UNARY_ALPHA

#define AMPRT_DEFINE_BINARY(name, kind)                                        \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *a,         \
                            const amprt_tensor *b, amprt_tensor *c) {          \
    return binary("amprt_" #name, ctx, a, b, c, Binary::kind);                 \
  }
#define AMPRT_BINARY(name, Kind, CODE) AMPRT_DEFINE_BINARY(name, Kind)
#include "amprt/amprt_binary.def"
#undef AMPRT_DEFINE_BINARY

amprt_status amprt_compare(amprt_context *ctx, amprt_predicate predicate,
                           const amprt_tensor *a, const amprt_tensor *b,
                           amprt_tensor *c) {
  const char *op = "amprt_compare";
  AMPRT_CHECK(checkOperands(op, ctx, {{"a", a}, {"b", b}, {"c", c}}));
  if (predicate < AMPRT_EQ || predicate > AMPRT_GE)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown predicate %d", op,
                (int)predicate);
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, AMPRT_I1));
  Shape shape;
  if (!broadcastShapes(a->shape, b->shape, shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: shapes %s and %s do not broadcast", op,
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  AMPRT_CHECK(checkShape(op, "c", c, shape));
  auto kind = static_cast<Compare>(predicate);
  bool integer = a->dtype == AMPRT_I32 || a->dtype == AMPRT_I64;
  if (!integer)
    AMPRT_CHECK(checkFloat(op, "a", a));
  AMPRT_RUN(ctx, compare(ctx, kind, a, b, c));
}

/// The operand checks amprt_select and amprt_select_moving share.
static amprt_status checkSelect(const char *op, amprt_context *ctx,
                                const amprt_tensor *cond, const amprt_tensor *a,
                                const amprt_tensor *b, const amprt_tensor *c) {
  AMPRT_CHECK(
      checkOperands(op, ctx, {{"cond", cond}, {"a", a}, {"b", b}, {"c", c}}));
  AMPRT_CHECK(checkSameDtype(op, "cond", cond, AMPRT_I1));
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, a->dtype));
  Shape ab, shape;
  if (!broadcastShapes(a->shape, b->shape, ab) ||
      !broadcastShapes(cond->shape, ab, shape))
    return fail(AMPRT_ERROR_SHAPE,
                "%s: cond %s, a %s and b %s do not "
                "broadcast",
                op, shapeString(cond->shape).c_str(),
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  return checkShape(op, "c", c, shape);
}

amprt_status amprt_select(amprt_context *ctx, const amprt_tensor *cond,
                          const amprt_tensor *a, const amprt_tensor *b,
                          amprt_tensor *c) {
  const char *op = "amprt_select";
  AMPRT_CHECK(checkSelect(op, ctx, cond, a, b, c));
  AMPRT_RUN(ctx, select(ctx, cond, a, b, c));
}

amprt_status amprt_select_moving(amprt_context *ctx, const amprt_tensor *cond,
                                 amprt_tensor *a, amprt_tensor *b,
                                 amprt_tensor *c, int32_t a_dies,
                                 int32_t b_dies) {
  const char *op = "amprt_select_moving";
  AMPRT_CHECK(checkSelect(op, ctx, cond, a, b, c));
  // A device flag would need a synchronising read: devices copy.
  if (ctx->device == AMPRT_DEVICE_CPU && cond->numel == 1 &&
      a->shape == c->shape && b->shape == c->shape) {
    bool pickA = *static_cast<const uint8_t *>(cond->data) != 0;
    amprt_tensor *picked = pickA ? a : b;
    // A view's storage is another tensor's: it is copied, never handed over.
    if ((pickA ? a_dies : b_dies) && picked != c && picked->ownsData &&
        c->ownsData) {
      // Same dtype and shape, so the same rounded block size.
      std::swap(picked->data, c->data);
      std::swap(picked->blockBytes, c->blockBytes);
      return ok();
    }
  }
  AMPRT_RUN(ctx, select(ctx, cond, a, b, c));
}

amprt_status amprt_is_finite(amprt_context *ctx, const amprt_tensor *x,
                             amprt_tensor *y) {
  const char *op = "amprt_is_finite";
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, AMPRT_I1));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_RUN(ctx, isFinite(ctx, x, y));
}

#define AMPRT_DEFINE_ACT_GRAD(name, kind)                                      \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *dy,        \
                            const amprt_tensor *saved, amprt_tensor *dx) {     \
    return activationGrad("amprt_" #name, ctx, dy, saved, dx,                  \
                          ActivationGrad::kind, 0.0);                          \
  }
AMPRT_DEFINE_ACT_GRAD(relu_grad, Relu)
AMPRT_DEFINE_ACT_GRAD(gelu_grad, Gelu)
AMPRT_DEFINE_ACT_GRAD(tanh_grad, Tanh)
AMPRT_DEFINE_ACT_GRAD(sigmoid_grad, Sigmoid)
#undef AMPRT_DEFINE_ACT_GRAD

amprt_status amprt_leaky_relu_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x, double alpha,
                                   amprt_tensor *dx) {
  return activationGrad("amprt_leaky_relu_grad", ctx, dy, x, dx,
                        ActivationGrad::LeakyRelu, alpha);
}

amprt_status amprt_cast(amprt_context *ctx, const amprt_tensor *x,
                        amprt_tensor *y) {
  const char *op = "amprt_cast";
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkFloat(op, "y", y));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_RUN(ctx, cast(ctx, x, y));
}

amprt_status amprt_scale(amprt_context *ctx, const amprt_tensor *x,
                         const amprt_tensor *scale, amprt_tensor *y) {
  return scaleLike("amprt_scale", ctx, x, scale, y, false);
}

amprt_status amprt_unscale(amprt_context *ctx, const amprt_tensor *g,
                           const amprt_tensor *scale, amprt_tensor *y) {
  return scaleLike("amprt_unscale", ctx, g, scale, y, true);
}

amprt_status amprt_tensor_fill(amprt_tensor *t, double value) {
  const char *op = "amprt_tensor_fill";
  if (!t)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: tensor is null", op);
  AMPRT_CHECK(requireContext(op, t->ctx));
  AMPRT_RUN(t->ctx, fill(t, value));
}

amprt_status amprt_grad_seed(amprt_context *ctx, amprt_tensor *seed) {
  const char *op = "amprt_grad_seed";
  AMPRT_CHECK(checkOperands(op, ctx, {{"seed", seed}}));
  AMPRT_CHECK(checkFloat(op, "seed", seed));
  return amprt_tensor_fill(seed, 1.0);
}

} // extern "C"
