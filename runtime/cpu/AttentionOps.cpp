//===- AttentionOps.cpp - The CPU's fused attention -----------------------===//
//
// amprt_attention and its gradient a head at a time (AttentionHeads.h),
// heads spread over the threads. bf16 heads multiply bf16 pairs with
// AVX-512 BF16 where the CPU has it and oneDNN is allowed its kernels
// (ONEDNN_MAX_CPU_ISA caps both, so one machine tests either path); every
// other head, and f16 and f32 ones, multiplies f32 with 16-lane vectors.
// f64 is left to the C API's unfused ops.
//
//===----------------------------------------------------------------------===//

// The heads' 64-byte vectors (AttentionRows.h) pass by value only between
// inlined helpers in functions compiled for one target, amprt_math.h's
// expNonPositiveLanes among them, so GCC's note on their ABI is moot; it is
// silenced before any header declares one.
#pragma GCC diagnostic ignored "-Wpsabi"

#include "AttentionHeads.h"
#include "CpuOps.h"
#include "OneDnn.h"
#include "Parallel.h"

#include <cstring>
#include <immintrin.h>
#include <string>
#include <type_traits>

using namespace amprt;
using namespace amprt::cpu::heads;

namespace {

/// Products over rows x 16-lane blocks: Tile::run<R, C> makes an R-row,
/// C-block tile of c (+)= a b. B is read a few blocks wide for every row
/// tile, so its k x 32 units stay in L1.
template <typename Tile, typename Unit>
inline void gemmTiles(const Unit *a, int64_t lda, const Unit *b, int64_t ldb,
                      float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                      bool accumulate) {
  int64_t n16 = roundUp(n, 16);
  for (int64_t j = 0; j < n16; j += 32) {
    const Unit *bj = b + j;
    float *cj = c + j;
    auto rows = [&](auto r, auto blocks) {
      constexpr int R = decltype(r)::value, C = decltype(blocks)::value;
      int64_t i = 0;
      for (; i + R <= m; i += R)
        Tile::template run<R, C>(a + i * lda, lda, bj, ldb, cj + i * ldc, ldc,
                                 k, accumulate);
      for (; i < m; ++i)
        Tile::template run<1, C>(a + i * lda, lda, bj, ldb, cj + i * ldc, ldc,
                                 k, accumulate);
    };
    if (j + 32 <= n16)
      rows(std::integral_constant<int, 8>(), std::integral_constant<int, 2>());
    else
      rows(std::integral_constant<int, 8>(), std::integral_constant<int, 1>());
  }
}

/// f32 lanes: c[r][j] += a[r][u] * b[u][j].
struct F32Tile {
  template <int R, int C>
  static inline void run(const float *a, int64_t lda, const float *b,
                         int64_t ldb, float *c, int64_t ldc, int64_t k,
                         bool accumulate) {
    V16 sum[R][C];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < C; ++j)
        sum[r][j] = accumulate ? loadV(c + r * ldc + 16 * j) : V16{};
    for (int64_t u = 0; u < k; ++u) {
      V16 bu[C];
      for (int j = 0; j < C; ++j)
        bu[j] = loadV(b + u * ldb + 16 * j);
      for (int r = 0; r < R; ++r) {
        float au = a[r * lda + u];
        for (int j = 0; j < C; ++j)
          sum[r][j] += au * bu[j];
      }
    }
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < C; ++j)
        storeV(c + r * ldc + 16 * j, sum[r][j]);
  }
};

/// f32 units: any storage widened, products in f32.
struct F32Units {
  using Elem = float;
  using Unit = float;
  static constexpr int kGroup = 1;
  static float fromFloat(float x) { return x; }
  template <typename T> static float fromStorage(T x) { return load(&x, 0); }
  static void gemm(const float *a, int64_t lda, const float *b, int64_t ldb,
                   float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                   bool accumulate) {
    gemmTiles<F32Tile>(a, lda, b, ldb, c, ldc, m, n, k, accumulate);
  }
};

/// Two bf16 read as one 32-bit unit (a pair along a sum).
typedef uint32_t Bf16Pair __attribute__((may_alias));

#define AMPRT_BF16_TARGET "avx512f,avx512bw,avx512vl,avx512bf16"

/// bf16 pairs: c[r][j] += a[r][u].lo * b[u][j].lo + a[r][u].hi * b[u][j].hi
/// in f32 (vdpbf16ps).
struct Bf16Tile {
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
       int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
    gemmTiles<Bf16Tile>(a, lda, b, ldb, c, ldc, m, n, k, accumulate);
  }
};

