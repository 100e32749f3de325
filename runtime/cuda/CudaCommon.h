//===- CudaCommon.h - Handles, errors and the kernel executor --*- CUDA -*-===//

#ifndef AMPRT_CUDA_CUDACOMMON_H
#define AMPRT_CUDA_CUDACOMMON_H

#include "../common/DeviceBackend.h"
#include "../device/DeviceOps.h"
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#ifdef AMPRT_HAVE_CUDNN
#include <cudnn.h>
#endif
#include <map>
#include <tuple>
#include <vector>

namespace amprt::cuda {

// The table this backend fills in.
using device::Backend;
using device::Ctx;
using device::kBackendVersion;
using device::Tensor;

#ifdef AMPRT_HAVE_CUDNN
/// A cuDNN algorithm with its workspace size and the math type its
/// heuristic result names (set on the descriptor before it runs); cached
/// per convolution shape once it has run.
struct ConvAlgorithm {
  int algorithm = 0;
  size_t workspace = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
using ConvKey = std::tuple<int, int, int, std::vector<int64_t>>;

#endif

/// An FP8 GEMM problem: the operand and result types, m, n, k, batch and
/// the workspace the algorithm may use.
using Fp8GemmKey =
    std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, size_t>;

/// What a CUDA context holds besides its stream (ctx->cudaHandles).
struct Handles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr; // FP8 GEMMs (CudaFp8Gemm.cu)
  /// cuBLASLt's workspace, made by the first FP8 GEMM and kept for the
  /// context's life (as PyTorch keeps one per handle): outside the tensor
  /// pool's statistics, like the workspace cuBLAS keeps in its handle.
  void *ltWorkspace = nullptr;
  /// The heuristic's algorithm for each FP8 GEMM problem that has run.
  std::map<Fp8GemmKey, cublasLtMatmulAlgo_t> fp8Algorithms;
#ifdef AMPRT_HAVE_CUDNN
  cudnnHandle_t dnn = nullptr;
  std::map<ConvKey, ConvAlgorithm> convAlgorithms;
#endif
};

inline Handles &handles(amprt_context *ctx) {
  return *static_cast<Handles *>(ctx->cudaHandles);
}
inline cudaStream_t streamOf(amprt_context *ctx) {
  return static_cast<cudaStream_t>(ctx->stream);
}

inline amprt_status check(cudaError_t error, const char *what) {
  if (error == cudaSuccess)
    return AMPRT_OK;
  return fail(error == cudaErrorMemoryAllocation ? AMPRT_ERROR_OUT_OF_MEMORY
                                                 : AMPRT_ERROR_DEVICE,
              "%s: %s", what, cudaGetErrorString(error));
}
inline amprt_status check(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return AMPRT_OK;
  return fail(status == CUBLAS_STATUS_NOT_SUPPORTED ? AMPRT_ERROR_UNSUPPORTED
                                                    : AMPRT_ERROR_DEVICE,
              "%s: cuBLAS: %s", what, cublasGetStatusString(status));
}
#ifdef AMPRT_HAVE_CUDNN
inline amprt_status check(cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return AMPRT_OK;
  return fail(status == CUDNN_STATUS_NOT_SUPPORTED ? AMPRT_ERROR_UNSUPPORTED
                                                   : AMPRT_ERROR_DEVICE,
              "%s: cuDNN: %s", what, cudnnGetErrorString(status));
}
#endif

#define AMPRT_CUDA_CHECK(expr, what)                                           \
  do {                                                                         \
    amprt_status s_ = ::amprt::cuda::check((expr), (what));                    \
    if (s_ != AMPRT_OK)                                                        \
      return s_;                                                               \
  } while (0)

template <typename K> __global__ void gridStride(K kernel, int64_t n) {
  int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += step)
    kernel(i);
}

/// DeviceOps.h's executor: grid-stride launches on the context's stream,
/// scratch from its caching allocator (stream order makes reuse safe).
class CudaExec {
public:
  /// Makes the context's device current on this thread (a context may be
  /// used from a thread other than the one that created it).
  explicit CudaExec(amprt_context *ctx) : ctx(ctx) {
    cudaSetDevice(ctx->index);
  }
  ~CudaExec() {
    for (auto [ptr, bytes] : blocks)
      deallocate(ctx, ptr, bytes);
  }

  template <typename K> amprt_status launch(const K &kernel, int64_t n) {
    if (n <= 0)
      return AMPRT_OK;
    constexpr int kThreads = 256;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks > 65535 * 8)
      blocks = 65535 * 8;
    gridStride<<<(unsigned)blocks, kThreads, 0, streamOf(ctx)>>>(kernel, n);
    return check(cudaGetLastError(), "kernel launch");
  }
  void *alloc(size_t bytes) {
    size_t blockBytes = 0;
    void *ptr = allocate(ctx, bytes, &blockBytes);
    if (ptr)
      blocks.emplace_back(ptr, blockBytes);
    return ptr;
  }
  void release(void *ptr) {
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].first == ptr) {
        deallocate(ctx, ptr, blocks[i].second);
        blocks.erase(blocks.begin() + i);
        return;
      }
  }
  amprt_status toHost(void *dst, const void *src, size_t bytes) {
    AMPRT_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, streamOf(ctx)),
        "copy to host");
    return check(cudaStreamSynchronize(streamOf(ctx)), "copy to host");
  }
  amprt_status copy(void *dst, const void *src, size_t bytes) {
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                 streamOf(ctx)),
                 "device copy");
  }
  device::IndexFault *indexFault() { return device::handOutIndexFault(ctx); }
  device::IndexFault *pendingIndexFault() {
    return device::takePendingIndexFault(ctx);
  }

private:
  amprt_context *ctx;
  std::vector<std::pair<void *, size_t>> blocks;
};

// The contractions (CudaContractions.cu), with the table's parameters.
amprt_status matmul(amprt_context *ctx, const amprt_tensor *a,
                    const amprt_tensor *b, bool ta, bool tb,
                    const amprt_tensor *bias, const device::Activation &act,
                    amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                    int64_t batch);
amprt_status conv(amprt_context *ctx, ConvKind kind, const amprt_tensor *first,
                  const amprt_tensor *second, const amprt_tensor *bias,
                  const device::Activation &act, amprt_tensor *result,
                  const ConvGeometry &g);
/// The table's scaledMatmul (CudaFp8Gemm.cu): cuBLASLt's FP8 GEMM on
/// sm_89 and later, *ran false for a product it does not take.
amprt_status scaledMatmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *scaleA, const amprt_tensor *b,
                          const amprt_tensor *scaleB, bool ta, bool tb,
                          amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                          int64_t batch, bool *ran);
/// One of the three convolutions, without bias or activation: on cuDNN
/// (CudnnConvolution.cu), or an error naming it where the backend was
/// built without it (NoCudnn.cu).
amprt_status convolution(amprt_context *ctx, ConvKind kind,
                         const amprt_tensor *first, const amprt_tensor *second,
                         amprt_tensor *result, const ConvGeometry &geo);

} // namespace amprt::cuda

#endif // AMPRT_CUDA_CUDACOMMON_H
