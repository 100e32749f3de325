//===- amprt_fp8.h - FP8 (E4M3FN, E5M2) conversions for CPU and CUDA ------===//
//
// The per-element math of FP8 storage, written once for host and device
// like amprt_half.h. Encoding rounds to nearest-even and saturates: a
// finite value past the largest finite FP8 value becomes that value (as
// Transformer Engine's casts do), so a scaled tensor never turns into inf
// or NaN by rounding. NaN stays NaN; an infinite input becomes NaN in
// E4M3FN, which has no infinity, and infinity in E5M2.
//
//   E4M3FN: 1 sign, 4 exponent (bias 7), 3 mantissa bits; S.1111.111 is
//           NaN; largest finite 448; smallest normal 2^-6, subnormal 2^-9.
//   E5M2:   1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like inf
//           and NaN; largest finite 57344; smallest normal 2^-14,
//           subnormal 2^-16.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_FP8_H
#define AMPRT_COMMON_FP8_H

#include "amprt_half.h"
#include <math.h>

namespace amprt {

/// Storage types: 8 bits each, distinct so templates can dispatch on them.
struct f8e4m3fn_t {
  uint8_t bits;
};
struct f8e5m2_t {
  uint8_t bits;
};

/// A format's parameters.
template <int ExponentBits, int MantissaBits, bool HasInfinity>
struct Fp8Format {
  static constexpr int kMantissaBits = MantissaBits;
  static constexpr int kBias = (1 << (ExponentBits - 1)) - 1;
  static constexpr bool kHasInfinity = HasInfinity;
  /// The largest finite code without its sign.
  static constexpr uint8_t kMaxFinite = HasInfinity ? 0x7B : 0x7E;
  static constexpr uint8_t kNaN = 0x7F;
  static constexpr uint8_t kInfinity = 0x7C; // E5M2 only
};
using E4M3FN = Fp8Format<4, 3, false>;
using E5M2 = Fp8Format<5, 2, true>;

template <typename Format> AMPRT_HD inline uint8_t floatToFp8(float f) {
  uint32_t u = floatBits(f);
  uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  uint32_t magnitude = u & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) // NaN
    return (uint8_t)(sign | Format::kNaN);
  if (magnitude == 0x7F800000u) // inf
    return (uint8_t)(sign |
                     (Format::kHasInfinity ? Format::kInfinity : Format::kNaN));
  constexpr int m = Format::kMantissaBits;
  // Below the smallest normal the format has fixed spacing 2^(1-bias-m):
  // scale to units of it (exact: a power of two) and round to an integer.
  // The integer is the code, and 2^m, the carry into the smallest normal,
  // is that normal's code too.
  int32_t exponent = (int32_t)(magnitude >> 23) - 127;
  uint32_t code;
  if (exponent < 1 - Format::kBias) {
    float units = bitsFloat(magnitude) *
                  bitsFloat((uint32_t)(127 + Format::kBias - 1 + m) << 23);
    code = (uint32_t)rintf(units);
  } else {
    // Round the f32 mantissa to m bits, nearest-even; a carry moves into
    // the exponent as it should. Then rebias.
    int shift = 23 - m;
    uint32_t rounded =
        magnitude + ((1u << (shift - 1)) - 1) + ((magnitude >> shift) & 1u);
    code = (rounded >> shift) - ((uint32_t)(127 - Format::kBias) << m);
  }
  if (code > Format::kMaxFinite)
    code = Format::kMaxFinite; // saturate
  return (uint8_t)(sign | code);
}

template <typename Format> AMPRT_HD inline float fp8ToFloat(uint8_t code) {
  constexpr int m = Format::kMantissaBits;
  uint32_t sign = (uint32_t)(code & 0x80u) << 24;
  uint32_t magnitude = code & 0x7Fu;
  uint32_t exponent = magnitude >> m, mantissa = magnitude & ((1u << m) - 1);
  constexpr uint32_t kTopExponent = (0x7Fu >> m);
  if (Format::kHasInfinity ? exponent == kTopExponent
                           : magnitude == Format::kNaN) {
    if (Format::kHasInfinity && mantissa == 0)
      return bitsFloat(sign | 0x7F800000u);
    return bitsFloat(sign | 0x7FC00000u);
  }
  if (exponent == 0) // subnormal: mantissa units of 2^(1-bias-m), exact
    return bitsFloat(
        sign |
        floatBits((float)mantissa *
                  bitsFloat((uint32_t)(127 + 1 - Format::kBias - m) << 23)));
  return bitsFloat(sign | ((exponent + 127 - Format::kBias) << 23) |
                   (mantissa << (23 - m)));
}

/// The largest finite value of each format.
constexpr float kFp8E4M3Max = 448.0f;
constexpr float kFp8E5M2Max = 57344.0f;

/// Delayed scaling's scale (amp.fp8_scale): the largest power of two s with
/// amax * s <= fp8Max / 2^margin, within 2^-126 .. 2^126 so s and 1/s are
/// normal; 1 while amax is not a positive finite value. The compiler's
/// folder, the CPU backend and the device kernels all call this.
AMPRT_HD inline float fp8ScaleFor(float amax, float fp8Max, int margin) {
  if (!(amax > 0.0f) || amax > 3.4028234663852886e38f)
    return 1.0f;
  // Division in double: the ratio of two floats rounds to a power of two
  // only when it lies within 2^-53 of it, which moves no f32 product.
  int exponent = 0;
  frexp((double)fp8Max / (double)amax, &exponent); // ratio in [2^(e-1), 2^e)
  int power = exponent - 1 - margin;
  power = power < -126 ? -126 : power > 126 ? 126 : power;
  return ldexpf(1.0f, power);
}

/// The largest value of an amax history (0 when none is positive).
AMPRT_HD inline float historyMax(const float *history, int64_t length) {
  float m = 0.0f;
  for (int64_t i = 0; i < length; ++i)
    m = history[i] > m ? history[i] : m;
  return m;
}

/// amp.record_amax, element i of the new history: [amax, history[0 ..
/// length-2]], or history itself when amax is inf or NaN.
AMPRT_HD inline float recordedAmax(const float *history, float amax,
                                   int64_t i) {
  bool finite = amax - amax == 0.0f;
  if (!finite)
    return history[i];
  return i == 0 ? amax : history[i - 1];
}

/// FP8 tensor elements as floats, for the templates that load and store
/// through amprt_half.h's overloads.
AMPRT_HD inline float load(const f8e4m3fn_t *p, int64_t i) {
  return fp8ToFloat<E4M3FN>(p[i].bits);
}
AMPRT_HD inline float load(const f8e5m2_t *p, int64_t i) {
  return fp8ToFloat<E5M2>(p[i].bits);
}
AMPRT_HD inline void store(f8e4m3fn_t *p, int64_t i, float v) {
  p[i].bits = floatToFp8<E4M3FN>(v);
}
AMPRT_HD inline void store(f8e5m2_t *p, int64_t i, float v) {
  p[i].bits = floatToFp8<E5M2>(v);
}

} // namespace amprt

#endif // AMPRT_COMMON_FP8_H
