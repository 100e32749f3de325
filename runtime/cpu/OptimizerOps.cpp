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
#include "Blocks.h"
#include "Common.h"
#include "CpuOps.h"
#include <atomic>
#include <cmath>
#include <cstring>

using namespace amprt;
using namespace amprt::cpu;

namespace {

/// Runs a per-element update body (the CUDA backend's own, from
/// device/Kernels.h) over n elements on the cores: typed loads, no
/// per-element type dispatch. Element i reads and writes only element i of
/// each operand, so the loop vectorises even if an output is an input
/// (ivdep: gcc cannot prove it), 16 f32 lanes where the CPU has AVX-512
/// (parallelForWide: the same bits).
template <typename Kernel>
amprt_status runUpdate(const Kernel &kernel, int64_t n) {
  parallelForWide(n, 1 << 14, [&](int64_t begin, int64_t end) {
#pragma GCC ivdep
    for (int64_t i = begin; i < end; ++i)
      kernel(i);
  });
  return AMPRT_OK;
}

/// Adam over [begin, end), the same per-element step as AdamKernel
/// (amprt_math.h's adamStep) with the step's scalars formed once and held
/// in registers: read through the kernel's pointers, they might alias the
/// outputs, so gcc reloaded them per element and left the loop scalar.
template <typename T>
__attribute__((always_inline)) inline void
adamRange(int64_t begin, int64_t end, const T *p0, const T *g0, const T *m0,
          const T *v0, T *p1, T *m1, T *v1, const AdamScalars<T> &scalars) {
  const AdamScalars<T> s = scalars;
#pragma GCC ivdep
  for (int64_t i = begin; i < end; ++i) {
    T pi = p0[i], mi = m0[i], vi = v0[i];
    adamStep(pi, mi, vi, g0[i], s);
    p1[i] = pi;
    m1[i] = mi;
    v1[i] = vi;
  }
}

/// The loop for any x86-64, and for AVX-512 (16 floats a vector instead
/// of 4; the division and square root dominate). IEEE division and square
/// root round the same in every width: bit-identical.
template <typename T>
void adamBaseline(int64_t begin, int64_t end, const T *p0, const T *g0,
                  const T *m0, const T *v0, T *p1, T *m1, T *v1,
                  const AdamScalars<T> &s) {
  adamRange(begin, end, p0, g0, m0, v0, p1, m1, v1, s);
}
template <typename T>
__attribute__((target("avx512f"))) void
adamAvx512(int64_t begin, int64_t end, const T *p0, const T *g0, const T *m0,
           const T *v0, T *p1, T *m1, T *v1, const AdamScalars<T> &s) {
  adamRange(begin, end, p0, g0, m0, v0, p1, m1, v1, s);
}

/// 1 when `x` is inf or NaN (all exponent bits set), from its bits: an
/// integer OR over a block vectorises where a bool AND did not.
inline uint32_t nonFinite(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7F800000u) == 0x7F800000u;
}
inline uint32_t nonFinite(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull;
}
inline uint32_t nonFinite(half_t x) { return (x.bits & 0x7C00u) == 0x7C00u; }
inline uint32_t nonFinite(bf16_t x) { return (x.bits & 0x7F80u) == 0x7F80u; }

/// Unscales n gradients of type T into U (f32), as FiniteCheckKernel does
/// per element (u = (float)(g * inverse) in double), a block at a time:
/// 16-bit blocks are widened with the vector conversions first, and the
/// loop over a block vectorises. False when one is not finite.
template <typename T, typename U>
bool unscaleRange(const T *g, U *out, int64_t begin, int64_t end,
                  float inverse) {
  using C = typename Compute<U>::type;
  uint32_t bad = 0;
  if constexpr (std::is_same_v<T, double>) {
    for (int64_t i = begin; i < end; ++i) {
      float u = (float)(g[i] * (double)inverse);
      bad |= nonFinite(u);
      store(out, i, (C)u);
    }
  } else {
    float block[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      int64_t m = std::min(kBlock, end - i);
      const float *in = block;
      if constexpr (kIs16Bit<T>)
        convert(g + i, block, m);
      else
        in = g + i;
      for (int64_t j = 0; j < m; ++j) {
        float u = (float)((double)in[j] * (double)inverse);
        bad |= nonFinite(u);
        store(out, i + j, (C)u);
      }
    }
  }
  return bad == 0;
}

