//===- MedianTime.h - The runtime benchmarks' timing ------------*- C++ -*-===//

#ifndef AMP_BENCH_MEDIANTIME_H
#define AMP_BENCH_MEDIANTIME_H

#include <algorithm>
#include <chrono>
#include <vector>

/// The median of `repeats` timed calls of run(), in seconds, after one
/// untimed call (caches and thread pools warmed).
template <typename F> double medianSeconds(int repeats, F run) {
  std::vector<double> t;
  run();
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    t.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

#endif // AMP_BENCH_MEDIANTIME_H
