//===- CudaContractions.cu - cuBLAS GEMMs and cuDNN convolutions ----------===//
//
// f16 / bf16 operands run on Tensor Cores with f32 accumulation
// (CUBLAS_COMPUTE_32F, cuDNN's pseudo-half configurations); f32 stays
// f32 (no TF32) and f64 runs in f64, so each precision means what it says.
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

namespace {

/// cuDNN descriptors that free themselves.
struct TensorDesc {
  cudnnTensorDescriptor_t desc = nullptr;
  TensorDesc() { cudnnCreateTensorDescriptor(&desc); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(desc); }
};
struct FilterDesc {
  cudnnFilterDescriptor_t desc = nullptr;
  FilterDesc() { cudnnCreateFilterDescriptor(&desc); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(desc); }
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t desc = nullptr;
  ConvDesc() { cudnnCreateConvolutionDescriptor(&desc); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(desc); }
};

/// A tensor created for the length of one op.
struct Temporary {
  amprt_tensor *t = nullptr;
  ~Temporary() { amprt_tensor_release(t); }
};

/// Pads an activation (spatial dims only) or crops one back: asymmetric
/// padding, which cuDNN's descriptors cannot express.
amprt_status padActivation(CudaExec &exec, const amprt_tensor *x,
                           const ConvGeometry &g, Temporary &out) {
  int64_t hi = g.nchw ? 2 : 1, wi = g.nchw ? 3 : 2;
  Shape shape = x->shape;
  shape[hi] += g.pt + g.pb;
  shape[wi] += g.pl + g.pr;
  amprt_status status =
      amprt_tensor_create(x->ctx, x->dtype, 4, shape.data(), &out.t);
  if (status != AMPRT_OK)
    return status;
  int64_t low[4] = {0, 0, 0, 0};
  low[hi] = g.pt;
  low[wi] = g.pl;
  return device::pad(exec, x, low, 0.0, out.t);
}

amprt_status cropActivation(CudaExec &exec, const amprt_tensor *padded,
                            const ConvGeometry &g, amprt_tensor *out) {
  int64_t hi = g.nchw ? 2 : 1, wi = g.nchw ? 3 : 2;
  int64_t offsets[4] = {0, 0, 0, 0};
  offsets[hi] = g.pt;
  offsets[wi] = g.pl;
  return device::slice(exec, padded, offsets, nullptr, out);
}

} // namespace

