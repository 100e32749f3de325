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
#include "Parallel.h"

namespace amprt::cpu {

class CpuExec : public device::HostMemory {
public:
  /// `grain`: indices worth a thread (small for row kernels).
  explicit CpuExec(int64_t grain) : grain(grain) {}

  template <typename K> amprt_status launch(const K &kernel, int64_t n) {
    parallelFor(n, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        kernel(i);
    });
    return AMPRT_OK;
  }

private:
  int64_t grain;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_CPUEXEC_H
