//===- OptimizerOps.cpp - Updates, clipping and loss-scale state on the CPU -//
//
// The CPU backend's entries (arguments checked by the C API). The update
// bodies are the device backends' own (device/Kernels.h) run on the cores;
// the step math is common/amprt_math.h's. Loss-scale decisions are computed
// from tensors into tensors: nothing is returned to the caller to branch on.
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "../device/DeviceOps.h"
#include "Common.h"
#include "CpuOps.h"
#include <cmath>

using namespace amprt;
using namespace amprt::cpu;

namespace {

/// Runs a per-element update body (the CUDA backend's own, from
/// device/Kernels.h) over n elements on the cores: typed loads, no
/// per-element type dispatch. Element i reads and writes only element i of
/// each operand, so the loop vectorises even if an output is an input
/// (ivdep: gcc cannot prove it).
template <typename Kernel>
amprt_status runUpdate(const Kernel &kernel, int64_t n) {
  parallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
#pragma GCC ivdep
    for (int64_t i = begin; i < end; ++i)
      kernel(i);
  });
  return AMPRT_OK;
}

/// Adam over [begin, end), the same per-element step as AdamKernel
/// (amprt_math.h's adamStep) with every scalar in a register: read through
/// the kernel's pointers, the learning rate and corrections might alias the
/// f32 outputs, so gcc reloaded them per element and left the loop scalar
/// (divsd/sqrtsd, 80% of the MLP's step).
template <typename T>
__attribute__((always_inline)) inline void
adamRange(int64_t begin, int64_t end, const T *p0, const T *g0, const T *m0,
          const T *v0, T *p1, T *m1, T *v1, double rate, double beta1,
          double beta2, double epsilon, double decay, double c1, double c2) {
#pragma GCC ivdep
  for (int64_t i = begin; i < end; ++i) {
    double pi = p0[i], mi = m0[i], vi = v0[i];
    adamStep(pi, mi, vi, (double)g0[i], rate, beta1, beta2, epsilon, decay, c1,
             c2);
    p1[i] = (T)pi;
    m1[i] = (T)mi;
    v1[i] = (T)vi;
  }
}

/// The loop for any x86-64, and for AVX-512 (8 doubles a vector instead of
/// 2; the step's divisions and square root dominate). IEEE division and
/// square root round the same in every width: bit-identical.
template <typename T>
void adamBaseline(int64_t begin, int64_t end, const T *p0, const T *g0,
                  const T *m0, const T *v0, T *p1, T *m1, T *v1, double rate,
                  double beta1, double beta2, double epsilon, double decay,
                  double c1, double c2) {
  adamRange(begin, end, p0, g0, m0, v0, p1, m1, v1, rate, beta1, beta2, epsilon,
            decay, c1, c2);
}
template <typename T>
__attribute__((target("avx512f"))) void
adamAvx512(int64_t begin, int64_t end, const T *p0, const T *g0, const T *m0,
           const T *v0, T *p1, T *m1, T *v1, double rate, double beta1,
           double beta2, double epsilon, double decay, double c1, double c2) {
  adamRange(begin, end, p0, g0, m0, v0, p1, m1, v1, rate, beta1, beta2, epsilon,
            decay, c1, c2);
}

bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

} // namespace

namespace amprt::cpu {

amprt_status sgd(Ctx *ctx, const Tensor *param, const Tensor *grad,
                 const Tensor *lr, Tensor *new_param) {
  // A local copy: the loop can keep it in a register.
  float rate = *static_cast<const float *>(lr->data);
  return device::withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return runUpdate(device::SgdKernel<T>{static_cast<const T *>(param->data),
                                          static_cast<const T *>(grad->data),
                                          &rate,
                                          static_cast<T *>(new_param->data)},
                     param->numel);
  });
}

amprt_status momentum(Ctx *ctx, const Tensor *param, const Tensor *grad,
                      const Tensor *velocity, const Tensor *lr, double momentum,
                      bool nesterov, Tensor *new_param, Tensor *new_velocity) {
  // A local copy: the loop can keep it in a register.
  float rate = *static_cast<const float *>(lr->data);
  return device::withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return runUpdate(
        device::MomentumKernel<T>{static_cast<const T *>(param->data),
                                  static_cast<const T *>(grad->data),
                                  static_cast<const T *>(velocity->data), &rate,
                                  momentum, nesterov != 0,
                                  static_cast<T *>(new_param->data),
                                  static_cast<T *>(new_velocity->data)},
        param->numel);
  });
}

