//===- BackendTable.h - A device backend's ops over an executor -*- C++ -*-===//
//
// The op half of a device::Backend is the same for every executor: each
// entry makes an executor on the context and runs DeviceOps.h. A backend
// supplies its platform half (devices, memory, copies) and its contractions.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_BACKENDTABLE_H
#define AMPRT_DEVICE_BACKENDTABLE_H

#include "../common/DeviceBackend.h"
#include "DeviceOps.h"

namespace amprt::device {

/// What a backend provides itself.
struct Platform {
  decltype(Backend::deviceCount) deviceCount;
  decltype(Backend::initContext) initContext;
  decltype(Backend::destroyContext) destroyContext;
  decltype(Backend::deviceAlloc) deviceAlloc;
  decltype(Backend::deviceFree) deviceFree;
  decltype(Backend::memoryCapacity) memoryCapacity;
  decltype(Backend::synchronize) synchronize;
  decltype(Backend::copyToDevice) copyToDevice;
  decltype(Backend::copyToHost) copyToHost;
  decltype(Backend::copyOnDevice) copyOnDevice;
  decltype(Backend::matmul) matmul;
  decltype(Backend::conv) conv;
  decltype(Backend::scaledMatmul) scaledMatmul; // may be null
};

/// Exec is constructed from the op's context.
template <typename Exec> struct Ops {
#define AMPRT_TABLE_OP(name, params, call)                                     \
  static amprt_status name params {                                            \
    Exec exec(ctx);                                                            \
    return device::call;                                                       \
  }

  static amprt_status fill(amprt_tensor *t, double value) {
    Exec exec(t->ctx);
    return device::fill(exec, t, value);
  }
  AMPRT_TABLE_OP(elementwiseChain,
                 (amprt_context * ctx, const Tensor *const *inputs,
                  const Chain &chain, Tensor *y),
                 elementwiseChain(exec, inputs, chain, y))
  AMPRT_TABLE_OP(unary,
                 (amprt_context * ctx, Unary kind, const Tensor *x, Tensor *y,
                  double alpha),
                 unary(exec, kind, x, y, alpha))
  AMPRT_TABLE_OP(binary,
                 (amprt_context * ctx, Binary kind, const Tensor *a,
                  const Tensor *b, Tensor *c),
                 binary(exec, kind, a, b, c))
  AMPRT_TABLE_OP(compare,
                 (amprt_context * ctx, Compare kind, const Tensor *a,
                  const Tensor *b, Tensor *c),
                 compare(exec, kind, a, b, c))
  AMPRT_TABLE_OP(select,
                 (amprt_context * ctx, const Tensor *cond, const Tensor *a,
                  const Tensor *b, Tensor *c),
                 select(exec, cond, a, b, c))
  AMPRT_TABLE_OP(isFinite, (amprt_context * ctx, const Tensor *x, Tensor *y),
                 isFinite(exec, x, y))
  AMPRT_TABLE_OP(activationGrad,
                 (amprt_context * ctx, ActivationGrad kind, const Tensor *dy,
                  const Tensor *saved, Tensor *dx, double alpha),
                 activationGrad(exec, kind, dy, saved, dx, alpha))
  AMPRT_TABLE_OP(cast, (amprt_context * ctx, const Tensor *x, Tensor *y),
                 cast(exec, x, y))
  AMPRT_TABLE_OP(scale,
                 (amprt_context * ctx, const Tensor *x, const Tensor *s,
                  Tensor *y, bool unscale),
                 scale(exec, x, s, y, unscale))
  AMPRT_TABLE_OP(biasAdd,
                 (amprt_context * ctx, const Tensor *x, const Tensor *b,
                  const Split &s, Tensor *y),
                 biasAdd(exec, x, b, s, y))
  AMPRT_TABLE_OP(biasAddGrad,
                 (amprt_context * ctx, const Tensor *dy, const Split &s,
                  Tensor *db),
                 biasAddGrad(exec, dy, s, db))
  AMPRT_TABLE_OP(pool,
                 (amprt_context * ctx, bool isMax, const Tensor *x,
                  const Pool &p, Tensor *y),
                 pool(exec, isMax, x, p, y))
  AMPRT_TABLE_OP(poolGrad,
                 (amprt_context * ctx, bool isMax, const Tensor *dy,
                  const Tensor *x, const Tensor *y, const Pool &p, Tensor *dx),
                 poolGrad(exec, isMax, dy, x, y, p, dx))
  AMPRT_TABLE_OP(batchNorm,
                 (amprt_context * ctx, const Tensor *x, const Tensor *scale,
                  const Tensor *offset, double epsilon, const Split &s,
                  Tensor *y, Tensor *mean, Tensor *invStd),
                 batchNorm(exec, x, scale, offset, epsilon, s, y, mean, invStd))
  AMPRT_TABLE_OP(batchNormGrad,
                 (amprt_context * ctx, const Tensor *dy, const Tensor *x,
                  const Tensor *scale, const Tensor *mean, const Tensor *invStd,
                  const Split &s, Tensor *dx, Tensor *dscale, Tensor *doffset),
                 batchNormGrad(exec, dy, x, scale, mean, invStd, s, dx, dscale,
                               doffset))
  AMPRT_TABLE_OP(layerNorm,
                 (amprt_context * ctx, const Tensor *x, const Tensor *gamma,
                  const Tensor *beta, double epsilon, Tensor *y, Tensor *mean,
                  Tensor *invStd),
                 layerNorm(exec, x, gamma, beta, epsilon, y, mean, invStd))
  AMPRT_TABLE_OP(layerNormGrad,
                 (amprt_context * ctx, const Tensor *dy, const Tensor *x,
                  const Tensor *gamma, const Tensor *mean, const Tensor *invStd,
                  Tensor *dx, Tensor *dgamma, Tensor *dbeta),
                 layerNormGrad(exec, dy, x, gamma, mean, invStd, dx, dgamma,
                               dbeta))
  AMPRT_TABLE_OP(softmax,
                 (amprt_context * ctx, int kind, const Tensor *a,
                  const Tensor *b, const Split &s, Tensor *out),
                 softmax(exec, static_cast<device::SoftmaxKind>(kind), a, b, s,
                         out))
  AMPRT_TABLE_OP(causalSoftmax,
                 (amprt_context * ctx, const Tensor *x, int64_t queries,
                  Tensor *y),
                 causalSoftmax(exec, x, queries, y))
  AMPRT_TABLE_OP(crossEntropy,
                 (amprt_context * ctx, const char *op, const Tensor *logits,
                  const Tensor *labels, const Tensor *dloss, Tensor *out),
                 crossEntropy(exec, op, logits, labels, dloss, out))
  AMPRT_TABLE_OP(reduce,
                 (amprt_context * ctx, Reduce kind, const Tensor *x,
                  const bool *reduced, Tensor *y),
                 reduce(exec, kind, x, reduced, y))
  AMPRT_TABLE_OP(broadcastTo, (amprt_context * ctx, const Tensor *x, Tensor *y),
                 broadcastTo(exec, x, y))
  AMPRT_TABLE_OP(transpose,
                 (amprt_context * ctx, const Tensor *x, const int64_t *perm,
                  Tensor *y),
                 transpose(exec, x, perm, y))
  AMPRT_TABLE_OP(concat,
                 (amprt_context * ctx, const Tensor *const *xs, int count,
                  int64_t dim, Tensor *y),
                 concat(exec, xs, count, dim, y))
  AMPRT_TABLE_OP(stridedCopy,
                 (amprt_context * ctx, const Tensor *x, const StridedView &from,
                  Tensor *y, const StridedView &to),
                 stridedCopyView(exec, x, from, y, to))
  AMPRT_TABLE_OP(slice,
                 (amprt_context * ctx, const Tensor *x, const int64_t *offsets,
                  const int64_t *strides, Tensor *y),
                 slice(exec, x, offsets, strides, y))
  AMPRT_TABLE_OP(pad,
                 (amprt_context * ctx, const Tensor *x, const int64_t *low,
                  double value, Tensor *y),
                 pad(exec, x, low, value, y))
  AMPRT_TABLE_OP(gather,
                 (amprt_context * ctx, const Tensor *table,
                  const Tensor *indices, Tensor *y),
                 gather(exec, table, indices, y))
  AMPRT_TABLE_OP(gatherGrad,
                 (amprt_context * ctx, const Tensor *dy, const Tensor *indices,
                  Tensor *dtable),
                 gatherGrad(exec, dy, indices, dtable))
  AMPRT_TABLE_OP(sgd,
                 (amprt_context * ctx, const Tensor *param, const Tensor *grad,
                  const Tensor *lr, Tensor *newParam),
                 sgd(exec, param, grad, lr, newParam))
  AMPRT_TABLE_OP(momentum,
                 (amprt_context * ctx, const Tensor *param, const Tensor *grad,
                  const Tensor *velocity, const Tensor *lr, double momentum,
                  double weightDecay, bool nesterov, Tensor *newParam,
                  Tensor *newVelocity),
                 momentum(exec, param, grad, velocity, lr, momentum,
                          weightDecay, nesterov, newParam, newVelocity))
  AMPRT_TABLE_OP(adam,
                 (amprt_context * ctx, const Tensor *param, const Tensor *grad,
                  const Tensor *m, const Tensor *v, const Tensor *step,
                  const Tensor *lr, double beta1, double beta2, double epsilon,
                  double weightDecay, Tensor *newParam, Tensor *newM,
                  Tensor *newV),
                 adam(exec, param, grad, m, v, step, lr, beta1, beta2, epsilon,
                      weightDecay, newParam, newM, newV))
  AMPRT_TABLE_OP(clipByGlobalNorm,
                 (amprt_context * ctx, const Tensor *const *grads, int count,
                  double maxNorm, Tensor *const *clipped),
                 clipByGlobalNorm(exec, grads, count, maxNorm, clipped))
  AMPRT_TABLE_OP(finiteCheck,
                 (amprt_context * ctx, const Tensor *const *gs, int count,
                  const Tensor *scale, Tensor *const *unscaled, Tensor *finite),
                 finiteCheck(exec, gs, count, scale, unscaled, finite))
  AMPRT_TABLE_OP(updateScale,
                 (amprt_context * ctx, const Tensor *scale,
                  const Tensor *goodSteps, const Tensor *finite, double growth,
                  double backoff, int64_t interval, double minScale,
                  double maxScale, Tensor *newScale, Tensor *newGoodSteps),
                 updateScale(exec, scale, goodSteps, finite, growth, backoff,
                             interval, minScale, maxScale, newScale,
                             newGoodSteps))
  AMPRT_TABLE_OP(scaledCast,
                 (amprt_context * ctx, const Tensor *x, const Tensor *s,
                  Tensor *y),
                 scaledCast(exec, x, s, y))
  AMPRT_TABLE_OP(amax, (amprt_context * ctx, const Tensor *x, Tensor *y),
                 amax(exec, x, y))
  AMPRT_TABLE_OP(fp8Scale,
                 (amprt_context * ctx, const Tensor *history, double fp8Max,
                  int64_t margin, Tensor *scale),
                 fp8Scale(exec, history, fp8Max, margin, scale))
  AMPRT_TABLE_OP(recordAmax,
                 (amprt_context * ctx, const Tensor *history,
                  const Tensor *amax, Tensor *newHistory),
                 recordAmax(exec, history, amax, newHistory))
#undef AMPRT_TABLE_OP
};

template <typename Exec> Backend makeBackend(const Platform &p) {
  using O = Ops<Exec>;
  return Backend{
      kBackendVersion,
      p.deviceCount,
      p.initContext,
      p.destroyContext,
      p.deviceAlloc,
      p.deviceFree,
      p.memoryCapacity,
      p.synchronize,
      p.copyToDevice,
      p.copyToHost,
      p.copyOnDevice,
      p.scaledMatmul,
      nullptr, // stridedMatmul: the C API copies the views
      nullptr, // attention: the C API runs the unfused ops
      nullptr, // attentionGrad: likewise
      O::fill,
      O::unary,
      O::binary,
      O::compare,
      O::select,
      O::isFinite,
      O::elementwiseChain,
      O::activationGrad,
      O::cast,
      O::scale,
      p.matmul,
      p.conv,
      O::biasAdd,
      O::biasAddGrad,
      O::pool,
      O::poolGrad,
      O::batchNorm,
      O::batchNormGrad,
      O::layerNorm,
      O::layerNormGrad,
      O::softmax,
      O::causalSoftmax,
      O::crossEntropy,
      O::reduce,
      O::broadcastTo,
      O::transpose,
      O::concat,
      O::slice,
      O::stridedCopy,
      O::pad,
      O::gather,
      O::gatherGrad,
      O::sgd,
      O::momentum,
      O::adam,
      O::clipByGlobalNorm,
      O::finiteCheck,
      O::updateScale,
      O::scaledCast,
      O::amax,
      O::fp8Scale,
      O::recordAmax,
  };
}

} // namespace amprt::device

#endif // AMPRT_DEVICE_BACKENDTABLE_H
