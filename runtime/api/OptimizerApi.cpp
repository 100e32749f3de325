//===- OptimizerApi.cpp - Updates, clipping and loss-scale state: C API ---===//
//
// Checks, then the op on the context's backend (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include <cmath>
#include <tuple>

using namespace amprt;

namespace {

amprt_status stateCheck(
    const char *op, amprt_context *ctx,
    std::initializer_list<std::pair<const amprt_tensor *, const char *>> state,
    const amprt_tensor *lr) {
  AMPRT_CHECK(requireContext(op, ctx));
  const amprt_tensor *first = state.begin()->first;
  for (auto [t, name] : state) {
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
    if (t->dtype != AMPRT_F32 && t->dtype != AMPRT_F64)
      return fail(AMPRT_ERROR_DTYPE,
                  "%s: %s must be f32 (f64 for reference "
                  "runs), got %s",
                  op, name, dtypeName(t->dtype));
    AMPRT_CHECK(checkSameDtype(op, name, t, first->dtype));
    AMPRT_CHECK(checkShape(op, name, t, first->shape));
  }
  AMPRT_CHECK(checkTensor(op, "lr", lr, ctx));
  return checkScalar(op, "lr", lr, AMPRT_F32);
}

} // namespace

extern "C" {

amprt_status amprt_sgd_update(amprt_context *ctx, const amprt_tensor *param,
                              const amprt_tensor *grad, const amprt_tensor *lr,
                              amprt_tensor *new_param) {
  const char *op = "amprt_sgd_update";
  AMPRT_CHECK(stateCheck(
      op, ctx, {{param, "param"}, {grad, "grad"}, {new_param, "new_param"}},
      lr));
  AMPRT_RUN(ctx, sgd(ctx, param, grad, lr, new_param));
}

amprt_status
amprt_momentum_update(amprt_context *ctx, const amprt_tensor *param,
                      const amprt_tensor *grad, const amprt_tensor *velocity,
                      const amprt_tensor *lr, double momentum,
                      double weight_decay, int nesterov,
                      amprt_tensor *new_param, amprt_tensor *new_velocity) {
  const char *op = "amprt_momentum_update";
  AMPRT_CHECK(stateCheck(op, ctx,
                         {{param, "param"},
                          {grad, "grad"},
                          {velocity, "velocity"},
                          {new_param, "new_param"},
                          {new_velocity, "new_velocity"}},
                         lr));
  if (!(momentum >= 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: momentum must be >= 0", op);
  if (!(weight_decay >= 0) || weight_decay == INFINITY)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: weight_decay must be finite and >= 0, got %g", op,
                weight_decay);
  AMPRT_RUN(ctx,
            momentum(ctx, param, grad, velocity, lr, momentum, weight_decay,
                     nesterov != 0, new_param, new_velocity));
}

amprt_status amprt_adam_update(amprt_context *ctx, const amprt_tensor *param,
                               const amprt_tensor *grad, const amprt_tensor *m,
                               const amprt_tensor *v, const amprt_tensor *step,
                               const amprt_tensor *lr, double beta1,
                               double beta2, double epsilon,
                               double weight_decay, amprt_tensor *new_param,
                               amprt_tensor *new_m, amprt_tensor *new_v) {
  const char *op = "amprt_adam_update";
  AMPRT_CHECK(stateCheck(op, ctx,
                         {{param, "param"},
                          {grad, "grad"},
                          {m, "m"},
                          {v, "v"},
                          {new_param, "new_param"},
                          {new_m, "new_m"},
                          {new_v, "new_v"}},
                         lr));
  AMPRT_CHECK(checkTensor(op, "step", step, ctx));
  AMPRT_CHECK(checkScalar(op, "step", step, AMPRT_I64));
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1 && epsilon > 0 &&
        weight_decay >= 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: betas must be in [0, 1), epsilon > 0, weight_decay >= 0",
                op);
  // The device reads the step itself (a step below 1 counts as 1 there:
  // checking it here would read it back on every update).
  AMPRT_RUN(ctx, adam(ctx, param, grad, m, v, step, lr, beta1, beta2, epsilon,
                      weight_decay, new_param, new_m, new_v));
}

amprt_status amprt_clip_by_global_norm(amprt_context *ctx,
                                       const amprt_tensor *const *grads,
                                       int count, double max_norm,
                                       amprt_tensor *const *clipped) {
  const char *op = "amprt_clip_by_global_norm";
  AMPRT_CHECK(requireContext(op, ctx));
  if (count < 1 || !grads || !clipped || !(max_norm > 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: needs gradients, outputs and max_norm > 0", op);
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(checkTensor(op, "grad", grads[i], ctx));
    AMPRT_CHECK(checkTensor(op, "clipped", clipped[i], ctx));
    AMPRT_CHECK(checkFloat(op, "grad", grads[i]));
    AMPRT_CHECK(checkSameDtype(op, "clipped", clipped[i], grads[i]->dtype));
    AMPRT_CHECK(checkShape(op, "clipped", clipped[i], grads[i]->shape));
  }
  AMPRT_RUN(ctx, clipByGlobalNorm(ctx, grads, count, max_norm, clipped));
}

amprt_status amprt_all_finite(amprt_context *ctx, const amprt_tensor *const *gs,
                              int count, amprt_tensor *finite) {
  const char *op = "amprt_all_finite";
  AMPRT_CHECK(checkOperands(op, ctx, {{"finite", finite}}));
  AMPRT_CHECK(checkScalar(op, "finite", finite, AMPRT_I1));
  if (count < 1 || !gs)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: needs operands", op);
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(checkTensor(op, "operand", gs[i], ctx));
    AMPRT_CHECK(checkFloat(op, "operand", gs[i]));
  }
  AMPRT_RUN(ctx, finiteCheck(ctx, gs, count, nullptr, nullptr, finite));
}

amprt_status amprt_unscale_all_finite(amprt_context *ctx,
                                      const amprt_tensor *const *gs, int count,
                                      const amprt_tensor *scale,
                                      amprt_tensor *const *unscaled,
                                      amprt_tensor *finite) {
  const char *op = "amprt_unscale_all_finite";
  AMPRT_CHECK(checkOperands(op, ctx, {{"scale", scale}}));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  AMPRT_CHECK(checkTensor(op, "finite", finite, ctx));
  AMPRT_CHECK(checkScalar(op, "finite", finite, AMPRT_I1));
  if (count < 1 || !gs || !unscaled)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: needs operands", op);
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(checkTensor(op, "gradient", gs[i], ctx));
    AMPRT_CHECK(checkTensor(op, "unscaled", unscaled[i], ctx));
    AMPRT_CHECK(checkFloat(op, "gradient", gs[i]));
    if (unscaled[i]->dtype != AMPRT_F32 && unscaled[i]->dtype != AMPRT_F64)
      return fail(AMPRT_ERROR_DTYPE, "%s: unscaled gradients are f32", op);
    AMPRT_CHECK(checkShape(op, "unscaled", unscaled[i], gs[i]->shape));
  }
  AMPRT_RUN(ctx, finiteCheck(ctx, gs, count, scale, unscaled, finite));
}

