//===- CpuExec.h - Shared op code on the CPU's cores ------------*- C++ -*-===//
//
// DeviceOps.h's executor for CPU contexts: each kernel's indices split
// over the cores. Ops whose kernels are rows (softmax, cross-entropy, layer
// norm) run the CUDA backend's code here rather than a second copy, typed
// and with the same arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_CPUEXEC_H
#define AMPRT_CPU_CPUEXEC_H

#include "../device/HostExec.h"
#include "Convert.h"
#include "Parallel.h"
#include <algorithm>

namespace amprt::cpu {

/// kernel(i) for i in [begin, end), the kernel's body inlined here.
template <typename K>
__attribute__((flatten)) void runKernel(const K &kernel, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    kernel(i);
}
/// Blocks i in [begin, end) of a reduction's partial sums.
template <typename K>
__attribute__((flatten)) void runBlocks(const K &kernel, int64_t outputs,
                                        int64_t chunks, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    int64_t o0 = i / chunks * K::kBlock;
    kernel.block(o0, std::min(o0 + K::kBlock, outputs), i % chunks);
  }
}
template <typename K>
__attribute__((target("avx512f"), flatten)) void
runBlocksAvx512(const K &kernel, int64_t outputs, int64_t chunks, int64_t begin,
                int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    int64_t o0 = i / chunks * K::kBlock;
    kernel.block(o0, std::min(o0 + K::kBlock, outputs), i % chunks);
  }
}

/// The same compiled for AVX-512 (8 double or 16 f32 lanes where the
/// baseline has 2 or 4): the row kernels' lane sums and exponentials. The
/// same IEEE operations lane by lane without contraction, so the same bits.
template <typename K>
__attribute__((target("avx512f"), flatten)) void
runKernelAvx512(const K &kernel, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    kernel(i);
}

class CpuExec : public device::HostMemory {
public:
  /// `grain`: indices worth a thread (small for row kernels).
  explicit CpuExec(int64_t grain) : grain(grain) {}

  template <typename K> amprt_status launch(const K &kernel, int64_t n) {
    bool avx512 = hasAvx512F();
    parallelFor(n, grain, [&](int64_t begin, int64_t end) {
      if (avx512)
        runKernelAvx512(kernel, begin, end);
      else
        runKernel(kernel, begin, end);
    });
    return AMPRT_OK;
  }

  /// A reduction's partial sums (device::reduceInto) in blocks of outputs
  /// per chunk (PartialReduceKernel::block); the same values.
  template <typename K>
  amprt_status launchBlocks(const K &kernel, int64_t outputs, int64_t chunks) {
    int64_t blocks = (outputs + K::kBlock - 1) / K::kBlock;
    bool avx512 = hasAvx512F();
    parallelFor(blocks * chunks, 1, [&](int64_t begin, int64_t end) {
      if (avx512)
        runBlocksAvx512(kernel, outputs, chunks, begin, end);
      else
        runBlocks(kernel, outputs, chunks, begin, end);
    });
    return AMPRT_OK;
  }

private:
  int64_t grain;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_CPUEXEC_H