/// Whether every value in [begin, end) is finite, checked on the stored
/// bits (a 16-bit value is finite exactly when its widened one is).
template <typename T>
bool allFiniteRange(const T *g, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i += kBlock) {
    int64_t last = std::min(end, i + kBlock);
    uint32_t bad = 0;
    for (int64_t j = i; j < last; ++j)
      bad |= nonFinite(g[j]);
    if (bad)
      return false;
  }
  return true;
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
                      double weightDecay, bool nesterov, Tensor *new_param,
                      Tensor *new_velocity) {
  // A local copy: the loop can keep it in a register.
  float rate = *static_cast<const float *>(lr->data);
  return device::withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return runUpdate(
        device::MomentumKernel<T>{static_cast<const T *>(param->data),
                                  static_cast<const T *>(grad->data),
                                  static_cast<const T *>(velocity->data), &rate,
                                  momentum, weightDecay, nesterov != 0,
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
  return device::withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    AdamScalars<T> scalars =
        adamScalars<T>(rate, beta1, beta2, epsilon, weight_decay,
                       corrections[0], corrections[1]);
    const T *p0 = static_cast<const T *>(param->data);
    const T *g0 = static_cast<const T *>(grad->data);
    const T *m0 = static_cast<const T *>(m->data);
    const T *v0 = static_cast<const T *>(v->data);
    T *p1 = static_cast<T *>(new_param->data);
    T *m1 = static_cast<T *>(new_m->data);
    T *v1 = static_cast<T *>(new_v->data);
    auto *range = hasAvx512F() ? adamAvx512<T> : adamBaseline<T>;
    parallelFor(param->numel, 1 << 14, [=](int64_t begin, int64_t end) {
      range(begin, end, p0, g0, m0, v0, p1, m1, v1, scalars);
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
    // Typed blocks on all cores (a per-element dispatch was as long as
    // Adam in the f16 MLP step); widening is exact, so a 16-bit value is
    // finite exactly when its f32 one is.
    std::atomic<bool> allFinite{true};
    for (int i = 0; i < count && allFinite.load(); ++i)
      AMPRT_FLOAT_DISPATCH(gs[i]->dtype, T, {
        const T *g = static_cast<const T *>(gs[i]->data);
        parallelForWide(gs[i]->numel, 1 << 14, [&](int64_t b, int64_t e) {
          if (!allFiniteRange(g, b, e))
            allFinite.store(false, std::memory_order_relaxed);
        });
      });
    *static_cast<uint8_t *>(finite->data) = allFinite.load();
    return ok();
  }
  float inverse = 1.0f / *static_cast<const float *>(scale->data);
  std::atomic<bool> allFinite{true};
  // One pass: each element is read once, unscaled and checked; typed
  // blocks on all cores (the per-element dispatch of get/set was as long as
  // Adam itself in the f16 MLP step).
  for (int i = 0; i < count; ++i)
    AMPRT_FLOAT_DISPATCH(gs[i]->dtype, T, {
      AMPRT_FLOAT_DISPATCH(unscaled[i]->dtype, U, {
        const T *g = static_cast<const T *>(gs[i]->data);
        U *out = static_cast<U *>(unscaled[i]->data);
        parallelForWide(gs[i]->numel, 1 << 14, [&](int64_t b, int64_t e) {
          if (!unscaleRange(g, out, b, e, inverse))
            allFinite.store(false, std::memory_order_relaxed);
        });
      });
    });
  *static_cast<uint8_t *>(finite->data) = allFinite.load();
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
