//===- GpuBench.cpp - GPU GEMM/conv throughput vs raw cuBLAS and peak -----===//
//
// On a CUDA device: TFLOP/s of amprt_matmul per precision beside
// cublasGemmEx on same-sized buffers with the same types and compute type
// (the API's overhead), amprt_conv2d's TFLOP/s, and each as a fraction of
// the device's peak for that precision (f32 on CUDA cores, f16/bf16 on
// Tensor Cores with f32 accumulation). Without a device it prints one row
// that says why. Medians of side-by-side runs in one process.
//
// Usage: amprt-gpu-bench [--sizes=N,...] [--repeats=R]
//
//===----------------------------------------------------------------------===//

#include "BenchArgs.h"
#include "amprt/amprt.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace {

/// Dense peak FLOP per clock per SM: f32 FMA on CUDA cores, and f16/bf16
/// Tensor Core math accumulating in f32 (vendor whitepapers).
struct PeakPerSm {
  int major, minor;
  double f32, tensor;
};
constexpr PeakPerSm kPeaks[] = {
    {7, 5, 128, 1024}, // Turing
    {8, 0, 128, 2048}, // A100 (64 FP32 cores x 2)
    {8, 6, 256, 1024}, // GA10x
    {8, 9, 256, 1024}, // Ada (f32 accumulation rate)
    {9, 0, 256, 4096}, // Hopper
};

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

