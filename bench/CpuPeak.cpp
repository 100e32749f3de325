//===- CpuPeak.cpp - The CPU's vector arithmetic peak ---------------------===//
//
// Twelve independent accumulator chains per thread hide the instructions'
// latency (4-6 cycles on current cores, at two issues a cycle), so the loop
// runs at the issue rate; the runtime's OpenMP threads, timed together.
//
//===----------------------------------------------------------------------===//

#include "CpuPeak.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <immintrin.h>
#include <omp.h>

namespace amp::bench {
namespace {

constexpr int kChains = 12;
constexpr long kIterations = 20'000'000;
/// Runs of each loop; the fastest is the peak (a shared machine's
/// neighbours only ever slow a run down).
constexpr int kRuns = 5;

/// The sum of every lane of the accumulators (what keeps the loop's work
/// live), for vectors of either width: their bytes copied out as floats and
/// added in scalars, so no vector instruction (and no target) is needed.
template <typename Vector> float sumLanes(const Vector (&acc)[kChains]) {
  constexpr size_t kLanes = kChains * sizeof(Vector) / sizeof(float);
  float lanes[kLanes], sum = 0;
  std::memcpy(lanes, acc, sizeof(acc));
  for (float l : lanes)
    sum += l;
  return sum;
}

__attribute__((target("avx512f"))) float fmaLoopAvx512() {
  __m512 acc[kChains];
  for (__m512 &a : acc)
    a = _mm512_setzero_ps();
  __m512 x = _mm512_set1_ps(1.0f), y = _mm512_set1_ps(1e-9f);
  for (long i = 0; i < kIterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(x, y, acc[c]);
    asm volatile("" : "+v"(x)); // the chains stay in the loop
  }
  return sumLanes(acc);
}

__attribute__((target("avx2,fma"))) float fmaLoopAvx2() {
  __m256 acc[kChains];
  for (__m256 &a : acc)
    a = _mm256_setzero_ps();
  __m256 x = _mm256_set1_ps(1.0f), y = _mm256_set1_ps(1e-9f);
  for (long i = 0; i < kIterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_fmadd_ps(x, y, acc[c]);
    asm volatile("" : "+v"(x));
  }
  return sumLanes(acc);
}

__attribute__((target("avx512f,avx512bf16"))) float dotLoopBf16() {
  __m512 acc[kChains];
  for (__m512 &a : acc)
    a = _mm512_setzero_ps();
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80); // bf16 1.0
  __m512bh y = x;
  for (long i = 0; i < kIterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], x, y);
    asm volatile("" : "+v"(x));
  }
  return sumLanes(acc);
}

/// GFLOP/s of `loop` (flopsPerStep per accumulator update) on the
/// runtime's OpenMP threads (their count and binding) at once, its fastest
/// of kRuns runs.
double rate(float (*loop)(), double flopsPerStep) {
  double best = 0;
  int threads = 1;
  for (int r = 0; r < kRuns; ++r) {
    float sink = 0;
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    {
      sink += loop();
#pragma omp single
      threads = omp_get_num_threads();
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    volatile float keep = sink; // the loops' work stays live
    (void)keep;
    best = r == 0 ? seconds : std::min(best, seconds);
  }
  double flops = double(threads) * kIterations * kChains * flopsPerStep;
  return flops / best / 1e9;
}

} // namespace

int peakThreads() { return omp_get_max_threads(); }

double f32FmaPeak() {
  if (__builtin_cpu_supports("avx512f"))
    return rate(fmaLoopAvx512, 16 * 2);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return rate(fmaLoopAvx2, 8 * 2);
  return 0;
}

double bf16DotPeak() {
  if (!__builtin_cpu_supports("avx512bf16"))
    return 0;
  return rate(dotLoopBf16, 32 * 2); // 16 lanes, two products each
}

} // namespace amp::bench