/// Whether bf16 heads multiply bf16 pairs: the CPU has AVX-512 BF16 and
/// oneDNN, where it is built in, may use it too.
bool pairsOnThisCpu() {
  static const bool pairs = [] {
    if (!__builtin_cpu_supports("avx512bf16") ||
        !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl"))
      return false;
    std::string isa = cpu::dnnlKernelIsa();
    return isa.empty() || isa == "avx512_core_bf16" || isa == "avx512_core_amx";
  }();
  return pairs;
}

/// Head `head`'s matrix (the view's last two dimensions) of view v of t.
template <typename T>
HeadRows<T> headOf(T *data, const StridedView &v, int64_t head) {
  int64_t offset = v.offset;
  for (int d = v.rank - 3; d >= 0; --d) {
    offset += head % v.shape[d] * v.stride[d];
    head /= v.shape[d];
  }
  return {data + offset, v.stride[v.rank - 2], v.stride[v.rank - 1]};
}

template <typename T> const T *dataOf(const device::Tensor *t) {
  return static_cast<const T *>(t->data);
}
template <typename T> T *dataOf(device::Tensor *t) {
  return static_cast<T *>(t->data);
}

/// Heads [begin, end) of the forward, one Head's buffers for them all.
template <typename Policy, typename T>
void forwardHeads(const device::AttentionOperands &a, device::Tensor *o,
                  const StridedView &ov, const HeadShape &s, int64_t begin,
                  int64_t end) {
  Head<Policy> head(s, false);
  for (int64_t h = begin; h < end; ++h)
    head.forward(headOf(dataOf<T>(a.q), a.qv, h),
                 headOf(dataOf<T>(a.k), a.kv, h),
                 headOf(dataOf<T>(a.v), a.vv, h), headOf(dataOf<T>(o), ov, h));
}

template <typename Policy, typename T>
void backwardHeads(const device::AttentionOperands &a, const device::Tensor *dO,
                   const StridedView &dOv, const device::AttentionGrads &g,
                   const HeadShape &s, int64_t begin, int64_t end) {
  Head<Policy> head(s, true);
  for (int64_t h = begin; h < end; ++h)
    head.backward(
        headOf(dataOf<T>(a.q), a.qv, h), headOf(dataOf<T>(a.k), a.kv, h),
        headOf(dataOf<T>(a.v), a.vv, h), headOf(dataOf<T>(dO), dOv, h),
        headOf(dataOf<T>(g.dq), g.dqv, h), headOf(dataOf<T>(g.dk), g.dkv, h),
        headOf(dataOf<T>(g.dv), g.dvv, h));
}

// Each thread's heads compiled for the instructions that run them: the
// Head's loops inlined (flatten) into a function of that target.
template <typename Body>
__attribute__((target(AMPRT_BF16_TARGET), flatten)) void
runOnBf16Pairs(const Body &body, int64_t begin, int64_t end) {
  body(begin, end);
}
template <typename Body>
__attribute__((target("avx2,fma"), flatten)) void
runOnAvx2(const Body &body, int64_t begin, int64_t end) {
  body(begin, end);
}

/// Runs body(begin, end) over the heads, on AVX-512 BF16 for bf16 pairs,
/// else on the widest f32 vectors the CPU has.
template <bool Pairs, typename Body> void overHeads(int64_t heads, Body body) {
  if constexpr (Pairs)
    return parallelFor(heads, 1, [&](int64_t begin, int64_t end) {
      runOnBf16Pairs(body, begin, end);
    });
  if (cpu::hasAvx512F())
    return parallelForWide(heads, 1, body);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return parallelFor(heads, 1, [&](int64_t begin, int64_t end) {
      runOnAvx2(body, begin, end);
    });
  parallelFor(heads, 1, body);
}

HeadShape shapeOf(const device::AttentionOperands &a) {
  int r = a.qv.rank;
  return {a.qv.shape[r - 2], a.kv.shape[r - 2], a.qv.shape[r - 1],
          a.vv.shape[r - 1], a.causal,          a.scale};
}

int64_t headCount(const StridedView &v) {
  int64_t n = 1;
  for (int d = 0; d < v.rank - 2; ++d)
    n *= v.shape[d];
  return n;
}

template <typename P, typename T> struct PolicyFor {
  using Policy = P;
  using Storage = T;
  static constexpr bool kPairs = std::is_same_v<P, Bf16Units>;
};

/// Calls run(PolicyFor<Policy, T>()) for `dtype`; false for f64.
template <typename Run> bool withPolicy(amprt_dtype dtype, Run run) {
  switch (dtype) {
  case AMPRT_F32:
    run(PolicyFor<F32Units, float>());
    return true;
  case AMPRT_F16:
    run(PolicyFor<F32Units, half_t>());
    return true;
  case AMPRT_BF16:
    if (pairsOnThisCpu())
      run(PolicyFor<Bf16Units, bf16_t>());
    else
      run(PolicyFor<F32Units, bf16_t>());
    return true;
  default:
    return false;
  }
}

} // namespace

namespace amprt::cpu {

amprt_status attention(Ctx *ctx, const device::AttentionOperands &a, Tensor *o,
                       const StridedView &ov, bool *ran) {
  HeadShape s = shapeOf(a);
  *ran = withPolicy(a.q->dtype, [&](auto types) {
    using Types = decltype(types);
    overHeads<Types::kPairs>(headCount(a.qv), [&](int64_t begin, int64_t end) {
      forwardHeads<typename Types::Policy, typename Types::Storage>(a, o, ov, s,
                                                                    begin, end);
    });
  });
  return AMPRT_OK;
}

amprt_status attentionGrad(Ctx *ctx, const device::AttentionOperands &a,
                           const Tensor *dO, const StridedView &dOv,
                           const device::AttentionGrads &g, bool *ran) {
  HeadShape s = shapeOf(a);
  *ran = withPolicy(a.q->dtype, [&](auto types) {
    using Types = decltype(types);
    overHeads<Types::kPairs>(headCount(a.qv), [&](int64_t begin, int64_t end) {
      backwardHeads<typename Types::Policy, typename Types::Storage>(
          a, dO, dOv, g, s, begin, end);
    });
  });
  return AMPRT_OK;
}

} // namespace amprt::cpu
