//===- CpuExec.h - The device backend's op code on the CPU's cores -*- C++
//-*-===//
//
// DeviceOps.h's executor for CPU contexts: each kernel's indices split
// over the cores. Ops whose kernels are rows (softmax, cross-entropy, layer
// norm) run the CUDA backend's code here rather than a second copy, typed
// and with the same arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_CPUEXEC_H
#define AMPRT_CPU_CPUEXEC_H

#include "../device/DeviceOps.h"
#include "Parallel.h"
#include <cstdlib>
#include <cstring>

namespace amprt::cpu {

class CpuExec {
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
  void *alloc(size_t bytes) { return std::malloc(bytes ? bytes : 1); }
  void release(void *p) { std::free(p); }
  amprt_status toHost(void *dst, const void *src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    return AMPRT_OK;
  }
  amprt_status copy(void *dst, const void *src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    return AMPRT_OK;
  }

private:
  int64_t grain;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_CPUEXEC_H
