//===- CudaFp8Gemm.cu - amprt_scaled_matmul as a cuBLASLt FP8 GEMM --------===//
//
// On sm_89 and later the FP8 tensors are multiplied as they are, by
// cuBLASLt's FP8 GEMM with f32 accumulation (no fast accumulation), over
// operands staged in its TN layout (device/Fp8Gemm.h), each scaled by its
// dequantizing factor on the device: c = (factor_a * factor_b) (a b^T).
// Row-major c [m, n] = a [m, k] b [n, k]^T is column-major c^T = b a^T, so
// cuBLASLt's A is our b (k x n, transposed), its B our a (k x m) and its D
// our c (n x m). A product it does not take -- an older GPU, sizes that
// are not multiples of 16, two E5M2 operands, no algorithm for the types
// -- is left to the C API's dequantizing path, with the reason in
// ctx->scaledMatmulFallback (amprt_scaled_matmul_fallback).
//
//===----------------------------------------------------------------------===//

#include "../device/Fp8Gemm.h"
#include "CudaCommon.h"

using namespace amprt;
using namespace amprt::cuda;

namespace {

const char *const kOp = "amprt_scaled_matmul";

/// cuBLASLt's workspace, as PyTorch sizes it for Hopper.
constexpr size_t kWorkspaceBytes = 32u << 20;

cudaDataType fp8Type(amprt_dtype dtype) {
  return dtype == AMPRT_F8E4M3FN ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
}

cudaDataType resultType(amprt_dtype dtype) {
  return dtype == AMPRT_F16    ? CUDA_R_16F
         : dtype == AMPRT_BF16 ? CUDA_R_16BF
                               : CUDA_R_32F;
}

/// The descriptors of one call, destroyed with it.
struct LtCall {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  LtCall() = default;
  LtCall(const LtCall &) = delete;
  LtCall &operator=(const LtCall &) = delete;
  ~LtCall() {
    for (cublasLtMatrixLayout_t layout : {a, b, d})
      if (layout)
        cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
  }
};

template <typename T>
amprt_status setDesc(LtCall &call, cublasLtMatmulDescAttributes_t attribute,
                     const T &value) {
  return check(cublasLtMatmulDescSetAttribute(call.desc, attribute, &value,
                                              sizeof(value)),
               kOp);
}

/// A column-major rows x cols matrix (leading dimension `rows`), `batch`
/// of them one after another.
amprt_status layout(cublasLtMatrixLayout_t *out, cudaDataType type,
                    int64_t rows, int64_t cols, int64_t batch) {
  AMPRT_CUDA_CHECK(cublasLtMatrixLayoutCreate(out, type, rows, cols, rows),
                   kOp);
  if (batch == 1)
    return AMPRT_OK;
  int32_t count = (int32_t)batch;
  int64_t stride = rows * cols;
  AMPRT_CUDA_CHECK(
      cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                       &count, sizeof(count)),
      kOp);
  return check(cublasLtMatrixLayoutSetAttribute(
                   *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                   sizeof(stride)),
               kOp);
}

/// D (n x m) = A^T (A: k x n, our b) B (B: k x m, our a), f32 compute.
amprt_status describe(LtCall &call, const amprt_tensor *a,
                      const amprt_tensor *b, const amprt_tensor *c, int64_t m,
                      int64_t n, int64_t k, int64_t batch) {
  AMPRT_CUDA_CHECK(
      cublasLtMatmulDescCreate(&call.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
      kOp);
  AMPRT_CHECK(setDesc(call, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T));
  AMPRT_CHECK(setDesc(call, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N));
  AMPRT_CHECK(layout(&call.a, fp8Type(b->dtype), k, n, batch));
  AMPRT_CHECK(layout(&call.b, fp8Type(a->dtype), k, m, batch));
  return layout(&call.d, resultType(c->dtype), n, m, batch);
}

/// The context's cuBLASLt workspace, made on first use; its size, or 0
/// when the device has no memory for it (the heuristic then picks among
/// the algorithms that need none).
size_t workspaceOf(amprt_context *ctx, void *&workspace) {
  Handles &h = handles(ctx);
  if (!h.ltWorkspace &&
      cudaMalloc(&h.ltWorkspace, kWorkspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    h.ltWorkspace = nullptr;
  }
  workspace = h.ltWorkspace;
  return workspace ? kWorkspaceBytes : 0;
}

/// What the heuristic said when it offered no algorithm.
std::string noAlgorithm(cublasStatus_t status, int count,
                        cublasStatus_t state) {
  std::string why = std::string("cuBLASLt's heuristic offered no FP8 "
                                "algorithm (") +
                    cublasGetStatusString(status) + ", " +
                    std::to_string(count) + " results";
  if (count > 0)
    why += std::string(", state ") + cublasGetStatusString(state);
  return why + ")";
}

/// The heuristic's first algorithm within `workspace` bytes that adds
/// split-K partial sums in f32, the compute type (as the cuBLAS handle's
/// math mode asks: INPLACE and OUTPUT_TYPE would add them in the result's
/// type); `found` false when it has none for these types and sizes.
amprt_status askHeuristic(amprt_context *ctx, LtCall &call, size_t workspace,
                          cublasLtMatmulAlgo_t &algo, bool &found) {
  cublasLtMatmulPreference_t pref = nullptr;
  AMPRT_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&pref), kOp);
  uint64_t bytes = workspace;
  uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof(bytes));
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
        sizeof(reductions));
  cublasLtMatmulHeuristicResult_t result = {};
  int count = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handles(ctx).lt, call.desc, call.a,
                                            call.b, call.d, call.d, pref, 1,
                                            &result, &count);
  cublasLtMatmulPreferenceDestroy(pref);
  found = status == CUBLAS_STATUS_SUCCESS && count > 0 &&
          result.state == CUBLAS_STATUS_SUCCESS;
  if (!found && (status == CUBLAS_STATUS_SUCCESS ||
                 status == CUBLAS_STATUS_NOT_SUPPORTED))
    ctx->scaledMatmulFallback = noAlgorithm(status, count, result.state);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    return AMPRT_OK;
  algo = result.algo;
  return check(status, kOp);
}

