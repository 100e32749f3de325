//===- Cuda.h - The CUDA backend's entry points ----------------*- C++ -*-===//
//
// Implemented in cuda/ when the toolkit is found, and by cuda/NoCuda.cpp
// otherwise (no device: every entry says the runtime was built without
// CUDA). The C API checks arguments before it calls these.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_CUDA_H
#define AMPRT_COMMON_CUDA_H

#include "Runtime.h"

namespace amprt::cuda {

int deviceCount();
amprt_status initContext(amprt_context *ctx, int index);
void destroyContext(amprt_context *ctx);
void *deviceAlloc(amprt_context *ctx, size_t bytes);
void deviceFree(amprt_context *ctx, void *data);
amprt_status synchronize(amprt_context *ctx);
amprt_status copyToDevice(amprt_context *ctx, void *dst, const void *src,
                          size_t bytes);
amprt_status copyToHost(amprt_context *ctx, void *dst, const void *src,
                        size_t bytes);

} // namespace amprt::cuda

#endif // AMPRT_COMMON_CUDA_H
