//===- AttentionOps.cpp - The CPU's fused attention -----------------------===//
//
// amprt_attention and its gradient a head at a time (AttentionHeads.h),
// heads spread over the threads. bf16 heads multiply bf16 pairs with
// AVX-512 BF16 where the CPU has it and oneDNN is allowed its kernels
// (ONEDNN_MAX_CPU_ISA caps both, so one machine tests either path); every
// other head, and f16 and f32 ones, multiplies f32 on the widest vectors
// the CPU has (AttentionTiles.h: AVX-512, AVX2 + FMA or SSE2). f64 is left
// to the C API's unfused ops.
//
//===----------------------------------------------------------------------===//

// The heads' 64-byte vectors (AttentionRows.h) pass by value only between
// inlined helpers in functions compiled for one target, amprt_math.h's
// expNonPositiveLanes among them, so GCC's note on their ABI is moot; it is
// silenced before any header declares one.
#pragma GCC diagnostic ignored "-Wpsabi"

#include "AttentionHeads.h"
#include "AttentionTiles.h"
#include "Common.h"
#include "CpuOps.h"
#include "OneDnn.h"
#include "Parallel.h"

#include <atomic>
#include <cstring>
#include <immintrin.h>
#include <new>
#include <string>
#include <type_traits>

using namespace amprt;
using namespace amprt::cpu::heads;

namespace {

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

/// The instructions a policy's heads are compiled for.
enum class Isa { Bf16Pairs, Avx512, Avx2, Baseline };

/// Runs body(begin, end) over the heads, compiled for `I`.
template <Isa I, typename Body> void overHeads(int64_t heads, Body body) {
  if constexpr (I == Isa::Bf16Pairs)
    parallelFor(heads, 1, [&](int64_t begin, int64_t end) {
      runOnBf16Pairs(body, begin, end);
    });
  else if constexpr (I == Isa::Avx512)
    parallelForWide(heads, 1, body);
  else if constexpr (I == Isa::Avx2)
    parallelFor(heads, 1, [&](int64_t begin, int64_t end) {
      runOnAvx2(body, begin, end);
    });
  else
    parallelFor(heads, 1, body);
}

/// Refuses heads whose buffers, one Head a thread that has heads, would
/// not fit in the machine's memory.
amprt_status checkHeadBuffers(amprt_context *ctx, const char *op,
                              const HeadShape &s, int64_t heads) {
  size_t capacity = 0;
  AMPRT_CHECK(amprt_memory_capacity(ctx, &capacity));
  double bytes = headBufferBound(s) *
                 double(std::min<int64_t>(heads, omp_get_max_threads()));
  if (bytes > double(capacity))
    return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                "%s: heads of %lld queries and %lld keys, %lld and %lld wide, "
                "need about %.3g GB of buffers where the machine has %.3g GB",
                op, (long long)s.tq, (long long)s.tk, (long long)s.d,
                (long long)s.e, bytes / 1e9, double(capacity) / 1e9);
  return AMPRT_OK;
}

/// overHeads after checkHeadBuffers, a thread that cannot allocate its
/// Head's buffers reported as no memory: an exception must not leave an
/// OpenMP region.
template <Isa I, typename Body>
amprt_status runHeads(amprt_context *ctx, const char *op, const HeadShape &s,
                      int64_t heads, Body body) {
  AMPRT_CHECK(checkHeadBuffers(ctx, op, s, heads));
  std::atomic<bool> noMemory{false};
  overHeads<I>(heads, [&](int64_t begin, int64_t end) {
    try {
      body(begin, end);
    } catch (const std::bad_alloc &) {
      noMemory = true;
    }
  });
  if (noMemory)
    return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                "%s: no memory for a thread's head buffers", op);
  return AMPRT_OK;
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

template <typename P, typename T, Isa I> struct PolicyFor {
  using Policy = P;
  using Storage = T;
  static constexpr Isa kIsa = I;
};

/// Calls run(PolicyFor<...>()) for f32 products on the widest f32 vectors
/// the CPU has, T the storage.
template <typename T, typename Run> void withF32Units(Run run) {
  if (cpu::hasAvx512F())
    run(PolicyFor<F32Units<Avx512Fma>, T, Isa::Avx512>());
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    run(PolicyFor<F32Units<Avx2Fma>, T, Isa::Avx2>());
  else
    run(PolicyFor<F32Units<Sse2MulAdd>, T, Isa::Baseline>());
}

/// Calls run(PolicyFor<Policy, T, Isa>()) for `dtype`; false for f64.
template <typename Run> bool withPolicy(amprt_dtype dtype, Run run) {
  switch (dtype) {
  case AMPRT_F32:
    withF32Units<float>(run);
    return true;
  case AMPRT_F16:
    withF32Units<half_t>(run);
    return true;
  case AMPRT_BF16:
    if (pairsOnThisCpu())
      run(PolicyFor<Bf16Units, bf16_t, Isa::Bf16Pairs>());
    else
      withF32Units<bf16_t>(run);
    return true;
  default:
    return false;
  }
}

} // namespace

namespace amprt::cpu {

amprt_status attention(Ctx *ctx, const device::AttentionOperands &a, Tensor *o,
                       const StridedView &ov, bool *ran) {
  const char *op = "amprt_attention";
  HeadShape s = shapeOf(a);
  amprt_status status = AMPRT_OK;
  *ran = withPolicy(a.q->dtype, [&](auto types) {
    using Types = decltype(types);
    status = runHeads<Types::kIsa>(
        ctx, op, s, headCount(a.qv), [&](int64_t begin, int64_t end) {
          forwardHeads<typename Types::Policy, typename Types::Storage>(
              a, o, ov, s, begin, end);
        });
  });
  return status;
}

amprt_status attentionGrad(Ctx *ctx, const device::AttentionOperands &a,
                           const Tensor *dO, const StridedView &dOv,
                           const device::AttentionGrads &g, bool *ran) {
  const char *op = "amprt_attention_grad";
  HeadShape s = shapeOf(a);
  amprt_status status = AMPRT_OK;
  *ran = withPolicy(a.q->dtype, [&](auto types) {
    using Types = decltype(types);
    status = runHeads<Types::kIsa>(
        ctx, op, s, headCount(a.qv), [&](int64_t begin, int64_t end) {
          backwardHeads<typename Types::Policy, typename Types::Storage>(
              a, dO, dOv, g, s, begin, end);
        });
  });
  return status;
}

} // namespace amprt::cpu
