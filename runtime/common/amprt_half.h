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

// Both conversions are branch-free (selects only), so loops over 16-bit
// data vectorise on the CPU and do not diverge on the GPU; the rounding is
// the FPU's own round-to-nearest-even.

AMPRT_HD inline float halfToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)(h & 0x7FFFu) << 13; // exponent and mantissa
  uint32_t exp = bits & 0x0F800000u;
  bits += (127 - 15) << 23; // rebias
  // inf / NaN: all exponent bits; zero / subnormal: renormalise through an
  // exact float subtraction of 2^-14.
  uint32_t special = exp == 0x0F800000u ? (128 - 16) << 23 : 0u;
  bits += special;
  uint32_t tiny = bits + (1u << 23);
  float renormalised = bitsFloat(tiny) - bitsFloat(113u << 23);
  uint32_t result = exp == 0 ? floatBits(renormalised) : bits;
  return bitsFloat(result | ((uint32_t)(h & 0x8000u) << 16));
}

AMPRT_HD inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t abs = u & 0x7FFFFFFFu;
  // >= 2^16: inf, or a quiet NaN (values in [65520, 2^16) round to inf
  // through the normal path below).
  uint32_t overflow = abs > 0x7F800000u ? 0x7E00u : 0x7C00u;
  // Below 2^-14: adding 0.5 lines the subnormal unit up with the float's
  // last mantissa bit, so the FPU rounds to nearest-even.
  uint32_t subnormal = floatBits(bitsFloat(abs) + 0.5f) - 0x3F000000u;
  // Normal: rebias, round to nearest-even on the 13 dropped bits.
  uint32_t odd = (abs >> 13) & 1u;
  uint32_t normal = (abs + ((uint32_t)(15 - 127) << 23) + 0xFFFu + odd) >> 13;
  uint32_t half = abs >= 0x47800000u   ? overflow
                  : abs < 0x38800000u ? subnormal
                                      : normal;
  return (uint16_t)(sign | half);
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
/// types and f32, f64 for f64; i32 and i64 compute as they are).
template <typename T> struct Compute {
  using type = float;
};
template <> struct Compute<double> {
  using type = double;
};
template <> struct Compute<int32_t> {
  using type = int32_t;
};
template <> struct Compute<int64_t> {
  using type = int64_t;
};
AMPRT_HD inline int32_t load(const int32_t *p, int64_t i) { return p[i]; }
AMPRT_HD inline int64_t load(const int64_t *p, int64_t i) { return p[i]; }
AMPRT_HD inline void store(int32_t *p, int64_t i, int32_t v) { p[i] = v; }
AMPRT_HD inline void store(int64_t *p, int64_t i, int64_t v) { p[i] = v; }

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
