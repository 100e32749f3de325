//===- DeviceBackend.h - A device backend's table of entry points -*- C++
//-*-===//
//
// A device backend -- the CUDA backend, or the host-emulated device the
// tests load in its place -- is a separate library, libamprt_cuda.so (or
// the one AMPRT_CUDA_LIBRARY names), that the runtime loads on first use
// (amprt_cuda_device_count or a CUDA context): programs that only use the CPU
// never load the CUDA, cuBLAS and cuDNN libraries, and the runtime works on
// machines without them. The library hands back one table of functions. The C
// API checks every argument before it calls an op here.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_DEVICEBACKEND_H
#define AMPRT_COMMON_DEVICEBACKEND_H

#include "Geometry.h"
#include "Runtime.h"
#include "amprt_math.h"

namespace amprt::device {

/// Bumped whenever the table changes, so a stale library is refused.
constexpr int kBackendVersion = 2;

using Tensor = amprt_tensor;
using Ctx = amprt_context;

struct Backend {
  int version;
  // Devices, memory and copies.
  int (*deviceCount)();
  amprt_status (*initContext)(Ctx *ctx, int index);
  void (*destroyContext)(Ctx *ctx);
  void *(*deviceAlloc)(Ctx *ctx, size_t bytes);
  void (*deviceFree)(Ctx *ctx, void *data);
  size_t (*memoryCapacity)(const Ctx *ctx);
  amprt_status (*synchronize)(Ctx *ctx);
  amprt_status (*copyToDevice)(Ctx *ctx, void *dst, const void *src,
                               size_t bytes);
  amprt_status (*copyToHost)(Ctx *ctx, void *dst, const void *src,
                             size_t bytes);
  amprt_status (*copyOnDevice)(Ctx *ctx, void *dst, const void *src,
                               size_t bytes);
  // Elementwise.
  amprt_status (*fill)(Tensor *t, double value);
  amprt_status (*unary)(Ctx *, Unary, const Tensor *x, Tensor *y, double alpha);
  amprt_status (*binary)(Ctx *, Binary, const Tensor *a, const Tensor *b,
                         Tensor *c);
  amprt_status (*compare)(Ctx *, Compare, const Tensor *a, const Tensor *b,
                          Tensor *c);
  amprt_status (*select)(Ctx *, const Tensor *cond, const Tensor *a,
                         const Tensor *b, Tensor *c);
  amprt_status (*isFinite)(Ctx *, const Tensor *x, Tensor *y);
  amprt_status (*activationGrad)(Ctx *, ActivationGrad, const Tensor *dy,
                                 const Tensor *saved, Tensor *dx, double alpha);
  amprt_status (*cast)(Ctx *, const Tensor *x, Tensor *y);
  amprt_status (*scale)(Ctx *, const Tensor *x, const Tensor *scale, Tensor *y,
                        bool unscale);
  // Contractions (m, n, k, batch count checked by the C API).
  amprt_status (*matmul)(Ctx *, const Tensor *a, const Tensor *b, bool ta,
                         bool tb, Tensor *c, int64_t m, int64_t n, int64_t k,
                         int64_t batch);
  amprt_status (*conv)(Ctx *, ConvKind, const Tensor *first,
                       const Tensor *second, Tensor *result,
                       const ConvGeometry &g);
  // Bias, pooling, normalization.
  amprt_status (*biasAdd)(Ctx *, const Tensor *x, const Tensor *b,
                          const Split &s, Tensor *y);
  amprt_status (*biasAddGrad)(Ctx *, const Tensor *dy, const Split &s,
                              Tensor *db);
  amprt_status (*pool)(Ctx *, bool isMax, const Tensor *x, const Pool &p,
                       Tensor *y);
  amprt_status (*poolGrad)(Ctx *, bool isMax, const Tensor *dy, const Tensor *x,
                           const Tensor *y, const Pool &p, Tensor *dx);
  amprt_status (*batchNorm)(Ctx *, const Tensor *x, const Tensor *scale,
                            const Tensor *offset, double epsilon,
                            const Split &s, Tensor *y, Tensor *mean,
                            Tensor *invStd);
  amprt_status (*batchNormGrad)(Ctx *, const Tensor *dy, const Tensor *x,
                                const Tensor *scale, const Tensor *mean,
                                const Tensor *invStd, const Split &s,
                                Tensor *dx, Tensor *dscale, Tensor *doffset);
  amprt_status (*layerNorm)(Ctx *, const Tensor *x, const Tensor *gamma,
                            const Tensor *beta, double epsilon, Tensor *y,
                            Tensor *mean, Tensor *invStd);
  amprt_status (*layerNormGrad)(Ctx *, const Tensor *dy, const Tensor *x,
                                const Tensor *gamma, const Tensor *mean,
                                const Tensor *invStd, Tensor *dx,
                                Tensor *dgamma, Tensor *dbeta);
  // Softmax and loss: kind is device::SoftmaxKind's value.
  amprt_status (*softmax)(Ctx *, int kind, const Tensor *a, const Tensor *b,
                          const Split &s, Tensor *out);
  amprt_status (*crossEntropy)(Ctx *, const char *op, const Tensor *logits,
                               const Tensor *labels, const Tensor *dloss,
                               Tensor *out);
  // Reductions and data movement.
  amprt_status (*reduce)(Ctx *, Reduce, const Tensor *x, const bool *reduced,
                         Tensor *y);
  amprt_status (*broadcastTo)(Ctx *, const Tensor *x, Tensor *y);
  amprt_status (*transpose)(Ctx *, const Tensor *x, const int64_t *perm,
                            Tensor *y);
  amprt_status (*concat)(Ctx *, const Tensor *const *xs, int count, int64_t dim,
                         Tensor *y);
  amprt_status (*slice)(Ctx *, const Tensor *x, const int64_t *offsets,
                        const int64_t *strides, Tensor *y);
  amprt_status (*pad)(Ctx *, const Tensor *x, const int64_t *low, double value,
                      Tensor *y);
  amprt_status (*gather)(Ctx *, const Tensor *table, const Tensor *indices,
                         Tensor *y);
  amprt_status (*gatherGrad)(Ctx *, const Tensor *dy, const Tensor *indices,
                             Tensor *dtable);
  // Optimizer and loss scaling.
  amprt_status (*sgd)(Ctx *, const Tensor *param, const Tensor *grad,
                      const Tensor *lr, Tensor *newParam);
  amprt_status (*momentum)(Ctx *, const Tensor *param, const Tensor *grad,
                           const Tensor *velocity, const Tensor *lr,
                           double momentum, bool nesterov, Tensor *newParam,
                           Tensor *newVelocity);
  amprt_status (*adam)(Ctx *, const Tensor *param, const Tensor *grad,
                       const Tensor *m, const Tensor *v, const Tensor *step,
                       const Tensor *lr, double beta1, double beta2,
                       double epsilon, double weightDecay, Tensor *newParam,
                       Tensor *newM, Tensor *newV);
  amprt_status (*clipByGlobalNorm)(Ctx *, const Tensor *const *grads, int count,
                                   double maxNorm, Tensor *const *clipped);
  amprt_status (*finiteCheck)(Ctx *, const Tensor *const *gs, int count,
                              const Tensor *scale, Tensor *const *unscaled,
                              Tensor *finite);
  amprt_status (*updateScale)(Ctx *, const Tensor *scale,
                              const Tensor *goodSteps, const Tensor *finite,
                              double growth, double backoff, int64_t interval,
                              double minScale, double maxScale,
                              Tensor *newScale, Tensor *newGoodSteps);
};

/// The loaded backend, or null with the reason in amprt_last_error() (no
/// libamprt_cuda.so next to the runtime, or it failed to load).
const Backend *backend();

/// For the op entry points: runs `call` on the CUDA backend when `ctx` is a
/// CUDA context (which exists only if the backend loaded).
#define AMPRT_ON_CUDA(ctx, call)                                               \
  do {                                                                         \
    if ((ctx)->device == AMPRT_DEVICE_CUDA)                                    \
      return ::amprt::device::backend()->call;                                 \
  } while (0)

} // namespace amprt::device

/// Exported by libamprt_cuda.so.
extern "C" const amprt::device::Backend *amprt_cuda_backend(void);

#endif // AMPRT_COMMON_DEVICEBACKEND_H