/// One of the three convolutions on cuDNN.
static amprt_status convolution(amprt_context *ctx, ConvKind kind,
                                const amprt_tensor *first,
                                const amprt_tensor *second,
                                amprt_tensor *result, const ConvGeometry &geo) {
  const char *op = kind == ConvKind::Forward ? "amprt_conv2d"
                   : kind == ConvKind::BackwardInput
                       ? "amprt_conv2d_backward_input"
                       : "amprt_conv2d_backward_filter";
  if (result->numel == 0)
    return AMPRT_OK;
  CudaExec exec(ctx);
  ConvGeometry g = geo;
  // Asymmetric padding: pad the activation explicitly, convolve unpadded.
  bool explicitPad = g.pt != g.pb || g.pl != g.pr;
  Temporary padded;
  const amprt_tensor *x = kind == ConvKind::BackwardInput ? nullptr : first;
  if (explicitPad) {
    if (x)
      AMPRT_CHECK(padActivation(exec, x, g, padded));
    else
      AMPRT_CHECK(padActivation(exec, result, g, padded));
    x = kind == ConvKind::BackwardInput ? nullptr : padded.t;
    g.h += g.pt + g.pb;
    g.w += g.pl + g.pr;
    g.pt = g.pb = g.pl = g.pr = 0;
  }

  cudnnDataType_t data, compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_TENSOR_OP_MATH;
  switch (first->dtype) {
  case AMPRT_F16:
    data = CUDNN_DATA_HALF;
    break;
  case AMPRT_BF16:
    data = CUDNN_DATA_BFLOAT16;
    break;
  case AMPRT_F32:
    data = CUDNN_DATA_FLOAT;
    math = CUDNN_FMA_MATH; // no TF32
    break;
  default:
    data = compute = CUDNN_DATA_DOUBLE;
    math = CUDNN_FMA_MATH;
    break;
  }
  cudnnTensorFormat_t format = g.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  TensorDesc xDesc, yDesc;
  FilterDesc wDesc;
  ConvDesc cDesc;
  AMPRT_CUDA_CHECK(cudnnSetTensor4dDescriptor(xDesc.desc, format, data,
                                              (int)g.n, (int)g.c, (int)g.h,
                                              (int)g.w),
                   op);
  AMPRT_CUDA_CHECK(cudnnSetTensor4dDescriptor(yDesc.desc, format, data,
                                              (int)g.n, (int)g.o, (int)g.oh,
                                              (int)g.ow),
                   op);
  AMPRT_CUDA_CHECK(cudnnSetFilter4dDescriptor(wDesc.desc, data, format,
                                              (int)g.o, (int)g.c, (int)g.kh,
                                              (int)g.kw),
                   op);
  AMPRT_CUDA_CHECK(cudnnSetConvolution2dDescriptor(
                       cDesc.desc, (int)g.pt, (int)g.pl, (int)g.sh, (int)g.sw,
                       (int)g.dh, (int)g.dw, CUDNN_CROSS_CORRELATION, compute),
                   op);
  AMPRT_CUDA_CHECK(cudnnSetConvolutionMathType(cDesc.desc, math), op);

  // The algorithm, chosen once per shape by cuDNN's heuristics (the first
  // that reports success), with its workspace from the caching allocator.
  Handles &h = handles(ctx);
  ConvKey key{(int)kind,
              (int)first->dtype,
              (int)g.nchw,
              {g.n, g.h, g.w, g.c, g.o, g.kh, g.kw, g.sh, g.sw, g.pt, g.pl,
               g.dh, g.dw}};
  auto found = h.convAlgorithms.find(key);
  if (found == h.convAlgorithms.end()) {
    constexpr int kRequested = 8;
    int returned = 0;
    ConvAlgorithm chosen;
    bool any = false;
    if (kind == ConvKind::Forward) {
      cudnnConvolutionFwdAlgoPerf_t perf[kRequested];
      AMPRT_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
                           h.dnn, xDesc.desc, wDesc.desc, cDesc.desc,
                           yDesc.desc, kRequested, &returned, perf),
                       op);
      for (int i = 0; i < returned && !any; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS)
          chosen = {(int)perf[i].algo, perf[i].memory}, any = true;
    } else if (kind == ConvKind::BackwardInput) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kRequested];
      AMPRT_CUDA_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                           h.dnn, wDesc.desc, yDesc.desc, cDesc.desc,
                           xDesc.desc, kRequested, &returned, perf),
                       op);
      for (int i = 0; i < returned && !any; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS)
          chosen = {(int)perf[i].algo, perf[i].memory}, any = true;
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kRequested];
      AMPRT_CUDA_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                           h.dnn, xDesc.desc, yDesc.desc, cDesc.desc,
                           wDesc.desc, kRequested, &returned, perf),
                       op);
      for (int i = 0; i < returned && !any; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS)
          chosen = {(int)perf[i].algo, perf[i].memory}, any = true;
    }
    if (!any)
      return fail(AMPRT_ERROR_UNSUPPORTED,
                  "%s: cuDNN has no algorithm for this convolution (%s)", op,
                  dtypeName(first->dtype));
    found = h.convAlgorithms.emplace(key, chosen).first;
  }
  ConvAlgorithm algo = found->second;
  void *workspace = nullptr;
  if (algo.workspace) {
    workspace = exec.alloc(algo.workspace);
    if (!workspace)
      return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                  "%s: no device memory for a %zu-byte workspace", op,
                  algo.workspace);
  }
  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  bool f64 = data == CUDNN_DATA_DOUBLE;
  const void *alpha = f64 ? (const void *)&alpha64 : (const void *)&alpha32;
  const void *beta = f64 ? (const void *)&beta64 : (const void *)&beta32;
  switch (kind) {
  case ConvKind::Forward:
    AMPRT_CUDA_CHECK(cudnnConvolutionForward(
                         h.dnn, alpha, xDesc.desc, x->data, wDesc.desc,
                         second->data, cDesc.desc,
                         (cudnnConvolutionFwdAlgo_t)algo.algorithm, workspace,
                         algo.workspace, beta, yDesc.desc, result->data),
                     op);
    return AMPRT_OK;
  case ConvKind::BackwardFilter:
    AMPRT_CUDA_CHECK(
        cudnnConvolutionBackwardFilter(
            h.dnn, alpha, xDesc.desc, x->data, yDesc.desc, second->data,
            cDesc.desc, (cudnnConvolutionBwdFilterAlgo_t)algo.algorithm,
            workspace, algo.workspace, beta, wDesc.desc, result->data),
        op);
    return AMPRT_OK;
  case ConvKind::BackwardInput: {
    amprt_tensor *dx = explicitPad ? padded.t : result;
    AMPRT_CUDA_CHECK(cudnnConvolutionBackwardData(
                         h.dnn, alpha, wDesc.desc, second->data, yDesc.desc,
                         first->data, cDesc.desc,
                         (cudnnConvolutionBwdDataAlgo_t)algo.algorithm,
                         workspace, algo.workspace, beta, xDesc.desc, dx->data),
                     op);
    return explicitPad ? cropActivation(exec, padded.t, geo, result) : AMPRT_OK;
  }
  }
  return AMPRT_OK;
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
