//===- CudnnConvolution.cu - The three convolutions on cuDNN -------------===//
//
// f16 / bf16 run cuDNN's pseudo-half configurations (f32 compute) on Tensor
// Cores; f32 stays f32 (FMA math, no TF32) and f64 runs in f64. Built when
// cuDNN is found (in the toolkit or a Python wheel); NoCudnn.cu otherwise.
//
//===----------------------------------------------------------------------===//

#include "CudaCommon.h"

using namespace amprt;
using namespace amprt::cuda;

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

namespace {

/// A convolution's four cuDNN descriptors.
struct ConvDescs {
  cudnnTensorDescriptor_t x;
  cudnnFilterDescriptor_t w;
  cudnnTensorDescriptor_t y;
  cudnnConvolutionDescriptor_t conv;
};

/// What a convolution reads and writes: x (forward and filter gradient;
/// padded when the padding is asymmetric), the op's second operand, its
/// first (dy for the input gradient), the result, and the padded input
/// gradient that is cropped into the result (or null).
struct ConvOperands {
  const amprt_tensor *x, *second, *first;
  amprt_tensor *result, *paddedResult;
};

/// Appends cuDNN's successful heuristic results in its order. With FMA
/// math asked for (f32, f64), results of any other math type (TF32 tensor
/// ops) are left out, so f32 stays f32.
template <typename Perf>
void keepCandidates(const Perf *perf, int returned, cudnnMathType_t asked,
                    std::vector<ConvAlgorithm> &out) {
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    if (asked == CUDNN_FMA_MATH && perf[i].mathType != CUDNN_FMA_MATH)
      continue;
    out.push_back({(int)perf[i].algo, perf[i].memory, perf[i].mathType});
  }
}

/// cuDNN's heuristic candidates for the convolution, best first.
amprt_status convCandidates(cudnnHandle_t dnn, ConvKind kind,
                            const ConvDescs &d, cudnnMathType_t asked,
                            std::vector<ConvAlgorithm> &out, const char *op) {
  constexpr int kRequested = 8;
  int returned = 0;
  switch (kind) {
  case ConvKind::Forward: {
    cudnnConvolutionFwdAlgoPerf_t perf[kRequested];
    AMPRT_CUDA_CHECK(
        cudnnGetConvolutionForwardAlgorithm_v7(dnn, d.x, d.w, d.conv, d.y,
                                               kRequested, &returned, perf),
        op);
    keepCandidates(perf, returned, asked, out);
    break;
  }
  case ConvKind::BackwardInput: {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kRequested];
    AMPRT_CUDA_CHECK(
        cudnnGetConvolutionBackwardDataAlgorithm_v7(
            dnn, d.w, d.y, d.conv, d.x, kRequested, &returned, perf),
        op);
    keepCandidates(perf, returned, asked, out);
    break;
  }
  case ConvKind::BackwardFilter: {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kRequested];
    AMPRT_CUDA_CHECK(
        cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            dnn, d.x, d.y, d.conv, d.w, kRequested, &returned, perf),
        op);
    keepCandidates(perf, returned, asked, out);
    break;
  }
  }
  return AMPRT_OK;
}

/// Runs one algorithm: its math type on the descriptor, its workspace from
/// the caching allocator (out of memory is a failure, so the caller tries
/// the next candidate), then cuDNN's call; a failed call's workspace goes
/// back to the cache.
amprt_status runConvAlgorithm(CudaExec &exec, cudnnHandle_t dnn, ConvKind kind,
                              const ConvDescs &d, const ConvAlgorithm &algo,
                              const ConvOperands &t, const char *op) {
  AMPRT_CUDA_CHECK(cudnnSetConvolutionMathType(d.conv, algo.math), op);
  void *workspace = nullptr;
  if (algo.workspace) {
    workspace = exec.alloc(algo.workspace);
    if (!workspace)
      return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                  "%s: no device memory for algorithm %d's %zu-byte workspace",
                  op, algo.algorithm, algo.workspace);
  }
  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  bool f64 = t.result->dtype == AMPRT_F64;
  const void *alpha = f64 ? (const void *)&alpha64 : (const void *)&alpha32;
  const void *beta = f64 ? (const void *)&beta64 : (const void *)&beta32;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  switch (kind) {
  case ConvKind::Forward:
    status = cudnnConvolutionForward(
        dnn, alpha, d.x, t.x->data, d.w, t.second->data, d.conv,
        (cudnnConvolutionFwdAlgo_t)algo.algorithm, workspace, algo.workspace,
        beta, d.y, t.result->data);
    break;
  case ConvKind::BackwardFilter:
    status = cudnnConvolutionBackwardFilter(
        dnn, alpha, d.x, t.x->data, d.y, t.second->data, d.conv,
        (cudnnConvolutionBwdFilterAlgo_t)algo.algorithm, workspace,
        algo.workspace, beta, d.w, t.result->data);
    break;
  case ConvKind::BackwardInput: {
    amprt_tensor *dx = t.paddedResult ? t.paddedResult : t.result;
    status = cudnnConvolutionBackwardData(
        dnn, alpha, d.w, t.second->data, d.y, t.first->data, d.conv,
        (cudnnConvolutionBwdDataAlgo_t)algo.algorithm, workspace,
        algo.workspace, beta, d.x, dx->data);
    break;
  }
  }
  if (status != CUDNN_STATUS_SUCCESS && workspace)
    exec.release(workspace);
  return check(status, op);
}

} // namespace

/// One of the three convolutions on cuDNN.
amprt_status amprt::cuda::convolution(amprt_context *ctx, ConvKind kind,
                                      const amprt_tensor *first,
                                      const amprt_tensor *second,
                                      amprt_tensor *result,
                                      const ConvGeometry &geo) {
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

  // cuDNN's heuristic candidates in order, each with its own math type;
  // the first that runs is kept for the shape (as PyTorch's try_all).
  Handles &h = handles(ctx);
  ConvKey key{(int)kind,
              (int)first->dtype,
              (int)g.nchw,
              {g.n, g.h, g.w, g.c, g.o, g.kh, g.kw, g.sh, g.sw, g.pt, g.pl,
               g.dh, g.dw}};
  ConvDescs descs{xDesc.desc, wDesc.desc, yDesc.desc, cDesc.desc};
  ConvOperands operands{x, second, first, result,
                        explicitPad ? padded.t : nullptr};
  auto found = h.convAlgorithms.find(key);
  if (found != h.convAlgorithms.end()) {
    AMPRT_CHECK(runConvAlgorithm(exec, h.dnn, kind, descs, found->second,
                                 operands, op));
  } else {
    std::vector<ConvAlgorithm> candidates;
    AMPRT_CHECK(convCandidates(h.dnn, kind, descs, math, candidates, op));
    std::string tried;
    bool ran = false;
    for (const ConvAlgorithm &candidate : candidates) {
      if (runConvAlgorithm(exec, h.dnn, kind, descs, candidate, operands, op) ==
          AMPRT_OK) {
        h.convAlgorithms.emplace(key, candidate);
        ran = true;
        break;
      }
      tried += (tried.empty() ? "" : "; ") + std::string(amprt_last_error());
    }
    if (!ran)
      return fail(AMPRT_ERROR_UNSUPPORTED,
                  "%s: no cuDNN algorithm ran for this convolution (%s; %zu "
                  "candidates%s%s)",
                  op, dtypeName(first->dtype), candidates.size(),
                  tried.empty() ? "" : ": ", tried.c_str());
  }
  return kind == ConvKind::BackwardInput && explicitPad
             ? cropActivation(exec, padded.t, geo, result)
             : AMPRT_OK;
}
