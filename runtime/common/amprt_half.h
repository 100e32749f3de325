//===- amprt_half.h - f16 and bf16 storage, shared by CPU and CUDA --------===//
//
// Bit-exact IEEE conversions with round-to-nearest-even, written once for
// host and device: f32 -> f16 overflows to inf, NaN stays NaN, subnormals
// are kept; bf16 keeps f32's exponent and rounds the mantissa.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_HALF_H
#define AMPRT_COMMON_HALF_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define AMPRT_HD __host__ __device__
#else
#define AMPRT_HD
#endif

namespace amprt {

/// Storage types: 16 bits each, distinct so templates can dispatch on them.
struct half_t {
  uint16_t bits;
};
struct bf16_t {
  uint16_t bits;
};

AMPRT_HD inline uint32_t floatBits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
AMPRT_HD inline float bitsFloat(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

AMPRT_HD inline float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) // inf / NaN
    return bitsFloat(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0)
      return bitsFloat(sign);
    // Subnormal: value = mant * 2^-24.
    float v = (float)mant * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

AMPRT_HD inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t abs = u & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) // inf or NaN (NaN keeps a quiet payload bit)
    return sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u);
  if (abs >= 0x477FF000u) // >= 65520: rounds to inf
    return sign | 0x7C00u;
  if (abs < 0x38800000u) { // below 2^-14: subnormal or zero
    // Scale so the subnormal unit (2^-24) is 1.0 and round to even.
    float scaled = bitsFloat(abs) * 16777216.0f;
    uint32_t units = (uint32_t)scaled;
    float rest = scaled - (float)units;
    if (rest > 0.5f || (rest == 0.5f && (units & 1u)))
      ++units;
    return sign | (uint16_t)units;
  }
  uint32_t mant = abs & 0x7FFFFFu;
  uint32_t exp = (abs >> 23) - 112;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; // may carry into the exponent, which is still correct
  return sign | (uint16_t)half;
}

AMPRT_HD inline float bf16ToFloat(uint16_t b) {
  return bitsFloat((uint32_t)b << 16);
}

AMPRT_HD inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) // NaN: keep it quiet
    return (uint16_t)((u >> 16) | 0x40u);
  uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)((u + rounding) >> 16);
}

/// Loads and stores between storage and compute types (f32 for the 16-bit
/// types and f32, f64 for f64).
template <typename T> struct Compute {
  using type = float;
};
template <> struct Compute<double> {
  using type = double;
};

AMPRT_HD inline float load(const float *p, int64_t i) { return p[i]; }
AMPRT_HD inline double load(const double *p, int64_t i) { return p[i]; }
AMPRT_HD inline float load(const half_t *p, int64_t i) {
  return halfToFloat(p[i].bits);
}
AMPRT_HD inline float load(const bf16_t *p, int64_t i) {
  return bf16ToFloat(p[i].bits);
}
AMPRT_HD inline void store(float *p, int64_t i, float v) { p[i] = v; }
AMPRT_HD inline void store(double *p, int64_t i, double v) { p[i] = v; }
AMPRT_HD inline void store(half_t *p, int64_t i, float v) {
  p[i].bits = floatToHalf(v);
}
AMPRT_HD inline void store(bf16_t *p, int64_t i, float v) {
  p[i].bits = floatToBf16(v);
}

} // namespace amprt

#endif // AMPRT_COMMON_HALF_H
