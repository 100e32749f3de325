//===- DeviceBackend.h - A backend's table of entry points -----*- C++ -*-===//
//
// The table of op entry points every backend fills and the C API front
// (runtime/api/) dispatches to after checking the arguments: the CPU
// backend (runtime/cpu/, linked into libamprt; its platform half is null,
// CPU memory being the host's), and a device backend -- the CUDA backend,
// or the host-emulated device the tests load in its place -- which is a
// separate library, libamprt_cuda.so (or the one AMPRT_CUDA_LIBRARY names),
// that the runtime loads on first use (amprt_cuda_device_count or a CUDA
// context): programs that only use the CPU never load the CUDA, cuBLAS and
// cuDNN libraries, and the runtime works on machines without them. The
// device library hands back one table of functions, platform half included.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_DEVICEBACKEND_H
#define AMPRT_COMMON_DEVICEBACKEND_H

#include "Geometry.h"
#include "Runtime.h"
#include "amprt_math.h"

namespace amprt::device {

/// Bumped whenever the table, the context it shares (amprt_context) or the
/// codes it takes (Unary, from amprt_unary.def's order) change, so a stale
/// library is refused.
constexpr int kBackendVersion = 13;

using Tensor = amprt_tensor;
using Ctx = amprt_context;

/// The activation a contraction's epilogue applies after its bias
/// (amprt_matmul_bias_act, amprt_conv2d_bias_act): result = kind(product +
/// bias), each step rounded to the result's type as the separate calls
/// round it. A non-null `pre` (the result's type and shape) also receives
/// product + bias, the value the activation's gradient reads.
struct Activation {
  bool on = false;
  Unary kind = Unary::Relu;
  double alpha = 0;
  Tensor *pre = nullptr;

