//===- UnaryTables.h - 16-bit unary ops as a lookup of every input -*- C++
//-*-===//
//
// A 16-bit type has 65536 values, so a unary op on it is a table: built
// once from the op's own loop over every bit pattern, then read by bit
// pattern. The ops whose formula calls libm (exp, log, tanh: scalar calls
// GCC does not vectorise without -ffast-math) or a long polynomial (erf,
// GELU) took 2-40x a 16-bit multiply of the same tensor; a lookup takes
// about one. The results are the table's entries, which are the op's
// results: the same bits as computing them.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_UNARYTABLES_H
#define AMPRT_CPU_UNARYTABLES_H

#include "../common/amprt_math.h"
#include "Convert.h"
#include "Parallel.h"

#include <array>
#include <cstdint>
#include <immintrin.h>
#include <mutex>
#include <vector>

namespace amprt::cpu {

/// Entries of a table: one per bit pattern, and one more so that a 32-bit
/// gather of the last entry stays inside it.
constexpr int64_t kUnaryTableSize = (int64_t(1) << 16) + 1;

/// Whether a 16-bit `kind` runs as a lookup: the ops whose computed loop
/// is slower than one (amprt-bench's unary table; rsqrt's division is
/// faster).
bool tabledUnary(Unary kind);

/// Tensors from this many elements up take the table: below it, building
/// one (65536 evaluations, once per op and type) costs more than the call
/// it would speed up.
constexpr int64_t kUnaryTableMinElements = int64_t(1) << 14;

/// The lookup of whole 16-lane vectors, 16 lanes a 32-bit gather at each
/// pattern's 2-byte offset keeping its low half (the table's extra entry
/// covers the last pattern's upper half); returns how many elements it
/// did. Zero-masked forms with every lane selected (Convert.h's kAllLanes).
__attribute__((target("avx512f"))) inline int64_t
lookupAvx512(const uint16_t *in, uint16_t *out, int64_t n,
             const uint16_t *table) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512i index = _mm512_maskz_cvtepu16_epi32(
        kAllLanes,
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + j)));
    __m512i pairs = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(),
                                                kAllLanes, index, table, 2);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + j),
                        _mm512_maskz_cvtepi32_epi16(kAllLanes, pairs));
  }
  return j;
}

/// The same, 8 lanes a gather.
__attribute__((target("avx2"))) inline int64_t
lookupAvx2(const uint16_t *in, uint16_t *out, int64_t n,
           const uint16_t *table) {
  const __m256i all = _mm256_set1_epi32(-1), low = _mm256_set1_epi32(0xFFFF);
  const int *base = reinterpret_cast<const int *>(table);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256i index = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + j)));
    __m256i pairs =
        _mm256_and_si256(_mm256_mask_i32gather_epi32(_mm256_setzero_si256(),
                                                     base, index, all, 2),
                         low);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + j),
                     _mm_packus_epi32(_mm256_castsi256_si128(pairs),
                                      _mm256_extracti128_si256(pairs, 1)));
  }
  return j;
}

inline bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

/// out[i] = table[in[i]] for i < n, one thread (in may be out).
void lookupSpan(const uint16_t *in, uint16_t *out, int64_t n,
                const uint16_t *table);

/// lookupSpan over the cores.
void lookupAll(const uint16_t *in, uint16_t *out, int64_t n,
               const uint16_t *table);

/// The table of `kind` on the 16-bit type T, built on first use by
/// `build(inputs, outputs)`: the op's own loop run over the 65536 bit
/// patterns in order (inputs[b] holds pattern b) into the table.
template <typename T, typename Build>
const uint16_t *unaryTable(Unary kind, Build &&build) {
  constexpr size_t kinds = 0
#define AMPRT_UNARY(name, Kind, CODE) +1
#include "../include/amprt/amprt_unary.def"
      ;
  static std::array<std::once_flag, kinds> once;
  static std::array<std::vector<uint16_t>, kinds> tables;
  size_t k = size_t(kind);
  std::call_once(once[k], [&] {
    std::vector<uint16_t> inputs(kUnaryTableSize - 1), table(kUnaryTableSize);
    for (size_t b = 0; b < inputs.size(); ++b)
      inputs[b] = uint16_t(b);
    build(reinterpret_cast<const T *>(inputs.data()),
          reinterpret_cast<T *>(table.data()));
    tables[k] = std::move(table);
  });
  return tables[k].data();
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_UNARYTABLES_H
