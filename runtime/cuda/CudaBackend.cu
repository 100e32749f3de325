//===- CudaBackend.cu - Contexts, memory and ops of the CUDA backend ------===//
//
// The platform half of the backend (devices, streams, memory, copies); the
// ops are BackendTable.h's over a CudaExec, the code the unit tests run
// through the host-emulated device.
//
//===----------------------------------------------------------------------===//

#include "../device/BackendTable.h"
#include "CudaCommon.h"

using namespace amprt;
using namespace amprt::cuda;

namespace {

/// The number of devices; 0 with the driver's reason as the thread's
/// last error (amprt_cuda_unavailable_reason passes it on).
int deviceCount() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError(); // not sticky: later calls may still succeed
    fail(AMPRT_ERROR_DEVICE, "cudaGetDeviceCount: %s (%s)",
         cudaGetErrorString(error), cudaGetErrorName(error));
    return 0;
  }
  if (count == 0)
    fail(AMPRT_ERROR_DEVICE, "cudaGetDeviceCount found no device");
  return count;
}

/// The context's fault word (device::IndexFault), zeroed.
amprt_status allocateIndexFault(amprt_context *ctx) {
  const char *op = "amprt_context_create";
  size_t bytes = sizeof(device::IndexFault);
  AMPRT_CUDA_CHECK(cudaMalloc(&ctx->indexFault, bytes), op);
  AMPRT_CUDA_CHECK(cudaMemsetAsync(ctx->indexFault, 0, bytes, streamOf(ctx)),
                   op);
  return check(cudaStreamSynchronize(streamOf(ctx)), op);
}

amprt_status initContext(amprt_context *ctx, int index) {
  int count = deviceCount();
  if (count == 0)
    return fail(AMPRT_ERROR_DEVICE, "amprt_context_create: no CUDA device (%s)",
                amprt_last_error());
  if (index < 0 || index >= count)
    return fail(AMPRT_ERROR_DEVICE,
                "amprt_context_create: CUDA device %d does not exist (%d "
                "found)",
                index, count);
  const char *op = "amprt_context_create";
  AMPRT_CUDA_CHECK(cudaSetDevice(index), op);
  cudaDeviceProp prop;
  AMPRT_CUDA_CHECK(cudaGetDeviceProperties(&prop, index), op);
  ctx->ccMajor = prop.major;
  ctx->ccMinor = prop.minor;
  cudaStream_t stream;
  AMPRT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                   op);
  ctx->stream = stream;
  auto *h = new Handles();
  ctx->cudaHandles = h;
  amprt_status status = check(cublasCreate(&h->blas), op);
  if (status == AMPRT_OK)
    status = check(cublasSetStream(h->blas, stream), op);
  if (status == AMPRT_OK)
    status = check(cublasLtCreate(&h->lt), op);
  // f32 GEMMs stay f32 (no TF32 unless asked for), and 16-bit ones sum
  // in f32 to the end: without DISALLOW_REDUCED_PRECISION_REDUCTION cuBLAS
  // may add split-K partial sums in f16/bf16 (long-k weight gradients).
  if (status == AMPRT_OK)
    status = check(
        cublasSetMathMode(
            h->blas,
            cublasMath_t(CUBLAS_DEFAULT_MATH |
                         CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
        op);
#ifdef AMPRT_HAVE_CUDNN
  if (status == AMPRT_OK)
    status = check(cudnnCreate(&h->dnn), op);
  if (status == AMPRT_OK)
    status = check(cudnnSetStream(h->dnn, stream), op);
#endif
  if (status == AMPRT_OK)
    status = allocateIndexFault(ctx);
  if (status != AMPRT_OK) {
    std::string message = amprt_last_error();
    cudaFree(ctx->indexFault);
    ctx->indexFault = nullptr;
    if (h->blas)
      cublasDestroy(h->blas);
    if (h->lt)
      cublasLtDestroy(h->lt);
    cudaFree(h->ltWorkspace);
#ifdef AMPRT_HAVE_CUDNN
    if (h->dnn)
      cudnnDestroy(h->dnn);
#endif
    delete h;
    cudaStreamDestroy(stream);
    ctx->cudaHandles = nullptr;
    ctx->stream = nullptr;
    return fail(status, "%s", message.c_str());
  }
  return AMPRT_OK;
}

void destroyContext(amprt_context *ctx) {
  cudaSetDevice(ctx->index);
  if (ctx->stream)
    cudaStreamSynchronize(streamOf(ctx));
  if (auto *h = static_cast<Handles *>(ctx->cudaHandles)) {
    cublasDestroy(h->blas);
    cublasLtDestroy(h->lt);
    cudaFree(h->ltWorkspace);
#ifdef AMPRT_HAVE_CUDNN
    cudnnDestroy(h->dnn);
#endif
    delete h;
  }
  if (ctx->stream)
    cudaStreamDestroy(streamOf(ctx));
  cudaFree(ctx->indexFault);
}

void *deviceAlloc(amprt_context *ctx, size_t bytes) {
  cudaSetDevice(ctx->index);
  void *ptr = nullptr;
  if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return ptr;
}

void deviceFree(amprt_context *ctx, void *ptr) {
  cudaSetDevice(ctx->index);
  cudaFree(ptr);
}

size_t memoryCapacity(const amprt_context *ctx) {
  size_t free = 0, total = 0;
  cudaSetDevice(ctx->index);
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return total;
}

// The synchronising calls also report an index out of range that a kernel
// met since the last of them (DeviceOps.h, takeIndexFault).
amprt_status synchronize(amprt_context *ctx) {
  CudaExec exec(ctx);
  AMPRT_CUDA_CHECK(cudaStreamSynchronize(streamOf(ctx)), "amprt_synchronize");
  return device::takeIndexFault(exec);
}

amprt_status copyToDevice(amprt_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  // Synchronous for the caller: `src` may be reused as soon as this returns.
  cudaSetDevice(ctx->index);
  AMPRT_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, streamOf(ctx)),
      "amprt_tensor_write");
  return check(cudaStreamSynchronize(streamOf(ctx)), "amprt_tensor_write");
}

amprt_status copyToHost(amprt_context *ctx, void *dst, const void *src,
                        size_t bytes) {
  CudaExec exec(ctx);
  AMPRT_CHECK(exec.toHost(dst, src, bytes));
  return device::takeIndexFault(exec);
}

amprt_status copyOnDevice(amprt_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  CudaExec exec(ctx);
  return exec.copy(dst, src, bytes);
}

} // namespace

extern "C" const Backend *amprt_cuda_backend(void) {
  static const Backend backend = device::makeBackend<CudaExec>(
      {deviceCount, initContext, destroyContext, deviceAlloc, deviceFree,
       memoryCapacity, synchronize, copyToDevice, copyToHost, copyOnDevice,
       amprt::cuda::matmul, amprt::cuda::conv, amprt::cuda::scaledMatmul});
  return &backend;
}