  /// Where the product (and bias) is written before the activation.
  Tensor *target(Tensor *result) const { return on && pre ? pre : result; }
};

/// Attention's operands (amprt_attention): q [batch..., tq, d],
/// k [batch..., tk, d] and v [batch..., tk, e] as views of their tensors;
/// the scores scale * q k^T (scale finite, rounded to f32 as the kernels
/// use it); a causal head's query i sees keys 0..i.
struct AttentionOperands {
  const Tensor *q, *k, *v;
  StridedView qv, kv, vv;
  bool causal;
  float scale;
};

/// amprt_attention_grad's results, as views of their tensors (q's, k's
/// and v's shapes).
struct AttentionGrads {
  Tensor *dq, *dk, *dv;
  StridedView dqv, dkv, dvv;
};

/// The op half of the table, one X(name, (parameters)) per entry: the
/// table's fields, the CPU backend's declarations and its table are all
/// expanded from this list.
#define AMPRT_BACKEND_OPS(X)                                                   \
  /* Elementwise. */                                                           \
  X(fill, (Tensor * t, double value))                                          \
  X(unary, (Ctx *, Unary, const Tensor *x, Tensor *y, double alpha))           \
  X(binary, (Ctx *, Binary, const Tensor *a, const Tensor *b, Tensor *c))      \
  X(compare, (Ctx *, Compare, const Tensor *a, const Tensor *b, Tensor *c))    \
  X(select,                                                                    \
    (Ctx *, const Tensor *cond, const Tensor *a, const Tensor *b, Tensor *c))  \
  X(isFinite, (Ctx *, const Tensor *x, Tensor *y))                             \
  X(elementwiseChain,                                                          \
    (Ctx *, const Tensor *const *inputs, const Chain &chain, Tensor *y))       \
  X(activationGrad, (Ctx *, ActivationGrad, const Tensor *dy,                  \
                     const Tensor *saved, Tensor *dx, double alpha))           \
  X(cast, (Ctx *, const Tensor *x, Tensor *y))                                 \
  X(scale,                                                                     \
    (Ctx *, const Tensor *x, const Tensor *scale, Tensor *y, bool unscale))    \
  /* Contractions (m, n, k and batch count checked by the C API). A */         \
  /* non-null bias ([n], c's type; forward convolutions: [o]) is added */      \
  /* along the result's channels, as amprt_bias_add would add it, then */      \
  /* `act` applied when it is on (forward products only). */                   \
  X(matmul, (Ctx *, const Tensor *a, const Tensor *b, bool ta, bool tb,        \
             const Tensor *bias, const Activation &act, Tensor *c, int64_t m,  \
             int64_t n, int64_t k, int64_t batch))                             \
  X(conv, (Ctx *, ConvKind, const Tensor *first, const Tensor *second,         \
           const Tensor *bias, const Activation &act, Tensor *result,          \
           const ConvGeometry &g))                                             \
  /* Bias, pooling, normalization. */                                          \
  X(biasAdd,                                                                   \
    (Ctx *, const Tensor *x, const Tensor *b, const Split &s, Tensor *y))      \
  X(biasAddGrad, (Ctx *, const Tensor *dy, const Split &s, Tensor *db))        \
  X(pool, (Ctx *, bool isMax, const Tensor *x, const Pool &p, Tensor *y))      \
  X(poolGrad, (Ctx *, bool isMax, const Tensor *dy, const Tensor *x,           \
               const Tensor *y, const Pool &p, Tensor *dx))                    \
  X(batchNorm,                                                                 \
    (Ctx *, const Tensor *x, const Tensor *scale, const Tensor *offset,        \
     double epsilon, const Split &s, Tensor *y, Tensor *mean, Tensor *invStd)) \
  X(batchNormGrad,                                                             \
    (Ctx *, const Tensor *dy, const Tensor *x, const Tensor *scale,            \
     const Tensor *mean, const Tensor *invStd, const Split &s, Tensor *dx,     \
     Tensor *dscale, Tensor *doffset))                                         \
  X(layerNorm,                                                                 \
    (Ctx *, const Tensor *x, const Tensor *gamma, const Tensor *beta,          \
     double epsilon, Tensor *y, Tensor *mean, Tensor *invStd))                 \
  X(layerNormGrad,                                                             \
    (Ctx *, const Tensor *dy, const Tensor *x, const Tensor *gamma,            \
     const Tensor *mean, const Tensor *invStd, Tensor *dx, Tensor *dgamma,     \
     Tensor *dbeta))                                                           \
  /* Softmax and loss: softmax's kind is device::SoftmaxKind's value. */       \
  X(softmax, (Ctx *, int kind, const Tensor *a, const Tensor *b,               \
              const Split &s, Tensor *out))                                    \
  X(causalSoftmax, (Ctx *, const Tensor *x, int64_t queries, Tensor *y))       \
  X(crossEntropy, (Ctx *, const char *op, const Tensor *logits,                \
                   const Tensor *labels, const Tensor *dloss, Tensor *out))    \
  /* Reductions and data movement. */                                          \
  X(reduce, (Ctx *, Reduce, const Tensor *x, const bool *reduced, Tensor *y))  \
  X(broadcastTo, (Ctx *, const Tensor *x, Tensor *y))                          \
  X(transpose, (Ctx *, const Tensor *x, const int64_t *perm, Tensor *y))       \
  X(concat,                                                                    \
    (Ctx *, const Tensor *const *xs, int count, int64_t dim, Tensor *y))       \
  X(slice, (Ctx *, const Tensor *x, const int64_t *offsets,                    \
            const int64_t *strides, Tensor *y))                                \
  /* y's view `to` = x's view `from` (one shape). */                           \
  X(stridedCopy, (Ctx *, const Tensor *x, const StridedView &from, Tensor *y,  \
                  const StridedView &to))                                      \
  X(pad,                                                                       \
    (Ctx *, const Tensor *x, const int64_t *low, double value, Tensor *y))     \
  X(gather, (Ctx *, const Tensor *table, const Tensor *indices, Tensor *y))    \
  X(gatherGrad,                                                                \
    (Ctx *, const Tensor *dy, const Tensor *indices, Tensor *dtable))          \
  /* Optimizer and loss scaling. */                                            \
  X(sgd, (Ctx *, const Tensor *param, const Tensor *grad, const Tensor *lr,    \
          Tensor *newParam))                                                   \
  X(momentum,                                                                  \
    (Ctx *, const Tensor *param, const Tensor *grad, const Tensor *velocity,   \
     const Tensor *lr, double momentum, double weightDecay, bool nesterov,     \
     Tensor *newParam, Tensor *newVelocity))                                   \
  X(adam, (Ctx *, const Tensor *param, const Tensor *grad, const Tensor *m,    \
           const Tensor *v, const Tensor *step, const Tensor *lr,              \
           double beta1, double beta2, double epsilon, double weightDecay,     \
           Tensor *newParam, Tensor *newM, Tensor *newV))                      \
  X(clipByGlobalNorm, (Ctx *, const Tensor *const *grads, int count,           \
                       double maxNorm, Tensor *const *clipped))                \
  X(finiteCheck,                                                               \
    (Ctx *, const Tensor *const *gs, int count, const Tensor *scale,           \
     Tensor *const *unscaled, Tensor *finite))                                 \
  X(updateScale, (Ctx *, const Tensor *scale, const Tensor *goodSteps,         \
                  const Tensor *finite, double growth, double backoff,         \
                  int64_t interval, double minScale, double maxScale,          \
                  Tensor *newScale, Tensor *newGoodSteps))                     \
  /* FP8: scaledCast quantizes (y FP8) or dequantizes (x FP8). */              \
  X(scaledCast, (Ctx *, const Tensor *x, const Tensor *scale, Tensor *y))      \
  X(amax, (Ctx *, const Tensor *x, Tensor *y))                                 \
  X(fp8Scale, (Ctx *, const Tensor *history, double fp8Max, int64_t margin,    \
               Tensor *scale))                                                 \
  X(recordAmax,                                                                \
    (Ctx *, const Tensor *history, const Tensor *amax, Tensor *newHistory))

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
  /// amprt_scaled_matmul on the FP8 tensors themselves (arguments checked,
  /// m, n, k and batch as for matmul). For a product the device cannot
  /// take it does nothing and sets *ran false, and the C API dequantizes
  /// the operands for matmul instead. Null where there is no FP8 GEMM.
  amprt_status (*scaledMatmul)(Ctx *ctx, const Tensor *a, const Tensor *scaleA,
                               const Tensor *b, const Tensor *scaleB, bool ta,
                               bool tb, Tensor *c, int64_t m, int64_t n,
                               int64_t k, int64_t batch, bool *ran);
  /// amprt_batch_matmul_strided on the views themselves (arguments
  /// checked). For a product it cannot take it does nothing and sets *ran
  /// false, and the C API copies the views for batchMatmul instead. Null
  /// where every product takes that path.
  amprt_status (*stridedMatmul)(Ctx *ctx, const Tensor *a,
                                const StridedView &av, const Tensor *b,
                                const StridedView &bv, Tensor *c,
                                const StridedView &cv, bool *ran);
  /// amprt_attention and amprt_attention_grad on the views themselves
  /// (arguments checked). For operands it cannot take it does nothing and
  /// sets *ran false, and the C API runs the unfused ops instead. Null
  /// where every call takes that path.
  amprt_status (*attention)(Ctx *ctx, const AttentionOperands &a, Tensor *o,
                            const StridedView &ov, bool *ran);
  amprt_status (*attentionGrad)(Ctx *ctx, const AttentionOperands &a,
                                const Tensor *dO, const StridedView &dOv,
                                const AttentionGrads &g, bool *ran);
#define AMPRT_BACKEND_FIELD(name, params) amprt_status(*name) params;
  AMPRT_BACKEND_OPS(AMPRT_BACKEND_FIELD)
#undef AMPRT_BACKEND_FIELD
};

/// The loaded backend, or null with the reason in amprt_last_error() (no
/// libamprt_cuda.so next to the runtime, or it failed to load).
const Backend *backend();

} // namespace amprt::device

/// Exported by libamprt_cuda.so.
extern "C" const amprt::device::Backend *amprt_cuda_backend(void);

#endif // AMPRT_COMMON_DEVICEBACKEND_H