amprt_status amprt_update_scale(amprt_context *ctx, const amprt_tensor *scale,
                                const amprt_tensor *good_steps,
                                const amprt_tensor *finite,
                                double growth_factor, double backoff_factor,
                                int64_t growth_interval, double min_scale,
                                double max_scale, amprt_tensor *new_scale,
                                amprt_tensor *new_good_steps) {
  const char *op = "amprt_update_scale";
  AMPRT_CHECK(requireContext(op, ctx));
  for (auto [t, name, dtype] :
       {std::tuple{scale, "scale", AMPRT_F32},
        {good_steps, "good_steps", AMPRT_I64},
        {finite, "finite", AMPRT_I1},
        {(const amprt_tensor *)new_scale, "new_scale", AMPRT_F32},
        {(const amprt_tensor *)new_good_steps, "new_good_steps", AMPRT_I64}}) {
    AMPRT_CHECK(checkTensor(op, name, t, ctx));
    AMPRT_CHECK(checkScalar(op, name, t, dtype));
  }
  if (!(growth_factor >= 1) || !(backoff_factor > 0 && backoff_factor <= 1) ||
      growth_interval < 1 || !(min_scale > 0 && min_scale <= max_scale))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: needs growth >= 1, backoff in (0, 1], interval >= 1, "
                "0 < min_scale <= max_scale",
                op);
  AMPRT_RUN(ctx, updateScale(ctx, scale, good_steps, finite, growth_factor,
                             backoff_factor, growth_interval, min_scale,
                             max_scale, new_scale, new_good_steps));
}

} // extern "C"
