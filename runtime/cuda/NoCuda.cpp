//===- NoCuda.cpp - The CUDA entry points of a CPU-only build -------------===//
//
// Built when the CUDA toolkit is not found: there is no device, and asking
// for one is a clear error.
//
//===----------------------------------------------------------------------===//

#include "../common/Cuda.h"

namespace amprt::cuda {

static amprt_status notBuilt() {
  return fail(AMPRT_ERROR_DEVICE,
              "this amp runtime was built without the CUDA backend");
}

int deviceCount() { return 0; }
amprt_status initContext(amprt_context *, int) { return notBuilt(); }
void destroyContext(amprt_context *) {}
void *deviceAlloc(amprt_context *, size_t) { return nullptr; }
void deviceFree(amprt_context *, void *) {}
amprt_status synchronize(amprt_context *) { return notBuilt(); }
amprt_status copyToDevice(amprt_context *, void *, const void *, size_t) {
  return notBuilt();
}
amprt_status copyToHost(amprt_context *, void *, const void *, size_t) {
  return notBuilt();
}

} // namespace amprt::cuda
