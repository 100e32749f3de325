//===- Parallel.h - Splitting CPU loops over the cores ----------*- C++ -*-===//

#ifndef AMPRT_CPU_PARALLEL_H
#define AMPRT_CPU_PARALLEL_H

#include <cstdint>
#include <omp.h>

namespace amprt {

/// Runs `body(begin, end)` over [0, n) split across the machine's cores
/// when n is large enough to pay for the threads.
template <typename Body> void parallelFor(int64_t n, int64_t grain, Body body);

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

#endif // AMPRT_CPU_PARALLEL_H
