//===- GpuBench.cpp - GPU GEMM/conv throughput vs raw cuBLAS(Lt) and peak -===//
//
// The GPU kit's GEMM/convolution table. On a CUDA device, for each --sizes
// N (M = N = K) and precision it times amprt's product beside the same
// product straight through cublasGemmEx and cublasLtMatmul (heuristic
// algorithm, 32 MiB workspace) on same-sized buffers:
//   f32        f32 on CUDA cores (CUBLAS_COMPUTE_32F);
//   tf32       f32 data on Tensor Cores (CUBLAS_COMPUTE_32F_FAST_TF32) on
//              the raw side; amprt_matmul keeps f32 as f32, so its cell is
//              the f32 product, marked so;
//   f16, bf16  Tensor Cores accumulating in f32;
//   fp8        e4m3 operands with per-tensor f32 scales and a bf16 result:
//              amprt_scaled_matmul (cuBLASLt's FP8 GEMM from sm_89), and
//              one cuBLASLt FP8 matmul (TN, as FP8 requires; cublasGemmEx
//              has no FP8).
// Columns: TFLOP/s of each, amprt's over the faster raw one, and amprt's as
// a fraction of the device's dense peak for the precision. Then ResNet-50
// convolutions through amprt_conv2d (no raw reference: cuDNN is not linked
// here). A time is the median of --repeats samples after a warm-up, a
// sample being enough back-to-back calls to last ~10 ms, so launch and
// synchronisation latency do not count against small sizes. A failing cell
// says "error: ..." and the table goes on. Without a usable device it
// prints one row that says why, and --json writes {"skipped": why}.
//
// Usage: amprt-gpu-bench [--sizes=N,...] [--repeats=R] [--json=FILE]
//
//===----------------------------------------------------------------------===//

#include "BenchArgs.h"
#include "amprt/amprt.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Errors and resources
//===----------------------------------------------------------------------===//

/// What failed, empty on success: the text of a cell's "error: ...".
using Error = std::string;

#define BENCH_TRY(expr)                                                        \
  do {                                                                         \
    Error benchError = (expr);                                                 \
    if (!benchError.empty())                                                   \
      return benchError;                                                       \
  } while (false)

Error check(cudaError_t e, const char *what) {
  return e == cudaSuccess ? Error()
                          : std::string(what) + ": " + cudaGetErrorString(e);
}

Error check(cublasStatus_t s, const char *what) {
  return s == CUBLAS_STATUS_SUCCESS
             ? Error()
             : std::string(what) + ": " + cublasGetStatusString(s);
}

Error check(amprt_status s, const char *what) {
  if (s == AMPRT_OK)
    return Error();
  std::string message = amprt_last_error(); // names the entry already
  return message.empty() ? std::string(what) + ": " + amprt_status_string(s)
                         : message;
}

/// cudaMalloc'd memory freed on scope exit, so failing rows leak nothing.
struct DeviceBuffer {
  void *ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr)
      cudaFree(ptr);
  }
  /// Every byte `byte`: 0x38 makes small normal non-zero values in every
  /// float type here (f32 ~4.4e-5, f16 ~0.53, bf16 ~4.4e-5, e4m3 1.0), so
  /// no zero-skipping shortcut and no denormal slow path flatters a time.
  Error allocate(size_t bytes, int byte = 0x38) {
    BENCH_TRY(check(cudaMalloc(&ptr, bytes), "cudaMalloc"));
    return check(cudaMemset(ptr, byte, bytes), "cudaMemset");
  }
};

struct ReleaseTensor {
  void operator()(amprt_tensor *t) const { amprt_tensor_release(t); }
};
using AmpTensor = std::unique_ptr<amprt_tensor, ReleaseTensor>;

