//===- AttentionTiles.h - The fused heads' products -------------*- C++ -*-===//
//
// The products of the fused attention heads (AttentionHeads.h) and the
// policies that name their units: f32 lanes on each target's own vector
// width (AVX-512, AVX2 + FMA, the baseline's SSE2) and bf16 pairs on
// AVX-512 BF16. A policy's gemm is compiled for its target where a
// flattened caller of that target inlines it (AttentionOps.cpp); the unit
// tests run each on any CPU that has its instructions.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_ATTENTIONTILES_H
#define AMPRT_CPU_ATTENTIONTILES_H

#include "../common/amprt_half.h"
#include "AttentionPacking.h"

#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <type_traits>

namespace amprt::cpu::heads {

/// The keys a causal block's rows see, for a product that runs over
/// them: row i of the block (query first + i) sees keys [0, first + i + 1).
/// Along Columns the product's columns are keys (the scores, do v^T);
/// along Sum its sum runs over them (p v, ds k). A row tile is computed
/// over the keys its last row sees, rounded up to whole 16-lane blocks or
/// units: a causal diagonal block leaves about half its tiles' blocks
/// untouched. Columns it skips are not written; the sum it skips reads
/// only zeros (the probabilities past a query's keys).
struct SeenKeys {
  enum Along { All, Columns, Sum } along = All;
  int64_t first = 0;
  /// Keys that rows [0, end) of the block see.
  int64_t before(int64_t end) const { return first + end; }
};

/// Products over rows x 16-lane blocks: Tile::run<R, C> makes an R-row,
/// C-block tile of c (+)= a b, Tile::kRows x Tile::kBlocks where the
/// columns allow (the accumulators the target's registers hold). B is read
/// a few blocks wide for every row tile, so its k x 16 kBlocks units stay
/// in L1. `seen` trims each row tile to the keys its rows see.
template <typename Tile, typename Unit>
inline void gemmTiles(const Unit *a, int64_t lda, const Unit *b, int64_t ldb,
                      float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                      bool accumulate, SeenKeys seen) {
  constexpr int R = Tile::kRows, kBlocks = Tile::kBlocks;
  int64_t n16 = roundUp(n, 16);
  for (int64_t j = 0; j < n16; j += 16 * kBlocks) {
    for (int64_t i = 0; i < m;) {
      int64_t rows = m - i >= R ? R : 1;
      int64_t cols = n16, units = k;
      if (seen.along == SeenKeys::Columns)
        cols = std::min(n16, roundUp(seen.before(i + rows), 16));
      else if (seen.along == SeenKeys::Sum)
        units = std::min(k, roundUp(seen.before(i + rows), Tile::kGroup) /
                                Tile::kGroup);
      const Unit *ai = a + i * lda, *bj = b + j;
      float *cij = c + i * ldc + j;
      bool wide = kBlocks > 1 && j + 16 * kBlocks <= cols;
      if (j >= cols)
        ; // no key of this block is seen by these rows
      else if (rows == R && wide)
        Tile::template run<R, kBlocks>(ai, lda, bj, ldb, cij, ldc, units,
                                       accumulate);
      else if (rows == R)
        Tile::template run<R, 1>(ai, lda, bj, ldb, cij, ldc, units, accumulate);
      else if (wide)
        Tile::template run<1, kBlocks>(ai, lda, bj, ldb, cij, ldc, units,
                                       accumulate);
      else
        Tile::template run<1, 1>(ai, lda, bj, ldb, cij, ldc, units, accumulate);
      i += rows;
    }
  }
}

/// The f32 arithmetic of a target: W-lane vectors (its registers' width;
/// GCC splits wider ones into spilled pieces, which made the AVX2 and
/// baseline heads 13-16x slower than AVX-512's) and acc += a b on them,
/// rounded once where the target fuses it: as a multiply and an add (the
/// runtime's -ffp-contract=off) the AVX-512 heads took 1.25x the time.
/// The products' order already differs from the unfused ops', so fusing
/// them changes no promise about bits (but an SSE2-only CPU's f32 heads
/// round differently from an FMA CPU's). kRows rows of 16 lanes fill the
/// target's registers with accumulators.
///
/// madd takes its vectors by reference and is not always_inline: inlined
/// (GCC's flatten) into a head loop of its target it is one instruction;
/// where it is not (clang, -O0) a call that passes no vector by value,
/// whose registers a caller of another target would read differently.
struct Avx512Fma {
  static constexpr int kWidth = 16, kRows = 8, kBlocks = 2;
  typedef float V __attribute__((vector_size(64)));
  __attribute__((target("avx512f"))) static void madd(V &acc, const V &a,
                                                      const V &b) {
    acc = (V)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)acc);
  }
};
struct Avx2Fma {
  static constexpr int kWidth = 8, kRows = 4, kBlocks = 1;
  typedef float V __attribute__((vector_size(32)));
  __attribute__((target("avx2,fma"))) static void madd(V &acc, const V &a,
                                                       const V &b) {
    acc = (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)acc);
  }
};
/// SSE2, without FMA: a multiply, then an add.
struct Sse2MulAdd {
  static constexpr int kWidth = 4, kRows = 2, kBlocks = 1;
  typedef float V __attribute__((vector_size(16)));
  static void madd(V &acc, const V &a, const V &b) { acc = a * b + acc; }
};

