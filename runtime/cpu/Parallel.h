//===- Parallel.h - Splitting CPU loops over the cores ----------*- C++ -*-===//

#ifndef AMPRT_CPU_PARALLEL_H
#define AMPRT_CPU_PARALLEL_H

#include <cstdint>
#include <omp.h>

namespace amprt {

/// Runs `body(begin, end)` over [0, n) split across the machine's cores
/// when n is large enough to pay for the threads.
template <typename Body> void parallelFor(int64_t n, int64_t grain, Body body);

/// parallelFor with `body` (and what it calls) compiled for AVX-512 where
/// the CPU has it: 8 double or 16 f32 lanes where the baseline build has 2
/// or 4. The same IEEE operations lane by lane, without contraction
/// (-ffp-contract=off), so the same bits.
template <typename Body>
void parallelForWide(int64_t n, int64_t grain, Body body);

namespace cpu {
inline bool hasAvx512F() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
} // namespace cpu

} // namespace amprt

template <typename Body>
void amprt::parallelFor(int64_t n, int64_t grain, Body body) {
  if (n <= grain || omp_get_max_threads() == 1) {
    body(int64_t(0), n);
    return;
  }
#pragma omp parallel
  {
    int64_t threads = omp_get_num_threads();
    int64_t id = omp_get_thread_num();
    int64_t chunk = (n + threads - 1) / threads;
    int64_t begin = id * chunk, end = begin + chunk < n ? begin + chunk : n;
    if (begin < end)
      body(begin, end);
  }
}

namespace amprt::detail {
/// body(begin, end) with everything it calls inlined and compiled for
/// AVX-512.
template <typename Body>
__attribute__((target("avx512f"), flatten)) void
runBodyAvx512(const Body &body, int64_t begin, int64_t end) {
  body(begin, end);
}
} // namespace amprt::detail

template <typename Body>
void amprt::parallelForWide(int64_t n, int64_t grain, Body body) {
  if (!cpu::hasAvx512F())
    return parallelFor(n, grain, body);
  parallelFor(n, grain, [&](int64_t begin, int64_t end) {
    detail::runBodyAvx512(body, begin, end);
  });
}

#endif // AMPRT_CPU_PARALLEL_H
