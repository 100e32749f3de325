//===- Fp8Ops.cpp - FP8 quantization and delayed scaling on the CPU -------===//
//
// The CPU backend's FP8 entries run the device backend's op code
// (device/DeviceOps.h) on the CPU's cores: one definition of the rounding,
// the scale rule and the amax history for both backends, so the CPU tests
// check what the GPU runs. Quantize, dequantize and amax, which touch every
// element of every FP8 operand each step, run typed block loops over the
// same per-element math (amprt_fp8.h's loads and stores, |x|): through the
// generic launch and reduction they were 90% of an fp8 MLP step.
//
//===----------------------------------------------------------------------===//

#include "../device/DeviceOps.h"
#include "Blocks.h"
#include "CpuExec.h"
#include "CpuOps.h"
#include <cmath>
#include <limits>
#include <vector>

using namespace amprt;
using namespace amprt::cpu;

namespace {
constexpr int64_t kGrain = 1 << 14;

/// q[i] = fp8(x[i] * scale) over [begin, end), as QuantizeKernel, with the
/// scale in a register (read through a pointer it may alias the byte
/// output) and 16-bit inputs widened a block at a time.
template <typename T, typename Q>
void quantizeRange(const T *x, Q *q, float scale, int64_t begin, int64_t end) {
  float block[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    int64_t m = std::min(kBlock, end - i);
    if constexpr (kIs16Bit<T>)
      convert(x + i, block, m);
    else
      for (int64_t j = 0; j < m; ++j)
        block[j] = (float)load(x, i + j);
    for (int64_t j = 0; j < m; ++j)
      store(q, i + j, block[j] * scale);
  }
}

/// Every code of FP8 format Q decoded by amprt_fp8.h's load: a table
/// lookup instead of a decode per element.
template <typename Q> const float *decodeTable() {
  static const std::vector<float> table = [] {
    std::vector<float> t(256);
    for (int c = 0; c < 256; ++c) {
      Q code;
      code.bits = (uint8_t)c;
      t[c] = load(&code, 0);
    }
    return t;
  }();
  return table.data();
}

/// y[i] = q[i] * (1 / scale) over [begin, end), as DequantizeKernel: the
/// product in f32, rounded to y's type (16-bit outputs a block at a time).
template <typename Q, typename U>
void dequantizeRange(const Q *q, U *y, float inverse, int64_t begin,
                     int64_t end) {
  const float *table = decodeTable<Q>();
  float block[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    int64_t m = std::min(kBlock, end - i);
    for (int64_t j = 0; j < m; ++j)
      block[j] = table[q[i + j].bits] * inverse;
    if constexpr (kIs16Bit<U>)
      convert(block, y + i, m);
    else
      for (int64_t j = 0; j < m; ++j)
        store(y, i + j, (typename Compute<U>::type)block[j]);
  }
}

/// max |x| over [begin, end) in double (as AbsValue's fold), NaN if any.
template <typename T> double amaxRange(const T *x, int64_t begin, int64_t end) {
  double best = 0;
  bool nan = false;
  float block[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    int64_t m = std::min(kBlock, end - i);
    if constexpr (kIs16Bit<T>) {
      convert(x + i, block, m);
      float blockBest = 0;
      for (int64_t j = 0; j < m; ++j) {
        float a = std::fabs(block[j]);
        nan |= a != a;
        blockBest = a > blockBest ? a : blockBest;
      }
      best = std::max(best, (double)blockBest);
    } else {
      for (int64_t j = 0; j < m; ++j) {
        double a = std::fabs((double)x[i + j]);
        nan |= a != a;
        best = a > best ? a : best;
      }
    }
  }
  return nan ? std::numeric_limits<double>::quiet_NaN() : best;
}
} // namespace

amprt_status cpu::scaledCast(Ctx *, const Tensor *x, const Tensor *scale,
                             Tensor *y) {
  float s = *static_cast<const float *>(scale->data);
  bool fp8In = x->dtype == AMPRT_F8E4M3FN || x->dtype == AMPRT_F8E5M2;
  bool fp8Out = y->dtype == AMPRT_F8E4M3FN || y->dtype == AMPRT_F8E5M2;
  if (fp8In && isFloat(y->dtype)) {
    float inverse = 1.0f / s;
    return device::withFp8("dequantize", x->dtype, [&](auto tag) {
      using Q = decltype(tag);
      AMPRT_FLOAT_DISPATCH(y->dtype, U, {
        const Q *qs = static_cast<const Q *>(x->data);
        U *ys = static_cast<U *>(y->data);
        parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
          dequantizeRange(qs, ys, inverse, b, e);
        });
      });
      return ok();
    });
  }
  if (!isFloat(x->dtype) || !fp8Out) {
    CpuExec exec(kGrain);
    return device::scaledCast(exec, x, scale, y); // its errors
  }
  return device::withFp8("quantize", y->dtype, [&](auto tag) {
    using Q = decltype(tag);
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      const T *xs = static_cast<const T *>(x->data);
      Q *qs = static_cast<Q *>(y->data);
      parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
        quantizeRange(xs, qs, s, b, e);
      });
    });
    return ok();
  });
}

amprt_status cpu::amax(Ctx *, const Tensor *x, Tensor *y) {
  // Fixed chunks, combined in order: the same result on any thread count
  // (a maximum does not depend on the order anyway).
  constexpr int64_t kChunk = 1 << 15;
  int64_t chunks = (x->numel + kChunk - 1) / kChunk;
  std::vector<double> partial(std::max<int64_t>(chunks, 1), 0.0);
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    parallelFor(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c)
        partial[c] =
            amaxRange(xs, c * kChunk, std::min(x->numel, (c + 1) * kChunk));
    });
  });
  double best = 0;
  for (double p : partial) {
    if (p != p) {
      best = p;
      break;
    }
    best = std::max(best, p);
  }
  // AmaxFinish: an f32 scalar.
  *static_cast<float *>(y->data) = (float)best;
  return ok();
}

amprt_status cpu::fp8Scale(Ctx *, const Tensor *history, double fp8Max,
                           int64_t margin, Tensor *scale) {
  CpuExec exec(1);
  return device::fp8Scale(exec, history, fp8Max, margin, scale);
}

amprt_status cpu::recordAmax(Ctx *, const Tensor *history, const Tensor *amax,
                             Tensor *newHistory) {
  CpuExec exec(kGrain);
  return device::recordAmax(exec, history, amax, newHistory);
}