/// f32 lanes: c[r][j] += a[r][u] * b[u][j] on Arith's vectors.
template <typename Arith> struct F32Tile {
  static constexpr int kRows = Arith::kRows, kBlocks = Arith::kBlocks,
                       kGroup = 1;
  template <int R, int C>
  static inline void run(const float *a, int64_t lda, const float *b,
                         int64_t ldb, float *c, int64_t ldc, int64_t k,
                         bool accumulate) {
    using V = typename Arith::V;
    constexpr int W = Arith::kWidth, L = 16 * C / W;
    V sum[R][L];
    for (int r = 0; r < R; ++r)
      for (int l = 0; l < L; ++l)
        if (accumulate)
          memcpy(&sum[r][l], c + r * ldc + W * l, sizeof(V));
        else
          sum[r][l] = V{};
    for (int64_t u = 0; u < k; ++u) {
      V bu[L];
      for (int l = 0; l < L; ++l)
        memcpy(&bu[l], b + u * ldb + W * l, sizeof(V));
      for (int r = 0; r < R; ++r) {
        V au = V{} + a[r * lda + u];
        for (int l = 0; l < L; ++l)
          Arith::madd(sum[r][l], au, bu[l]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int l = 0; l < L; ++l)
        memcpy(c + r * ldc + W * l, &sum[r][l], sizeof(V));
  }
};

/// f32 units: any storage widened, products in f32.
template <typename Arith> struct F32Units {
  using Elem = float;
  using Unit = float;
  static constexpr int kGroup = 1;
  static float fromFloat(float x) { return x; }
  template <typename T> static float fromStorage(T x) { return load(&x, 0); }
  static void gemm(const float *a, int64_t lda, const float *b, int64_t ldb,
                   float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                   bool accumulate, SeenKeys seen = {}) {
    gemmTiles<F32Tile<Arith>>(a, lda, b, ldb, c, ldc, m, n, k, accumulate,
                              seen);
  }
};

/// Two bf16 read as one 32-bit unit (a pair along a sum).
typedef uint32_t Bf16Pair __attribute__((may_alias));

#define AMPRT_BF16_TARGET "avx512f,avx512bw,avx512vl,avx512bf16"

/// bf16 pairs: c[r][j] += a[r][u].lo * b[u][j].lo + a[r][u].hi * b[u][j].hi
/// in f32 (vdpbf16ps).
struct Bf16Tile {
  static constexpr int kRows = 8, kBlocks = 2, kGroup = 2;
  template <int R, int C>
  __attribute__((target(AMPRT_BF16_TARGET))) static inline void
  run(const Bf16Pair *a, int64_t lda, const Bf16Pair *b, int64_t ldb, float *c,
      int64_t ldc, int64_t k, bool accumulate) {
    __m512 sum[R][C];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < C; ++j)
        sum[r][j] = accumulate ? _mm512_loadu_ps(c + r * ldc + 16 * j)
                               : _mm512_setzero_ps();
    for (int64_t u = 0; u < k; ++u) {
      __m512bh bu[C];
      for (int j = 0; j < C; ++j)
        bu[j] = (__m512bh)_mm512_loadu_si512(b + u * ldb + 16 * j);
      for (int r = 0; r < R; ++r) {
        __m512bh au = (__m512bh)_mm512_set1_epi32((int)a[r * lda + u]);
        for (int j = 0; j < C; ++j)
          sum[r][j] = _mm512_dpbf16_ps(sum[r][j], au, bu[j]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < C; ++j)
        _mm512_storeu_ps(c + r * ldc + 16 * j, sum[r][j]);
  }
};

/// bf16 storage multiplied as stored, in pairs along each sum.
struct Bf16Units {
  using Elem = uint16_t;
  using Unit = Bf16Pair;
  static constexpr int kGroup = 2;
  static uint16_t fromFloat(float x) { return floatToBf16(x); }
  static uint16_t fromStorage(bf16_t x) { return x.bits; }
  __attribute__((target(AMPRT_BF16_TARGET))) static void
  gemm(const Bf16Pair *a, int64_t lda, const Bf16Pair *b, int64_t ldb, float *c,
       int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate,
       SeenKeys seen = {}) {
    gemmTiles<Bf16Tile>(a, lda, b, ldb, c, ldc, m, n, k, accumulate, seen);
  }
};

} // namespace amprt::cpu::heads

#endif // AMPRT_CPU_ATTENTIONTILES_H
