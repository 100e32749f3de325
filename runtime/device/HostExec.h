//===- HostExec.h - Device kernels in host loops ----------------*- C++ -*-===//
//
// The executor the unit tests give DeviceOps.h: every kernel index in a
// serial loop over host memory. The CUDA executor runs the same kernels in
// grid-stride loops, so a test through HostExec checks the GPU's
// per-element code without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_HOSTEXEC_H
#define AMPRT_DEVICE_HOSTEXEC_H

#include "DeviceOps.h"
#include <cstdlib>
#include <cstring>

namespace amprt::device {

/// Scratch memory and copies of an executor whose memory is the host's.
struct HostMemory {
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
  /// No fault word: indices in host memory are checked before the launch.
  IndexFault *indexFault() { return nullptr; }
  IndexFault *pendingIndexFault() { return nullptr; }
};

/// On a device context (the emulated device's) the fault word is the
/// context's, read at its next synchronising call as on a GPU.
struct HostExec : HostMemory {
  explicit HostExec(amprt_context *ctx = nullptr) : ctx(ctx) {}
  template <typename K> amprt_status launch(const K &kernel, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      kernel(i);
    return AMPRT_OK;
  }
  IndexFault *indexFault() { return handOutIndexFault(ctx); }
  IndexFault *pendingIndexFault() { return takePendingIndexFault(ctx); }

private:
  amprt_context *ctx;
};

} // namespace amprt::device

#endif // AMPRT_DEVICE_HOSTEXEC_H
