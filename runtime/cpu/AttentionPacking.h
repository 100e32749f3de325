//===- AttentionPacking.h - A head's operands as the products read them -*-===//
//
// The fused attention heads (AttentionHeads.h) copy each operand into a
// thread's buffer in the form its product reads: rows of Policy elements,
// units grouped across rows, or transposed units. The copies run on whole
// vectors where they can (pairs interleaved by a loop GCC vectorises,
// 16 x 16 tiles of 32-bit units transposed in AVX-512 registers): element
// by element they took more of a bf16 head's time than its products.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_ATTENTIONPACKING_H
#define AMPRT_CPU_ATTENTIONPACKING_H

#include "Convert.h"
#include "Parallel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <type_traits>
#include <vector>

namespace amprt::cpu::heads {

inline int64_t roundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/// A head's matrix in its tensor: element (r, c) at base[r * row + c * col].
template <typename T> struct HeadRows {
  T *base;
  int64_t row, col;
};

/// A dense matrix of Elem in a thread's buffer: rows x ld (ld a multiple
/// of the unit, zero past the columns written).
template <typename Elem> struct Dense {
  std::vector<Elem> data;
  int64_t ld = 0;
  void resize(int64_t r, int64_t l) {
    ld = l;
    data.assign(r * l, Elem());
  }
  Elem *row(int64_t r) { return data.data() + r * ld; }
  const Elem *row(int64_t r) const { return data.data() + r * ld; }
};

/// n elements from one float type to another: a copy where they are the
/// same, else Convert.h's vector conversions (F16C for f16, a shift or a
/// rounding for bf16).
template <typename From, typename To>
void convertRow(const From *src, To *dst, int64_t n) {
  if constexpr (std::is_same_v<From, To>)
    std::copy(src, src + n, dst);
  else
    convert(src, dst, n);
}

/// Rows [0, rows) x [0, cols) of `from`, read as Policy elements into `to`
/// (rows and the unit-padded ld it was sized for; the padding stays 0).
template <typename Policy, typename T>
void loadRows(const HeadRows<const T> &from, int64_t rows, int64_t cols,
              Dense<typename Policy::Elem> &to) {
  using Elem = typename Policy::Elem;
  for (int64_t r = 0; r < rows; ++r) {
    const T *src = from.base + r * from.row;
    Elem *dst = to.row(r);
    if (from.col != 1)
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = Policy::fromStorage(src[c * from.col]);
    else if constexpr (std::is_same_v<Elem, float>)
      convertRow(src, dst, cols);
    else
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = Policy::fromStorage(src[c]);
  }
}

/// Two 16-bit elements read as one 32-bit unit.
typedef uint32_t PairBits __attribute__((may_alias));

/// Units grouped across rows: out[u][c] = the unit of rows uG..uG+G-1 in
/// column c (G = 1: the rows as they are; G = 2: the pair of 16-bit
/// elements, the lower row's in the low half). `in` has a multiple of G
/// rows.
template <typename Policy>
void groupRows(const typename Policy::Elem *in, int64_t rows, int64_t ld,
               int64_t cols, typename Policy::Elem *out, int64_t outLd) {
  using Elem = typename Policy::Elem;
  if constexpr (Policy::kGroup == 1) {
    for (int64_t r = 0; r < rows; ++r)
      std::copy(in + r * ld, in + r * ld + cols, out + r * outLd);
  } else {
    static_assert(Policy::kGroup == 2 && sizeof(Elem) == 2,
                  "units are one 32-bit element or two 16-bit ones");
    for (int64_t u = 0; u < rows / 2; ++u) {
      const Elem *lo = in + 2 * u * ld, *hi = lo + ld;
      auto *dst = reinterpret_cast<PairBits *>(out + 2 * u * outLd);
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = (uint32_t)lo[c] | (uint32_t)hi[c] << 16;
    }
  }
}

/// One stage of a 16 x 16 transpose: rows i and i + B (i's bit B clear)
/// trade their B-wide column chunks so the off-diagonal B x B blocks of
/// every 2B x 2B block swap; stages B = 8, 4, 2, 1 transpose the tile.
template <int B>
__attribute__((target("avx512f"))) inline void transposeStage(__m512i *row) {
  alignas(64) int32_t upper[16], lower[16];
  for (int x = 0; x < 16; ++x) {
    bool odd = x / B % 2;
    upper[x] = odd ? 16 + x - B : x;
    lower[x] = odd ? 16 + x : x + B;
  }
  __m512i up = _mm512_load_si512(upper), low = _mm512_load_si512(lower);
  for (int i = 0; i < 16; ++i)
    if (!(i & B)) {
      __m512i a = row[i], b = row[i + B];
      row[i] = _mm512_permutex2var_epi32(a, up, b);
      row[i + B] = _mm512_permutex2var_epi32(a, low, b);
    }
}

/// out[c][r] = in[r][c] for a 16 x 16 tile of 32-bit units (ld and outLd
/// in units).
__attribute__((target("avx512f"))) inline void
transposeTile(const uint32_t *in, int64_t ld, uint32_t *out, int64_t outLd) {
  __m512i row[16];
  for (int i = 0; i < 16; ++i)
    row[i] = _mm512_loadu_si512(in + i * ld);
  transposeStage<8>(row);
  transposeStage<4>(row);
  transposeStage<2>(row);
  transposeStage<1>(row);
  for (int i = 0; i < 16; ++i)
    _mm512_storeu_si512(out + i * outLd, row[i]);
}

/// out[c][r] = in[r][c] for rows [r0, r1) x columns [c0, c1).
template <typename Unit>
void transposeRange(const Unit *in, int64_t ld, Unit *out, int64_t outLd,
                    int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = r0; r < r1; ++r)
      out[c * outLd + r] = in[r * ld + c];
}

/// out[c][r] = in[r][c] for matrices of 32-bit units (ld and outLd in
/// units): whole 16 x 16 tiles in AVX-512 registers where the CPU has
/// them, the rest a unit at a time.
template <typename Unit>
void transposeUnits(const Unit *in, int64_t rows, int64_t ld, int64_t cols,
                    Unit *out, int64_t outLd) {
  static_assert(sizeof(Unit) == 4, "units are 32-bit");
  int64_t tileRows = cpu::hasAvx512F() ? rows / 16 * 16 : 0;
  int64_t tileCols = cols / 16 * 16;
  for (int64_t r0 = 0; r0 < tileRows; r0 += 16) {
    for (int64_t c0 = 0; c0 < tileCols; c0 += 16)
      transposeTile(reinterpret_cast<const uint32_t *>(in + r0 * ld + c0), ld,
                    reinterpret_cast<uint32_t *>(out + c0 * outLd + r0), outLd);
    transposeRange(in, ld, out, outLd, r0, r0 + 16, tileCols, cols);
  }
  for (int64_t r0 = tileRows; r0 < rows; r0 += 16)
    transposeRange(in, ld, out, outLd, r0, std::min(r0 + 16, rows), 0, cols);
}

} // namespace amprt::cpu::heads

#endif // AMPRT_CPU_ATTENTIONPACKING_H