template <typename F> double median(int repeats, F run) {
  std::vector<double> t;
  run(); // warm up (and let cuDNN choose its algorithm)
  cudaDeviceSynchronize();
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    cudaDeviceSynchronize();
    t.push_back(seconds(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

const char *name(amprt_dtype d) {
  return d == AMPRT_F32 ? "f32" : d == AMPRT_F16 ? "f16" : "bf16";
}

amprt_tensor *make(amprt_context *ctx, amprt_dtype dtype,
                   std::vector<int64_t> shape) {
  amprt_tensor *t = amprt_tensor_new(ctx, dtype, shape.size(), shape.data());
  if (!t || amprt_tensor_fill(t, 0.5) != AMPRT_OK) {
    fprintf(stderr, "amprt-gpu-bench: %s\n", amprt_last_error());
    exit(1);
  }
  return t;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {256, 1024, 2048, 4096};
  int repeats = 10;
  if (!parseBenchArgs(argc, argv, "amprt-gpu-bench", 16384, sizes, repeats))
    return 2;
  printf("| op | size | precision | amprt TFLOP/s | raw cuBLAS TFLOP/s | "
         "amprt / raw | fraction of peak |\n"
         "|---|---:|---|---:|---:|---:|---:|\n");
  amprt_context *ctx = nullptr;
  cudaDeviceProp prop;
  if (amprt_cuda_device_count() == 0) {
    printf("| GPU | - | - | - | - | - | no CUDA device: %s |\n",
           amprt_cuda_unavailable_reason());
    return 0;
  }
  if (amprt_context_create(AMPRT_DEVICE_CUDA, 0, &ctx) != AMPRT_OK) {
    printf("| GPU | - | - | - | - | - | %s |\n", amprt_last_error());
    return 0;
  }
  cudaError_t error = cudaGetDeviceProperties(&prop, 0);
  if (error != cudaSuccess) { // e.g. the host-emulated device
    printf("| GPU | - | - | - | - | - | not a CUDA device: %s |\n",
           cudaGetErrorString(error));
    amprt_context_destroy(ctx);
    return 0;
  }
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  double f32Peak = 0, tensorPeak = 0;
  for (const PeakPerSm &p : kPeaks)
    if (p.major == prop.major && p.minor == prop.minor) {
      f32Peak = p.f32 * prop.multiProcessorCount * khz * 1e3;
      tensorPeak = p.tensor * prop.multiProcessorCount * khz * 1e3;
    }
  auto fraction = [&](amprt_dtype d, double flops) {
    double peak = d == AMPRT_F32 ? f32Peak : tensorPeak;
    static char text[32];
    if (peak == 0)
      snprintf(text, sizeof(text), "unknown (sm_%d%d)", prop.major, prop.minor);
    else
      snprintf(text, sizeof(text), "%.2f", flops / peak);
    return text;
  };
  fprintf(stderr, "amprt-gpu-bench: %s, %d SMs, %.0f MHz\n", prop.name,
          prop.multiProcessorCount, khz / 1e3);

  cublasHandle_t blas;
  cublasCreate(&blas);
  for (int64_t n : sizes) {
    double flops = 2.0 * n * n * n;
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *ta = make(ctx, d, {n, n}), *tb = make(ctx, d, {n, n}),
                   *tc = make(ctx, d, {n, n});
      if (amprt_matmul(ctx, ta, tb, 0, 0, tc) != AMPRT_OK) {
        printf("| matmul | %lld | %s | error: %s | | | |\n", (long long)n,
               name(d), amprt_last_error());
        continue;
      }
      double t = median(repeats, [&] {
        amprt_matmul(ctx, ta, tb, 0, 0, tc);
        amprt_synchronize(ctx);
      });
      // The same GEMM straight through cuBLAS.
      cudaDataType type = d == AMPRT_F32   ? CUDA_R_32F
                          : d == AMPRT_F16 ? CUDA_R_16F
                                           : CUDA_R_16BF;
      size_t bytes = n * n * amprt_dtype_size(d);
      void *a = nullptr, *b = nullptr, *c = nullptr;
      cudaMalloc(&a, bytes);
      cudaMalloc(&b, bytes);
      cudaMalloc(&c, bytes);
      cudaMemset(a, 0, bytes);
      cudaMemset(b, 0, bytes);
      float one = 1, zero = 0;
      double raw = median(repeats, [&] {
        cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, type, n,
                     a, type, n, &zero, c, type, n, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
      });
      printf("| matmul | %lld | %s | %.1f | %.1f | %.2f | %s |\n", (long long)n,
             name(d), flops / t / 1e12, flops / raw / 1e12, raw / t,
             fraction(d, flops / t));
      cudaFree(a);
      cudaFree(b);
      cudaFree(c);
      amprt_tensor_release(ta);
      amprt_tensor_release(tb);
      amprt_tensor_release(tc);
    }
  }
  // Convolutions: 3x3, stride 1, same padding, NHWC, batch 64, C -> C.
  for (int64_t hw : {56, 28}) {
    int64_t batch = 64, c = 128;
    double flops = 2.0 * batch * hw * hw * 9 * c * c;
    int64_t strides[2] = {1, 1}, pad[4] = {1, 1, 1, 1}, dil[2] = {1, 1};
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *x = make(ctx, d, {batch, hw, hw, c}),
                   *k = make(ctx, d, {c, 3, 3, c}),
                   *y = make(ctx, d, {batch, hw, hw, c});
      if (amprt_conv2d(ctx, x, k, strides, pad, dil, AMPRT_NHWC, y) !=
          AMPRT_OK) {
        printf("| conv2d | %lld | %s | error: %s | | | |\n", (long long)hw,
               name(d), amprt_last_error());
        continue;
      }
      double t = median(repeats, [&] {
        amprt_conv2d(ctx, x, k, strides, pad, dil, AMPRT_NHWC, y);
        amprt_synchronize(ctx);
      });
      printf("| conv2d 3x3 %lldx%lldx%lld | %lld | %s | %.1f | - | - | %s |\n",
             (long long)hw, (long long)hw, (long long)c, (long long)batch,
             name(d), flops / t / 1e12, fraction(d, flops / t));
      amprt_tensor_release(x);
      amprt_tensor_release(k);
      amprt_tensor_release(y);
    }
  }
  cublasDestroy(blas);
  amprt_context_destroy(ctx);
  return 0;
}