/// A tensor of `shape` filled with `value`, or with the bytes 0x38 (1.0)
/// for FP8, which amprt only quantizes into and so is written from the host.
Error newTensor(amprt_context *ctx, amprt_dtype dtype,
                std::vector<int64_t> shape, double value, AmpTensor &out) {
  int64_t none = 0; // a rank-0 shape still needs a pointer
  amprt_tensor *t = nullptr;
  Error e = check(amprt_tensor_create(ctx, dtype, (int)shape.size(),
                                      shape.empty() ? &none : shape.data(), &t),
                  "amprt_tensor_create");
  out.reset(t);
  BENCH_TRY(e);
  if (dtype != AMPRT_F8E4M3FN)
    return check(amprt_tensor_fill(out.get(), value), "amprt_tensor_fill");
  std::vector<unsigned char> bytes(amprt_tensor_numel(out.get()), 0x38);
  return check(amprt_tensor_write(out.get(), bytes.data(), bytes.size()),
               "amprt_tensor_write");
}

//===----------------------------------------------------------------------===//
// Precisions and the device's peak
//===----------------------------------------------------------------------===//

enum class Precision { F32, TF32, F16, BF16, FP8 };
constexpr Precision kGemmPrecisions[] = {Precision::F32, Precision::TF32,
                                         Precision::F16, Precision::BF16,
                                         Precision::FP8};

const char *name(Precision p) {
  switch (p) {
  case Precision::F32:
    return "f32";
  case Precision::TF32:
    return "tf32";
  case Precision::F16:
    return "f16";
  case Precision::BF16:
    return "bf16";
  case Precision::FP8:
    return "fp8";
  }
  return "?";
}

/// Dense (not 2:4 sparse) peak FLOP per SM per clock, an FMA counting 2;
/// 0 where the architecture has no such math. Each is NVIDIA's datasheet
/// TFLOP/s over SMs x the clock it assumes:
///   T4: f32 8.1, f16 65 at 40 SMs x 1590 MHz;
///   A100 SXM: f32 19.5, tf32 156, f16/bf16 312 at 108 x 1410 MHz;
///   GA10x, A6000: f32 38.7, tf32 77.4, f16 154.8 at 84 x 1800 MHz;
///   Ada, L40S: f32 91.6, tf32 183, f16 362, fp8 733 at 142 x 2520 MHz;
///   H100/H200 SXM: tf32 494.7, f16/bf16 989.4, fp8 1978.9 at
///   132 x 1830 MHz, and f32 67 at the 1980 MHz maximum boost (128 FP32
///   cores x 2).
/// GeForce GA10x/Ada parts run f32-accumulating Tensor Core math at half
/// the professional parts' rates above.
struct PeakPerSm {
  int major, minor;
  const char *arch;
  double f32, tf32, f16, fp8;
};
constexpr PeakPerSm kPeaks[] = {
    {7, 5, "Turing", 128, 0, 1024, 0},
    {8, 0, "Ampere GA100", 128, 1024, 2048, 0},
    {8, 6, "Ampere GA10x", 256, 512, 1024, 0},
    {8, 9, "Ada", 256, 512, 1024, 2048},
    {9, 0, "Hopper", 256, 2048, 4096, 8192},
};

struct Device {
  std::string name;
  int major = 0, minor = 0, sms = 0;
  double clockMHz = 0;
  const PeakPerSm *peak = nullptr;

  /// Dense peak TFLOP/s of `p` at clockMHz; 0 if unknown or absent.
  double peakTflops(Precision p) const {
    if (!peak)
      return 0;
    double perClock = p == Precision::F32    ? peak->f32
                      : p == Precision::TF32 ? peak->tf32
                      : p == Precision::FP8  ? peak->fp8
                                             : peak->f16;
    return perClock * sms * clockMHz * 1e6 / 1e12;
  }
};

Error queryDevice(Device &d) {
  cudaDeviceProp prop;
  BENCH_TRY(check(cudaGetDeviceProperties(&prop, 0), "not a CUDA device"));
  d.name = prop.name;
  d.major = prop.major;
  d.minor = prop.minor;
  d.sms = prop.multiProcessorCount;
  // CUDA 13 dropped cudaDeviceProp::clockRate; the attribute remains.
  int khz = 0;
  BENCH_TRY(check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0),
                  "cudaDeviceGetAttribute(cudaDevAttrClockRate)"));
  d.clockMHz = khz / 1e3;
  for (const PeakPerSm &p : kPeaks)
    if (p.major == d.major && p.minor == d.minor)
      d.peak = &p;
  return Error();
}

