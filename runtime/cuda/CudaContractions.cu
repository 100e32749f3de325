//===- CudaContractions.cu - GEMMs on cuBLAS, the contraction entries ----===//
//
// f16 / bf16 operands run on Tensor Cores with f32 accumulation
// (CUBLAS_COMPUTE_32F); f32 stays f32 (no TF32) and f64 runs in f64, so
// each precision means what it says. Convolutions: CudnnConvolution.cu.
//
//===----------------------------------------------------------------------===//

#include "CudaCommon.h"
#include <climits>

using namespace amprt;
using namespace amprt::cuda;

namespace {

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

} // namespace

/// c = op(a) op(b) on cuBLAS.
static amprt_status gemmProduct(amprt_context *ctx, const amprt_tensor *a,
                                const amprt_tensor *b, bool ta, bool tb,
                                amprt_tensor *c, int64_t m, int64_t n,
                                int64_t k, int64_t batch) {
  const char *op = c->shape.size() > 2 ? "amprt_batch_matmul" : "amprt_matmul";
  if (c->numel == 0)
    return AMPRT_OK;
  if (k == 0) {
    CudaExec exec(ctx);
    return device::fill(exec, c, 0.0);
  }
  int64_t rank = a->shape.size();
  int64_t lda = a->shape[rank - 1], ldb = b->shape[rank - 1];
  if (!fitsInt(m) || !fitsInt(n) || !fitsInt(k) || !fitsInt(lda) ||
      !fitsInt(ldb) || !fitsInt(batch))
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "%s: a dimension exceeds cuBLAS's 32-bit sizes", op);
  cudaDataType type;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (a->dtype) {
  case AMPRT_F32:
    type = CUDA_R_32F;
    break;
  case AMPRT_F16:
    type = CUDA_R_16F;
    break;
  case AMPRT_BF16:
    type = CUDA_R_16BF;
    break;
  default:
    type = CUDA_R_64F;
    compute = CUBLAS_COMPUTE_64F;
    break;
  }
  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  const void *alpha = compute == CUBLAS_COMPUTE_64F ? (const void *)&alpha64
                                                    : (const void *)&alpha32;
  const void *beta = compute == CUBLAS_COMPUTE_64F ? (const void *)&beta64
                                                   : (const void *)&beta32;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the
  // operands swap and each keeps its own transpose flag.
  cublasOperation_t opB = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opA = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  long long strideA = a->shape[rank - 2] * lda;
  long long strideB = b->shape[rank - 2] * ldb;
  long long strideC = m * n;
  cublasHandle_t blas = handles(ctx).blas;
  if (batch == 1)
    return check(cublasGemmEx(blas, opB, opA, (int)n, (int)m, (int)k, alpha,
                              b->data, type, (int)ldb, a->data, type, (int)lda,
                              beta, c->data, type, (int)n, compute,
                              CUBLAS_GEMM_DEFAULT),
                 op);
  return check(cublasGemmStridedBatchedEx(
                   blas, opB, opA, (int)n, (int)m, (int)k, alpha, b->data, type,
                   (int)ldb, strideB, a->data, type, (int)lda, strideA, beta,
                   c->data, type, (int)n, strideC, (int)batch, compute,
                   CUBLAS_GEMM_DEFAULT),
               op);
}

// A bias runs amprt_bias_add's kernel over the result, and an activation
// amprt_unary's (cuBLASLt's and cuDNN's fused bias epilogues add it before
// their one rounding to 16 bits, not to the rounded product as the CPU
// backend and amprt_bias_add do).
amprt_status amprt::cuda::matmul(amprt_context *ctx, const amprt_tensor *a,
                                 const amprt_tensor *b, bool ta, bool tb,
                                 const amprt_tensor *bias,
                                 const device::Activation &act, amprt_tensor *c,
                                 int64_t m, int64_t n, int64_t k,
                                 int64_t batch) {
  AMPRT_CHECK(gemmProduct(ctx, a, b, ta, tb, act.target(c), m, n, k, batch));
  CudaExec exec(ctx);
  return device::finishContraction(exec, bias, act, c, 1);
}

amprt_status amprt::cuda::conv(amprt_context *ctx, ConvKind kind,
                               const amprt_tensor *first,
                               const amprt_tensor *second,
                               const amprt_tensor *bias,
                               const device::Activation &act,
                               amprt_tensor *result, const ConvGeometry &g) {
  AMPRT_CHECK(convolution(ctx, kind, first, second, act.target(result), g));
  CudaExec exec(ctx);
  return device::finishContraction(exec, bias, act, result,
                                   g.nchw ? g.oh * g.ow : 1);
}
