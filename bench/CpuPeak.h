//===- CpuPeak.h - The CPU's vector arithmetic peak -------------*- C++ -*-===//
//
// What a product or convolution could reach at best on this CPU: the rate of
// independent vector multiply-adds on the cores the runtime's threads use. The
// runtime's GFLOP/s read against it say how much a kernel leaves on the
// table (a bf16 product at 95% of the dot-product peak leaves nothing a
// better library could take).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_BENCH_CPUPEAK_H
#define AMP_BENCH_CPUPEAK_H

namespace amp::bench {

/// f32 fused multiply-add peak in GFLOP/s on peakThreads() threads (AVX-512 or
/// AVX2 FMA, the widest the CPU has), or 0 without FMA.
double f32FmaPeak();
/// AVX-512 BF16 dot-product (VDPBF16PS) peak in GFLOP/s, each product and
/// each add counted, on peakThreads() threads, or 0 without AVX-512 BF16.
double bf16DotPeak();
/// The threads the peaks run on: the runtime's OpenMP threads (one per
/// logical CPU unless OMP_NUM_THREADS asks for another count).
int peakThreads();

} // namespace amp::bench

#endif // AMP_BENCH_CPUPEAK_H