/// One stderr line: the device, and the clock and figures the peak column
/// divides by, since the reported clock (the maximum boost) is not always
/// the one NVIDIA's datasheet assumes (1830 MHz for Hopper Tensor Cores).
void describeDevice(const Device &d) {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  fprintf(stderr,
          "amprt-gpu-bench: %s, sm_%d%d (%s), %d SMs, CUDA runtime %d, "
          "cuBLASLt %zu\n",
          d.name.c_str(), d.major, d.minor, d.peak ? d.peak->arch : "unknown",
          d.sms, runtime, cublasLtGetVersion());
  if (!d.peak) {
    fprintf(stderr, "amprt-gpu-bench: no peak figures for sm_%d%d\n", d.major,
            d.minor);
    return;
  }
  fprintf(stderr,
          "amprt-gpu-bench: peak at %.0f MHz (cudaDevAttrClockRate): f32 %.1f, "
          "tf32 %.1f, f16/bf16 %.1f, fp8 %.1f dense TFLOP/s\n",
          d.clockMHz, d.peakTflops(Precision::F32),
          d.peakTflops(Precision::TF32), d.peakTflops(Precision::F16),
          d.peakTflops(Precision::FP8));
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Seconds per call of `run` (which enqueues one op), `sync` waiting for
/// it. A warm-up call first (cuBLAS/cuDNN choose and load kernels); a timed
/// call then sizes the samples at ~10 ms.
template <typename Run, typename Sync>
Error timePerCall(int repeats, Run run, Sync sync, double &seconds) {
  BENCH_TRY(run());
  BENCH_TRY(sync());
  Clock::time_point t0 = Clock::now();
  BENCH_TRY(run());
  BENCH_TRY(sync());
  int calls = (int)std::clamp(0.01 / std::max(since(t0), 1e-7), 1.0, 1000.0);
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    t0 = Clock::now();
    for (int j = 0; j < calls; ++j)
      BENCH_TRY(run());
    BENCH_TRY(sync());
    samples.push_back(since(t0) / calls);
  }
  std::sort(samples.begin(), samples.end());
  seconds = samples[samples.size() / 2];
  return Error();
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

/// One line of the table and one object of the JSON.
struct Row {
  std::string op, shape, precision;
  std::vector<std::pair<const char *, int64_t>> dims; // the JSON's shape
  double amp = NAN, cublas = NAN, cublasLt = NAN;     // TFLOP/s
  double peak = 0;     // dense peak TFLOP/s of the precision; 0: unknown
  std::string ampNote; // how amprt ran it where not as the row says
  Error ampError, cublasError, cublasLtError;

  double bestRaw() const {
    return std::isnan(cublas)     ? cublasLt
           : std::isnan(cublasLt) ? cublas
                                  : std::max(cublas, cublasLt);
  }
  double ampOverRaw() const { return amp / bestRaw(); }
  double fraction() const { return peak > 0 ? amp / peak : NAN; }
  Error error() const {
    std::string all;
    for (auto [who, e] : {std::pair{"amp", &ampError},
                          {"cublas", &cublasError},
                          {"cublaslt", &cublasLtError}})
      if (!e->empty())
        all += (all.empty() ? "" : "; ") + std::string(who) + ": " + *e;
    return all;
  }
};

/// cuBLAS, cuBLASLt and amprt handles shared by the rows.
struct Gpu {
  amprt_context *ctx = nullptr;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  DeviceBuffer workspace;
  static constexpr size_t kWorkspaceBytes = 32 << 20;
  Device device;
  int repeats = 10;

  ~Gpu() {
    if (lt)
      cublasLtDestroy(lt);
    if (blas)
      cublasDestroy(blas);
    if (ctx)
      amprt_context_destroy(ctx);
  }
  Error ampSync() { return check(amprt_synchronize(ctx), "amprt_synchronize"); }
  Error rawSync() {
    return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
};

/// Why there is no GPU row to measure, or empty with `gpu` ready.
Error openGpu(Gpu &gpu) {
  if (amprt_cuda_device_count() == 0)
    return std::string("no CUDA device: ") + amprt_cuda_unavailable_reason();
  BENCH_TRY(check(amprt_context_create(AMPRT_DEVICE_CUDA, 0, &gpu.ctx),
                  "amprt_context_create"));
  BENCH_TRY(queryDevice(gpu.device)); // fails on a host-emulated device
  BENCH_TRY(check(cublasCreate(&gpu.blas), "cublasCreate"));
  // amprt's own handle forbids split-K partial sums in f16/bf16; the raw
  // reference does the same, so the ratio is the API's cost alone.
  BENCH_TRY(
      check(cublasSetMathMode(
                gpu.blas,
                cublasMath_t(CUBLAS_DEFAULT_MATH |
                             CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
            "cublasSetMathMode"));
  BENCH_TRY(check(cublasLtCreate(&gpu.lt), "cublasLtCreate"));
  return gpu.workspace.allocate(Gpu::kWorkspaceBytes, 0);
}

//===----------------------------------------------------------------------===//
// GEMM rows
//===----------------------------------------------------------------------===//

/// The raw libraries' types for a precision.
struct RawTypes {
  cudaDataType ab, c;
  cublasComputeType_t compute;
  size_t abBytes, cBytes;
  bool fp8;
};

RawTypes rawTypes(Precision p) {
  switch (p) {
  case Precision::F32:
    return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, false};
  case Precision::TF32:
    return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, false};
  case Precision::F16:
    return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, false};
  case Precision::BF16:
    return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, false};
  case Precision::FP8:
    break;
  }
  return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, true};
}