amprt_status adam(Ctx *ctx, const Tensor *param, const Tensor *grad,
                  const Tensor *m, const Tensor *v, const Tensor *step,
                  const Tensor *lr, double beta1, double beta2, double epsilon,
                  double weight_decay, Tensor *new_param, Tensor *new_m,
                  Tensor *new_v) {
  int64_t t = getIndex(step, 0);
  if (t < 1)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: step is 1-based, got %lld",
                "amprt_adam_update", (long long)t);
  double corrections[2];
  device::AdamCorrectionKernel{static_cast<const int64_t *>(step->data), beta1,
                               beta2, corrections}(0);
  double rate = *static_cast<const float *>(lr->data);
  double c1 = corrections[0], c2 = corrections[1];
  return device::withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *p0 = static_cast<const T *>(param->data);
    const T *g0 = static_cast<const T *>(grad->data);
    const T *m0 = static_cast<const T *>(m->data);
    const T *v0 = static_cast<const T *>(v->data);
    T *p1 = static_cast<T *>(new_param->data);
    T *m1 = static_cast<T *>(new_m->data);
    T *v1 = static_cast<T *>(new_v->data);
    auto *range = hasAvx512() ? adamAvx512<T> : adamBaseline<T>;
    parallelFor(param->numel, 1 << 14, [=](int64_t begin, int64_t end) {
      range(begin, end, p0, g0, m0, v0, p1, m1, v1, rate, beta1, beta2, epsilon,
            weight_decay, c1, c2);
    });
    return ok();
  });
}

amprt_status clipByGlobalNorm(Ctx *ctx, const Tensor *const *grads, int count,
                              double max_norm, Tensor *const *clipped) {
  double sq = 0;
  for (int i = 0; i < count; ++i)
    for (int64_t j = 0; j < grads[i]->numel; ++j) {
      double g = get(grads[i], j);
      sq += g * g;
    }
  // PyTorch's clip_grad_norm_: scale by max_norm / (norm + 1e-6), at most 1.
  double norm = std::sqrt(sq);
  double factor = max_norm / (norm + 1e-6);
  if (factor > 1)
    factor = 1;
  for (int i = 0; i < count; ++i)
    for (int64_t j = 0; j < grads[i]->numel; ++j)
      set(clipped[i], j, get(grads[i], j) * factor);
  return ok();
}

/// All finite (scale null), or unscale and check in one pass.
amprt_status finiteCheck(Ctx *ctx, const Tensor *const *gs, int count,
                         const Tensor *scale, Tensor *const *unscaled,
                         Tensor *finite) {
  if (!scale) {
    bool ok_ = true;
    for (int i = 0; i < count; ++i)
      for (int64_t j = 0; j < gs[i]->numel && ok_; ++j)
        ok_ = m_isfinite(get(gs[i], j));
    *static_cast<uint8_t *>(finite->data) = ok_;
    return ok();
  }
  float inverse = 1.0f / *static_cast<const float *>(scale->data);
  bool allFinite = true;
  // One pass: each element is read once, unscaled and checked.
  for (int i = 0; i < count; ++i)
    for (int64_t j = 0; j < gs[i]->numel; ++j) {
      double u = (double)(float)(get(gs[i], j) * inverse);
      allFinite &= m_isfinite(u);
      set(unscaled[i], j, u);
    }
  *static_cast<uint8_t *>(finite->data) = allFinite;
  return ok();
}

amprt_status updateScale(Ctx *ctx, const Tensor *scale,
                         const Tensor *good_steps, const Tensor *finite,
                         double growth_factor, double backoff_factor,
                         int64_t growth_interval, double min_scale,
                         double max_scale, Tensor *new_scale,
                         Tensor *new_good_steps) {
  float s = *static_cast<const float *>(scale->data);
  int64_t n = *static_cast<const int64_t *>(good_steps->data);
  bool ok_ = *static_cast<const uint8_t *>(finite->data) != 0;
  amprt::updateScale(s, n, ok_, growth_factor, backoff_factor, growth_interval,
                     min_scale, max_scale);
  *static_cast<float *>(new_scale->data) = s;
  *static_cast<int64_t *>(new_good_steps->data) = n;
  return ok();
}

} // namespace amprt::cpu
