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
#include <algorithm>
#include <type_traits>
#include <utility>

namespace amprt::cpu {

/// Whether kernel K runs a range of indices itself (`rows(first, last)`:
/// layer norm's host loops, which overlap or share work across rows).
template <typename K, typename = void> struct HasRows : std::false_type {};
template <typename K>
struct HasRows<K, std::void_t<decltype(std::declval<const K &>().rows(
                      int64_t(0), int64_t(0)))>> : std::true_type {};

class CpuExec : public device::HostMemory {
public:
  /// `grain`: indices worth a thread (small for row kernels).
  explicit CpuExec(int64_t grain) : grain(grain) {}

  /// Kernels run compiled for AVX-512 where the CPU has it (the row
  /// kernels' lane sums and exponentials 8 or 16 lanes wide; the same
  /// bits, see parallelForWide).
  template <typename K> amprt_status launch(const K &kernel, int64_t n) {
    parallelForWide(n, grain, [&](int64_t begin, int64_t end) {
      runRange(kernel, begin, end);
    });
    return AMPRT_OK;
  }

  /// Indices [begin, end) of `kernel` on this thread.
  template <typename K>
  static void runRange(const K &kernel, int64_t begin, int64_t end) {
    if constexpr (HasRows<K>::value)
      kernel.rows(begin, end);
    else
      for (int64_t i = begin; i < end; ++i)
        kernel(i);
  }

  /// A reduction's partial sums (device::reduceInto) in blocks of outputs
  /// per chunk (PartialReduceKernel::block); the same values.
  template <typename K>
  amprt_status launchBlocks(const K &kernel, int64_t outputs, int64_t chunks) {
    int64_t blocks = (outputs + K::kBlock - 1) / K::kBlock;
    parallelForWide(blocks * chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t o0 = i / chunks * K::kBlock;
        kernel.block(o0, std::min(o0 + K::kBlock, outputs), i % chunks);
      }
    });
    return AMPRT_OK;
  }

private:
  int64_t grain;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_CPUEXEC_H