/// Raw operands, result, and the per-tensor scale (1.0) FP8 reads.
struct GemmBuffers {
  DeviceBuffer a, b, c, scale;
};

Error allocateGemm(const RawTypes &t, int64_t n, GemmBuffers &buf) {
  size_t elements = size_t(n) * n;
  BENCH_TRY(buf.a.allocate(elements * t.abBytes));
  BENCH_TRY(buf.b.allocate(elements * t.abBytes));
  BENCH_TRY(buf.c.allocate(elements * t.cBytes, 0));
  BENCH_TRY(buf.scale.allocate(sizeof(float), 0));
  float one = 1;
  return check(
      cudaMemcpy(buf.scale.ptr, &one, sizeof(one), cudaMemcpyHostToDevice),
      "cudaMemcpy");
}

Error timeCublas(Gpu &gpu, const RawTypes &t, int64_t n, GemmBuffers &buf,
                 double &seconds) {
  float one = 1, zero = 0;
  return timePerCall(
      gpu.repeats,
      [&] {
        return check(cublasGemmEx(gpu.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                  &one, buf.a.ptr, t.ab, n, buf.b.ptr, t.ab, n,
                                  &zero, buf.c.ptr, t.c, n, t.compute,
                                  CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
      },
      [&] { return gpu.rawSync(); }, seconds);
}

/// cuBLASLt descriptors and the heuristic's algorithm for one n^3 product.
struct LtPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  LtPlan() = default;
  LtPlan(const LtPlan &) = delete;
  LtPlan &operator=(const LtPlan &) = delete;
  ~LtPlan() {
    for (cublasLtMatrixLayout_t l : {a, b, c})
      if (l)
        cublasLtMatrixLayoutDestroy(l);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
  }
};

template <typename T>
Error setDesc(LtPlan &plan, cublasLtMatmulDescAttributes_t attr,
              const T &value) {
  return check(
      cublasLtMatmulDescSetAttribute(plan.desc, attr, &value, sizeof(value)),
      "cublasLtMatmulDescSetAttribute");
}

/// Descriptors for column-major C = op(A) B. FP8 needs A transposed (TN)
/// and scale pointers; the others run NN like cublasGemmEx above.
Error describeLt(const RawTypes &t, int64_t n, GemmBuffers &buf, LtPlan &plan) {
  BENCH_TRY(check(cublasLtMatmulDescCreate(&plan.desc, t.compute, CUDA_R_32F),
                  "cublasLtMatmulDescCreate"));
  cublasOperation_t transA = t.fp8 ? CUBLAS_OP_T : CUBLAS_OP_N;
  BENCH_TRY(setDesc(plan, CUBLASLT_MATMUL_DESC_TRANSA, transA));
  BENCH_TRY(setDesc(plan, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N));
  if (t.fp8) {
    BENCH_TRY(setDesc(plan, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                      (const float *)buf.scale.ptr));
    BENCH_TRY(setDesc(plan, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                      (const float *)buf.scale.ptr));
  }
  // Square, so the stored shape of A is n x n either way.
  for (auto [layout, type] :
       {std::pair{&plan.a, t.ab}, {&plan.b, t.ab}, {&plan.c, t.c}})
    BENCH_TRY(check(cublasLtMatrixLayoutCreate(layout, type, n, n, n),
                    "cublasLtMatrixLayoutCreate"));
  return Error();
}

/// The heuristic's first choice within the workspace, adding split-K sums
/// in the compute type only (neither INPLACE nor OUTPUT_TYPE, which add
/// them in the output type), as amprt's cuBLAS handle.
Error chooseLtAlgo(Gpu &gpu, LtPlan &plan, cublasLtMatmulPreference_t pref) {
  uint64_t bytes = Gpu::kWorkspaceBytes;
  uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  BENCH_TRY(check(cublasLtMatmulPreferenceSetAttribute(
                      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                      sizeof(bytes)),
                  "cublasLtMatmulPreferenceSetAttribute"));
  BENCH_TRY(check(cublasLtMatmulPreferenceSetAttribute(
                      pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                      &reductions, sizeof(reductions)),
                  "cublasLtMatmulPreferenceSetAttribute"));
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  BENCH_TRY(check(cublasLtMatmulAlgoGetHeuristic(gpu.lt, plan.desc, plan.a,
                                                 plan.b, plan.c, plan.c, pref,
                                                 1, &result, &found),
                  "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    return "cublasLtMatmulAlgoGetHeuristic: no algorithm for these types";
  plan.algo = result.algo;
  return Error();
}

Error planLt(Gpu &gpu, const RawTypes &t, int64_t n, GemmBuffers &buf,
             LtPlan &plan) {
  BENCH_TRY(describeLt(t, n, buf, plan));
  cublasLtMatmulPreference_t pref = nullptr;
  BENCH_TRY(check(cublasLtMatmulPreferenceCreate(&pref),
                  "cublasLtMatmulPreferenceCreate"));
  Error e = chooseLtAlgo(gpu, plan, pref);
  cublasLtMatmulPreferenceDestroy(pref);
  return e;
}

Error timeCublasLt(Gpu &gpu, const RawTypes &t, int64_t n, GemmBuffers &buf,
                   double &seconds) {
  LtPlan plan;
  BENCH_TRY(planLt(gpu, t, n, buf, plan));
  float one = 1, zero = 0;
  return timePerCall(
      gpu.repeats,
      [&] {
        return check(cublasLtMatmul(gpu.lt, plan.desc, &one, buf.a.ptr, plan.a,
                                    buf.b.ptr, plan.b, &zero, buf.c.ptr, plan.c,
                                    buf.c.ptr, plan.c, &plan.algo,
                                    gpu.workspace.ptr, Gpu::kWorkspaceBytes,
                                    /*stream=*/0),
                     "cublasLtMatmul");
      },
      [&] { return gpu.rawSync(); }, seconds);
}

/// amprt_scaled_matmul on e4m3 operands with scales 1 into bf16, as a
/// linear layer calls it (x w^T: the TN layout of the raw row, no staging).
Error timeAmpFp8(Gpu &gpu, int64_t n, double &seconds) {
  AmpTensor a, b, c, scale;
  BENCH_TRY(newTensor(gpu.ctx, AMPRT_F8E4M3FN, {n, n}, 0, a));
  BENCH_TRY(newTensor(gpu.ctx, AMPRT_F8E4M3FN, {n, n}, 0, b));
  BENCH_TRY(newTensor(gpu.ctx, AMPRT_BF16, {n, n}, 0, c));
  BENCH_TRY(newTensor(gpu.ctx, AMPRT_F32, {}, 1, scale));
  return timePerCall(
      gpu.repeats,
      [&] {
        return check(amprt_scaled_matmul(gpu.ctx, a.get(), scale.get(), b.get(),
                                         scale.get(), 0, 1, c.get()),
                     "amprt_scaled_matmul");
      },
      [&] { return gpu.ampSync(); }, seconds);
}

/// amprt_matmul of n x n operands of `dtype` into the same type.
Error timeAmpMatmul(Gpu &gpu, amprt_dtype dtype, int64_t n, double &seconds) {
  AmpTensor a, b, c;
  BENCH_TRY(newTensor(gpu.ctx, dtype, {n, n}, 0.5, a));
  BENCH_TRY(newTensor(gpu.ctx, dtype, {n, n}, 0.5, b));
  BENCH_TRY(newTensor(gpu.ctx, dtype, {n, n}, 0, c));
  return timePerCall(
      gpu.repeats,
      [&] {
        return check(amprt_matmul(gpu.ctx, a.get(), b.get(), 0, 0, c.get()),
                     "amprt_matmul");
      },
      [&] { return gpu.ampSync(); }, seconds);
}

double tflops(double flops, double seconds) { return flops / seconds / 1e12; }

/// amprt's side of a GEMM row; tf32 reuses the f32 row before it, since
/// amprt_matmul keeps f32 as f32.
void measureAmpGemm(Gpu &gpu, Precision p, int64_t n, const Row *f32Row,
                    Row &row) {
  double seconds = 0;
  if (p == Precision::TF32) {
    row.ampNote = "f32 math";
    if (f32Row) {
      row.amp = f32Row->amp;
      row.ampError = f32Row->ampError;
      return;
    }
  }
  amprt_dtype dtype = p == Precision::F16    ? AMPRT_F16
                      : p == Precision::BF16 ? AMPRT_BF16
                                             : AMPRT_F32;
  row.ampError = p == Precision::FP8 ? timeAmpFp8(gpu, n, seconds)
                                     : timeAmpMatmul(gpu, dtype, n, seconds);
  // Which path the FP8 product took, as the runtime says.
  if (p == Precision::FP8 && row.ampError.empty()) {
    const char *fallback = amprt_scaled_matmul_fallback(gpu.ctx);
    row.ampNote = fallback ? std::string("dequantized, bf16 GEMM: ") + fallback
                           : "cuBLASLt FP8 GEMM";
  }
  if (row.ampError.empty())
    row.amp = tflops(2.0 * n * n * n, seconds);
}

Row gemmRow(Gpu &gpu, Precision p, int64_t n, const Row *f32Row) {
  Row row;
  row.op = "matmul";
  row.shape = std::to_string(n) + "^3";
  row.precision = name(p);
  row.dims = {{"m", n}, {"n", n}, {"k", n}};
  row.peak = gpu.device.peakTflops(p);
  measureAmpGemm(gpu, p, n, f32Row, row);
  RawTypes t = rawTypes(p);
  GemmBuffers buf;
  double flops = 2.0 * n * n * n, seconds = 0;
  if (Error e = allocateGemm(t, n, buf); !e.empty()) {
    row.cublasError = row.cublasLtError = e;
    return row;
  }
  if (!t.fp8) { // cublasGemmEx has no FP8
    row.cublasError = timeCublas(gpu, t, n, buf, seconds);
    if (row.cublasError.empty())
      row.cublas = tflops(flops, seconds);
  }
  row.cublasLtError = timeCublasLt(gpu, t, n, buf, seconds);
  if (row.cublasLtError.empty())
    row.cublasLt = tflops(flops, seconds);
  return row;
}

//===----------------------------------------------------------------------===//
// Convolution rows
//===----------------------------------------------------------------------===//

/// A ResNet-50 convolution, NHWC, square images and filters.
struct ConvShape {
  const char *layer;
  int64_t batch, hw, cin, cout, kernel, stride, pad;
  int64_t out() const { return (hw + 2 * pad - kernel) / stride + 1; }
  double flops() const {
    return 2.0 * batch * out() * out() * cout * kernel * kernel * cin;
  }
};
constexpr ConvShape kConvs[] = {
    {"conv2d (ResNet-50 conv3_x 3x3)", 256, 28, 128, 128, 3, 1, 1},
    {"conv2d (ResNet-50 conv2_x 1x1)", 256, 56, 256, 64, 1, 1, 0},
};

Error timeAmpConv(Gpu &gpu, const ConvShape &s, amprt_dtype dtype,
                  double &seconds) {
  AmpTensor x, w, y;
  int64_t k = s.kernel, o = s.out();
  BENCH_TRY(newTensor(gpu.ctx, dtype, {s.batch, s.hw, s.hw, s.cin}, 0.5, x));
  BENCH_TRY(newTensor(gpu.ctx, dtype, {s.cout, k, k, s.cin}, 0.5, w)); // OHWI
  BENCH_TRY(newTensor(gpu.ctx, dtype, {s.batch, o, o, s.cout}, 0, y));
  int64_t strides[2] = {s.stride, s.stride};
  int64_t pad[4] = {s.pad, s.pad, s.pad, s.pad}, dilations[2] = {1, 1};
  return timePerCall(
      gpu.repeats,
      [&] {
        return check(amprt_conv2d(gpu.ctx, x.get(), w.get(), strides, pad,
                                  dilations, AMPRT_NHWC, y.get()),
                     "amprt_conv2d");
      },
      [&] { return gpu.ampSync(); }, seconds);
}

Row convRow(Gpu &gpu, const ConvShape &s, Precision p) {
  Row row;
  row.op = s.layer;
  char shape[96];
  snprintf(shape, sizeof(shape), "N=%lld %lldx%lld %lld->%lld s%lld",
           (long long)s.batch, (long long)s.hw, (long long)s.hw,
           (long long)s.cin, (long long)s.cout, (long long)s.stride);
  row.shape = shape;
  row.precision = name(p);
  row.dims = {{"batch", s.batch},   {"h", s.hw},       {"w", s.hw},
              {"c_in", s.cin},      {"c_out", s.cout}, {"kernel", s.kernel},
              {"stride", s.stride}, {"pad", s.pad}};
  row.peak = gpu.device.peakTflops(p); // f32: amprt's cuDNN runs no TF32
  amprt_dtype dtype = p == Precision::F16    ? AMPRT_F16
                      : p == Precision::BF16 ? AMPRT_BF16
                                             : AMPRT_F32;
  double seconds = 0;
  row.ampError = timeAmpConv(gpu, s, dtype, seconds);
  if (row.ampError.empty())
    row.amp = tflops(s.flops(), seconds);
  return row;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

void printHeader() {
  printf("| op | shape | precision | amp TFLOP/s | raw cuBLAS TFLOP/s | "
         "raw cuBLASLt TFLOP/s | amp / best raw | fraction of dense peak |\n"
         "|---|---|---|---:|---:|---:|---:|---:|\n");
}

/// A markdown cell: the error, "-" when not measured, or the number.
std::string cell(double value, const Error &error, const char *format,
                 const std::string &note = "") {
  if (!error.empty()) {
    std::string text = "error: " + error;
    std::replace(text.begin(), text.end(), '|', '/'); // keep the columns
    return text;
  }
  if (std::isnan(value))
    return "-";
  char text[32];
  snprintf(text, sizeof(text), format, value);
  return note.empty() ? text : std::string(text) + " (" + note + ")";
}

void printRow(const Row &r, const Device &d) {
  std::string fraction = r.peak > 0 || std::isnan(r.amp)
                             ? cell(r.fraction(), "", "%.2f")
                         : d.peak ? "no " + r.precision + " math"
                                  : "unknown (sm_" + std::to_string(d.major) +
                                        std::to_string(d.minor) + ")";
  printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.op.c_str(),
         r.shape.c_str(), r.precision.c_str(),
         cell(r.amp, r.ampError, "%.1f", r.ampNote).c_str(),
         cell(r.cublas, r.cublasError, "%.1f").c_str(),
         cell(r.cublasLt, r.cublasLtError, "%.1f").c_str(),
         cell(r.ampOverRaw(), "", "%.2f").c_str(), fraction.c_str());
  fflush(stdout); // rows appear as they finish
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if ((unsigned char)c < 0x20) {
      char escape[8];
      snprintf(escape, sizeof(escape), "\\u%04x", c);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char text[32];
  snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

std::string rowJson(const Row &r, const Device &d) {
  std::string s = "  {\"op\": " + jsonString(r.op);
  for (auto [key, value] : r.dims)
    s += ", \"" + std::string(key) + "\": " + std::to_string(value);
  s += ", \"precision\": " + jsonString(r.precision) +
       ", \"amp_tflops\": " + jsonNumber(r.amp) +
       ", \"cublas_tflops\": " + jsonNumber(r.cublas) +
       ", \"cublaslt_tflops\": " + jsonNumber(r.cublasLt) +
       ", \"amp_over_raw\": " + jsonNumber(r.ampOverRaw()) +
       ", \"fraction_of_peak\": " + jsonNumber(r.fraction()) +
       ", \"peak_tflops\": " + jsonNumber(r.peak > 0 ? r.peak : NAN) +
       ", \"peak_clock_mhz\": " + jsonNumber(d.clockMHz) +
       ", \"device\": " + jsonString(d.name);
  if (!r.ampNote.empty())
    s += ", \"amp_note\": " + jsonString(r.ampNote);
  if (Error e = r.error(); !e.empty())
    s += ", \"error\": " + jsonString(e);
  return s + "}";
}

/// Writes `text` to `path` through path.tmp and a rename, so a reader never
/// sees half a file.
bool writeFile(const std::string &path, const std::string &text) {
  std::string tmp = path + ".tmp";
  FILE *f = fopen(tmp.c_str(), "w");
  bool ok = f && fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = f && fclose(f) == 0 && ok;
  ok = ok && rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    perror(("amprt-gpu-bench: writing " + path).c_str());
    remove(tmp.c_str());
  }
  return ok;
}

bool writeRowsJson(const std::string &path, const std::vector<Row> &rows,
                   const Device &d) {
  std::string text = "[\n";
  for (size_t i = 0; i < rows.size(); ++i)
    text += rowJson(rows[i], d) + (i + 1 < rows.size() ? ",\n" : "\n");
  return writeFile(path, text + "]\n");
}

/// All rows, printed as they finish.
std::vector<Row> measure(Gpu &gpu, const std::vector<int64_t> &sizes) {
  std::vector<Row> rows;
  for (int64_t n : sizes) {
    size_t f32Row = rows.size(); // kGemmPrecisions puts f32 before tf32
    for (Precision p : kGemmPrecisions) {
      Row row =
          gemmRow(gpu, p, n, p == Precision::TF32 ? &rows[f32Row] : nullptr);
      rows.push_back(std::move(row));
      printRow(rows.back(), gpu.device);
    }
  }
  for (const ConvShape &s : kConvs)
    for (Precision p : {Precision::F32, Precision::F16, Precision::BF16}) {
      rows.push_back(convRow(gpu, s, p));
      printRow(rows.back(), gpu.device);
    }
  return rows;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {1024, 4096, 8192};
  int repeats = 10;
  std::string json;
  if (!parseBenchArgs(argc, argv, "amprt-gpu-bench", 16384, sizes, repeats,
                      &json))
    return 2;
  printHeader();
  Gpu gpu;
  gpu.repeats = repeats;
  if (Error why = openGpu(gpu); !why.empty()) {
    printf("| GPU | - | - | - | - | - | - | %s |\n", why.c_str());
    bool ok = json.empty() ||
              writeFile(json, "{\"skipped\": " + jsonString(why) + "}\n");
    return ok ? 0 : 1;
  }
  describeDevice(gpu.device);
  std::vector<Row> rows = measure(gpu, sizes);
  return json.empty() || writeRowsJson(json, rows, gpu.device) ? 0 : 1;
}