/// The algorithm of the last call of this problem that ran, else the
/// heuristic's (the heuristic costs more host time than a small GEMM).
amprt_status chooseAlgorithm(amprt_context *ctx, LtCall &call,
                             const Fp8GemmKey &key, cublasLtMatmulAlgo_t &algo,
                             bool &found) {
  auto &known = handles(ctx).fp8Algorithms;
  if (auto it = known.find(key); it != known.end()) {
    algo = it->second;
    found = true;
    return AMPRT_OK;
  }
  return askHeuristic(ctx, call, std::get<7>(key), algo, found);
}

} // namespace

amprt_status
amprt::cuda::scaledMatmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *scaleA, const amprt_tensor *b,
                          const amprt_tensor *scaleB, bool ta, bool tb,
                          amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                          int64_t batch, bool *ran) {
  *ran = false;
  if (ctx->ccMajor * 10 + ctx->ccMinor < 89) {
    ctx->scaledMatmulFallback =
        "FP8 GEMMs need sm_89 or later; this GPU is sm_" +
        std::to_string(ctx->ccMajor * 10 + ctx->ccMinor);
    return AMPRT_OK;
  }
  if (const char *refusal = device::fp8GemmRefusal(a, b, m, n, k, batch)) {
    ctx->scaledMatmulFallback = refusal;
    return AMPRT_OK;
  }
  CudaExec exec(ctx);
  void *workspace = nullptr;
  size_t workspaceBytes = workspaceOf(ctx, workspace);
  device::Fp8Operands<CudaExec> operands(exec);
  AMPRT_CHECK(operands.stage(a, scaleA, b, scaleB, ta, tb, m, n, k, batch));
  LtCall call;
  AMPRT_CHECK(describe(call, a, b, c, m, n, k, batch));
  // The scales are part of the problem the heuristic is asked about.
  AMPRT_CHECK(
      setDesc(call, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, operands.bFactor()));
  AMPRT_CHECK(
      setDesc(call, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, operands.aFactor()));
  Fp8GemmKey key{a->dtype, b->dtype, c->dtype, m, n, k, batch, workspaceBytes};
  cublasLtMatmulAlgo_t algo;
  bool found = false;
  AMPRT_CHECK(chooseAlgorithm(ctx, call, key, algo, found));
  if (!found)
    return AMPRT_OK;
  float one = 1, zero = 0;
  cublasStatus_t status =
      cublasLtMatmul(handles(ctx).lt, call.desc, &one, operands.b(), call.a,
                     operands.a(), call.b, &zero, c->data, call.d, c->data,
                     call.d, &algo, workspace, workspaceBytes, streamOf(ctx));
  // An algorithm the heuristic offered may still turn the call down.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) {
    ctx->scaledMatmulFallback = "cublasLtMatmul turned down the heuristic's "
                                "FP8 algorithm (CUBLAS_STATUS_NOT_SUPPORTED)";
    return AMPRT_OK;
  }
  AMPRT_CHECK(check(status, kOp));
  handles(ctx).fp8Algorithms.emplace(key, algo); // cache only what ran
  *ran = true;
  return AMPRT_OK;
}
