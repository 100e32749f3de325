//===- Convert.h - Bulk f16 <-> f32 conversion with F16C --------*- C++ -*-===//
//
// The hot conversions (staging GEMM and convolution operands) use the F16C
// instructions when the CPU has them — IEEE round-to-nearest-even, inf on
// overflow, like the scalar amprt_half.h code they replace — and fall back
// to the scalar code otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_CONVERT_H
#define AMPRT_CPU_CONVERT_H

#include "../common/amprt_half.h"
#include "Parallel.h"
#include <cpuid.h>
#include <cstdint>
#include <immintrin.h>

namespace amprt::cpu {

__attribute__((target("avx,f16c"))) inline void
halfToFloatF16C(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(src + i))));
  for (; i < n; ++i)
    dst[i] = halfToFloat(src[i]);
}

__attribute__((target("avx,f16c"))) inline void
floatToHalfF16C(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(dst + i),
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i)
    dst[i] = floatToHalf(src[i]);
}

/// F16C and AVX from CPUID leaf 1, plus the OS saving YMM state (XGETBV);
/// asked directly because clang 14, the sanitizer build's compiler, does not
/// know "f16c" in __builtin_cpu_supports.
inline bool hasF16C() {
  static const bool has = [] {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
      return false;
    bool osxsave = ecx & bit_OSXSAVE, avx = ecx & bit_AVX,
         f16c = ecx & bit_F16C;
    if (!osxsave || !avx || !f16c)
      return false;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0x6) == 0x6;
  }();
  return has;
}

/// 16 lanes f16 <-> f32. GCC 12's unmasked intrinsics pass
/// `_mm512_undefined_*()` (a self-initialised local) as the merge source,
/// which draws -Wmaybe-uninitialized in every function they inline into;
/// the zero-masking forms with all 16 lanes selected are the same
/// instruction and read no undefined value.
constexpr __mmask16 kAllLanes = 0xFFFF;
__attribute__((target("avx512f"))) inline __m512 widenHalfLanes(__m256i h) {
  return _mm512_maskz_cvtph_ps(kAllLanes, h);
}
__attribute__((target("avx512f"))) inline __m256i narrowToHalfLanes(__m512 f) {
  return _mm512_maskz_cvtps_ph(kAllLanes, f, _MM_FROUND_TO_NEAREST_INT);
}

/// The same conversions 16 lanes at a time (the same instructions'
/// rounding, so the same bits).
__attribute__((target("avx512f"))) inline void
halfToFloatAvx512(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, widenHalfLanes(_mm256_loadu_si256(
                                  reinterpret_cast<const __m256i *>(src + i))));
  halfToFloatF16C(src + i, dst + i, n - i);
}

__attribute__((target("avx512f"))) inline void
floatToHalfAvx512(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                        narrowToHalfLanes(_mm512_loadu_ps(src + i)));
  floatToHalfF16C(src + i, dst + i, n - i);
}

inline void convert(const half_t *src, float *dst, int64_t n) {
  auto *bits = reinterpret_cast<const uint16_t *>(src);
  if (hasF16C() && hasAvx512F())
    return halfToFloatAvx512(bits, dst, n);
  if (hasF16C())
    return halfToFloatF16C(bits, dst, n);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = halfToFloat(bits[i]);
}

inline void convert(const float *src, half_t *dst, int64_t n) {
  auto *bits = reinterpret_cast<uint16_t *>(dst);
  if (hasF16C() && hasAvx512F())
    return floatToHalfAvx512(src, bits, n);
  if (hasF16C())
    return floatToHalfF16C(src, bits, n);
  for (int64_t i = 0; i < n; ++i)
    bits[i] = floatToHalf(src[i]);
}

/// dst = src rounded to f16 and widened back, in registers: what a cast
/// tensor followed by a widening would hold, without the 16-bit pass
/// through memory (f32 operands of f16 products, cpu/StagedGemm.h).
__attribute__((target("avx,f16c"))) inline void
roundToHalfF16C(const float *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(
        dst + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                                                 _MM_FROUND_TO_NEAREST_INT)));
  for (; i < n; ++i)
    dst[i] = halfToFloat(floatToHalf(src[i]));
}
__attribute__((target("avx512f"))) inline void
roundToHalfAvx512(const float *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(
        dst + i, widenHalfLanes(narrowToHalfLanes(_mm512_loadu_ps(src + i))));
  roundToHalfF16C(src + i, dst + i, n - i);
}
inline void roundThrough(half_t, const float *src, float *dst, int64_t n) {
  if (hasF16C() && hasAvx512F())
    return roundToHalfAvx512(src, dst, n);
  if (hasF16C())
    return roundToHalfF16C(src, dst, n);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = halfToFloat(floatToHalf(src[i]));
}

/// bf16 <-> f32: a shift one way, round-to-nearest-even the other, both
/// branch-free loops the compiler vectorises: 4 lanes in the baseline
/// build, 16 in an AVX-512 clone (the same integer operations, so the same
/// bits; the casts around an MLP's bf16 weights and gradients ran 4 lanes
/// at a time and were a sixth of its step).
__attribute__((always_inline)) inline void
bf16ToFloatLoop(const bf16_t *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bf16ToFloat(src[i].bits);
}
__attribute__((always_inline)) inline void
floatToBf16Loop(const float *src, bf16_t *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i].bits = floatToBf16(src[i]);
}
__attribute__((target("avx512f,avx512bw"))) inline void
bf16ToFloatAvx512(const bf16_t *src, float *dst, int64_t n) {
  bf16ToFloatLoop(src, dst, n);
}
__attribute__((target("avx512f,avx512bw"))) inline void
floatToBf16Avx512(const float *src, bf16_t *dst, int64_t n) {
  floatToBf16Loop(src, dst, n);
}

inline bool hasAvx512BW() {
  static const bool has = hasAvx512F() && __builtin_cpu_supports("avx512bw");
  return has;
}

inline void convert(const bf16_t *src, float *dst, int64_t n) {
  if (hasAvx512BW())
    return bf16ToFloatAvx512(src, dst, n);
  bf16ToFloatLoop(src, dst, n);
}

inline void convert(const float *src, bf16_t *dst, int64_t n) {
  if (hasAvx512BW())
    return floatToBf16Avx512(src, dst, n);
  floatToBf16Loop(src, dst, n);
}

/// dst = src rounded to bf16 and widened back (the same integer
/// operations as the two conversions, in one loop).
__attribute__((always_inline)) inline void
roundToBf16Loop(const float *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = bf16ToFloat(floatToBf16(src[i]));
}
__attribute__((target("avx512f,avx512bw"))) inline void
roundToBf16Avx512(const float *src, float *dst, int64_t n) {
  roundToBf16Loop(src, dst, n);
}
inline void roundThrough(bf16_t, const float *src, float *dst, int64_t n) {
  if (hasAvx512BW())
    return roundToBf16Avx512(src, dst, n);
  roundToBf16Loop(src, dst, n);
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_CONVERT_H
