//===- MaxPoolLanes.h - Max-pool windows on AVX-512 lanes -------*- C++ -*-===//
//
// NHWC max pooling of f32, f16 and bf16 data, 16 channels per vector.
// 16-bit window positions are converted in registers (vcvtph2ps, or a
// shift for bf16), folded in f32 and the result converted back, so a
// 16-bit pool never writes an f32 copy of its tensors: widening the whole
// tensor first (Blocks.h widenAll) cost the CNN's f16 step more than the
// pooling itself. The comparisons and selects are those of the scalar code
// (foldMax, the first maximum), lane by lane: the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_MAXPOOLLANES_H
#define AMPRT_CPU_MAXPOOLLANES_H

#include "Convert.h"
#include <cstdint>
#include <immintrin.h>
#include <limits>

namespace amprt::cpu {

/// The instructions the kernels below use: AVX-512 F, BW and VL (masked
/// 16-bit loads for a channel tail) and F16C.
inline bool hasPoolLanes() {
  static const bool has =
      hasAvx512BW() && hasF16C() && __builtin_cpu_supports("avx512vl");
  return has;
}

#define AMPRT_POOL_LANES_TARGET                                                \
  __attribute__((target("avx512f,avx512bw,avx512vl,f16c")))

/// The lanes of channels [c, c + 16) below `channels`.
AMPRT_POOL_LANES_TARGET inline __mmask16 channelLanes(int64_t c,
                                                      int64_t channels) {
  return channels - c >= 16 ? __mmask16(0xFFFF)
                            : __mmask16((1u << (channels - c)) - 1);
}

/// 16 channels as f32 lanes: f32 data as it is, f16 data (its bits)
/// converted exactly.
AMPRT_POOL_LANES_TARGET inline __m512 loadLanes(__mmask16 lanes,
                                                const float *src) {
  return _mm512_maskz_loadu_ps(lanes, src);
}
AMPRT_POOL_LANES_TARGET inline __m512 loadLanes(__mmask16 lanes,
                                                const uint16_t *src) {
  return widenHalfLanes(_mm256_maskz_loadu_epi16(lanes, src));
}
AMPRT_POOL_LANES_TARGET inline __m512 loadLanes(__mmask16 lanes,
                                                const bf16_t *src) {
  // Zero-masked forms: the unmasked ones draw GCC 12's warning (Convert.h).
  __m512i bits =
      _mm512_maskz_cvtepu16_epi32(lanes, _mm256_maskz_loadu_epi16(lanes, src));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(lanes, bits, 16));
}

/// Lanes stored back; to f16 rounding to nearest-even, as the bulk
/// conversions do (exact for values that came from f16).
AMPRT_POOL_LANES_TARGET inline void storeLanes(__mmask16 lanes, float *dst,
                                               __m512 v) {
  _mm512_mask_storeu_ps(dst, lanes, v);
}
AMPRT_POOL_LANES_TARGET inline void storeLanes(__mmask16 lanes, uint16_t *dst,
                                               __m512 v) {
  _mm256_mask_storeu_epi16(dst, lanes, narrowToHalfLanes(v));
}
/// To bf16 as floatToBf16 rounds: nearest-even, a NaN kept quiet (exact
/// for values that came from bf16, but for NaN payloads' quiet bit).
AMPRT_POOL_LANES_TARGET inline void storeLanes(__mmask16 lanes, bf16_t *dst,
                                               __m512 v) {
  __m512i u = _mm512_castps_si512(v);
  __m512i high = _mm512_maskz_srli_epi32(lanes, u, 16);
  __m512i rounding = _mm512_add_epi32(
      _mm512_set1_epi32(0x7FFF), _mm512_and_si512(high, _mm512_set1_epi32(1)));
  __m512i rounded =
      _mm512_maskz_srli_epi32(lanes, _mm512_add_epi32(u, rounding), 16);
  __m512i quiet = _mm512_or_si512(high, _mm512_set1_epi32(0x40));
  __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  _mm512_mask_cvtepi32_storeu_epi16(
      dst, lanes, _mm512_mask_blend_epi32(nan, rounded, quiet));
}

/// out[c] = the maximum over the window's positions (image + offsets[k])
/// of channel c, as foldMax folds it from -inf: a NaN replaces the
/// accumulator, a larger value replaces it, ties keep the earlier one.
template <typename T>
AMPRT_POOL_LANES_TARGET inline void
maxPoolWindowLanes(const T *image, const int64_t *offsets, int64_t count,
                   int64_t channels, T *out) {
  for (int64_t c = 0; c < channels; c += 16) {
    __mmask16 lanes = channelLanes(c, channels);
    __m512 acc = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    for (int64_t k = 0; k < count; ++k) {
      __m512 v = loadLanes(lanes, image + offsets[k] + c);
      __mmask16 take = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) |
                       _mm512_cmp_ps_mask(v, acc, _CMP_GT_OQ);
      acc = _mm512_mask_blend_ps(take, acc, v);
    }
    storeLanes(lanes, out + c, acc);
  }
}

/// The gradient of one window of a pool whose windows tile the image (each
/// input in exactly one window): the first position equal to the output y
/// (or, for a NaN output, the first NaN) gets 0 + dy, every other position
/// 0, written outright into the image's gradient dx.
template <typename T>
AMPRT_POOL_LANES_TARGET inline void
maxPoolGradTiledWindowLanes(const T *image, const int64_t *offsets,
                            int64_t count, int64_t channels, const T *y,
                            const T *dy, T *dx) {
  __m512 zero = _mm512_setzero_ps();
  for (int64_t c = 0; c < channels; c += 16) {
    __mmask16 lanes = channelLanes(c, channels);
    __m512 target = loadLanes(lanes, y + c);
    __m512 grad = _mm512_add_ps(zero, loadLanes(lanes, dy + c));
    __mmask16 targetNaN = _mm512_cmp_ps_mask(target, target, _CMP_UNORD_Q);
    __mmask16 found = 0;
    for (int64_t k = 0; k < count; ++k) {
      __m512 v = loadLanes(lanes, image + offsets[k] + c);
      __mmask16 equal = _mm512_cmp_ps_mask(v, target, _CMP_EQ_OQ) |
                        (targetNaN & _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
      __mmask16 first = equal & ~found;
      found |= equal;
      storeLanes(lanes, dx + offsets[k] + c,
                 _mm512_mask_blend_ps(first, zero, grad));
    }
  }
}

#undef AMPRT_POOL_LANES_TARGET

} // namespace amprt::cpu

#endif // AMPRT_CPU_MAXPOOLLANES_H
