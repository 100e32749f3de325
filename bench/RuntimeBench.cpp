//===- RuntimeBench.cpp - Runtime GEMM/conv throughput vs raw OpenBLAS ----===//
//
// Prints GFLOP/s of amprt_matmul and amprt_conv2d per precision beside the
// OpenBLAS call they wrap (cblas_sgemm on the same operands; for the
// convolution, the sgemm of its im2col matrix), medians of side-by-side
// runs in one process, and each as a share of the CPU's vector peak for
// its arithmetic (CpuPeak.h: bf16 dot products where the CPU has them,
// f32 FMA otherwise; f16 runs on f32 arithmetic). The peaks are the
// vector units': AMX tiles can take bf16 products above 1, and a
// ONEDNN_MAX_CPU_ISA cap below AVX-512 reads low against them. amprt-gpu-bench
// (GpuBench.cpp) is the GPU table. Then the lowering's fusions beside the
// calls they replace, the unary ops 16-bit tensors look up, and pow by one
// exponent.
//
// Usage: amprt-bench [--sizes=256,512,1024] [--repeats=R]
//
//===----------------------------------------------------------------------===//

#include "BenchArgs.h"
#include "CpuPeak.h"
#include "MedianTime.h"
#include "amprt/amprt.h"
#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

/// After a raw OpenBLAS baseline: OpenBLAS's own threads spin for a while
/// after a call and took the cores from the runtime's OpenMP threads (an
/// f32 matmul measured at 4 GFLOP/s instead of 500 in one run of three);
/// waiting lets them go to sleep first.
void letBlasThreadsSleep() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

amprt_tensor *make(amprt_context *ctx, amprt_dtype dtype,
                   std::vector<int64_t> shape) {
  amprt_tensor *t = amprt_tensor_new(ctx, dtype, shape.size(), shape.data());
  if (!t) {
    fprintf(stderr, "amprt-bench: %s\n", amprt_last_error());
    exit(1);
  }
  amprt_tensor_fill(t, 0.5);
  return t;
}

const char *name(amprt_dtype d) {
  return d == AMPRT_F32 ? "f32" : d == AMPRT_F16 ? "f16" : "bf16";
}

/// The CPU's vector peaks, measured once.
struct Peaks {
  double f32 = amp::bench::f32FmaPeak();
  double bf16 = amp::bench::bf16DotPeak();

  /// The peak of the arithmetic `d`'s kernels run on.
  double of(amprt_dtype d) const {
    return d == AMPRT_BF16 && bf16 > 0 ? bf16 : f32;
  }
  /// `gflops` as a share of that peak ("n/a" without one).
  std::string share(amprt_dtype d, double gflops) const {
    char text[32] = "n/a";
    if (of(d) > 0)
      snprintf(text, sizeof(text), "%.2f", gflops / of(d));
    return text;
  }
};

/// The lowering's fusions against the calls they replace, as the lowering
/// would make them (results over dying operands where it writes in place),
/// side by side: an activation in the product's epilogue, and torch-mlir's
/// decomposed gelu as one elementwise chain.
void printFusionTable(amprt_context *ctx, int repeats) {
  printf("\n| fusion | size | precision | separate us | fused us | fused / "
         "separate |\n|---|---|---|---:|---:|---:|\n");
  auto row = [&](const char *what, const char *size, amprt_dtype d,
                 double separate, double fused) {
    printf("| %s | %s | %s | %.1f | %.1f | %.2f |\n", what, size, name(d),
           separate * 1e6, fused * 1e6, fused / separate);
  };
  struct Product {
    const char *size;
    int64_t m, k, n;
    amprt_activation act;
    const char *what;
  };
  // The MLP's hidden layer and the transformer's feed-forward layer; gelu
  // keeps its input for its gradient (`pre`), relu does not.
  for (Product p : {Product{"32x784x128", 32, 784, 128, AMPRT_ACTIVATION_RELU,
                            "matmul + bias + relu"},
                    Product{"896x32x128", 896, 32, 128, AMPRT_ACTIVATION_GELU,
                            "matmul + bias + gelu (pre kept)"}})
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      bool gelu = p.act == AMPRT_ACTIVATION_GELU;
      amprt_tensor *a = make(ctx, d, {p.m, p.k}), *b = make(ctx, d, {p.k, p.n}),
                   *bias = make(ctx, d, {p.n}), *pre = make(ctx, d, {p.m, p.n}),
                   *y = make(ctx, d, {p.m, p.n});
      double separate = medianSeconds(repeats * 20, [&] {
        amprt_matmul_bias(ctx, a, b, 0, 0, bias, pre);
        if (gelu)
          amprt_gelu(ctx, pre, y);
        else
          amprt_relu(ctx, pre, pre);
      });
      double fused = medianSeconds(repeats * 20, [&] {
        amprt_matmul_bias_act(ctx, a, b, 0, 0, bias, p.act, 0,
                              gelu ? pre : nullptr, y);
      });
      row(p.what, p.size, d, separate, fused);
      for (amprt_tensor *t : {a, b, bias, pre, y})
        amprt_tensor_release(t);
    }
  // x * 0.5 * (1 + erf(x * c)) over 1M elements.
  const int64_t n = 1 << 20;
  const int64_t program[] = {AMPRT_CHAIN_MUL, 0, 1, AMPRT_CHAIN_ERF, 4, 4,
                             AMPRT_CHAIN_ADD, 5, 2, AMPRT_CHAIN_MUL, 0, 3,
                             AMPRT_CHAIN_MUL, 7, 6};
  const double alphas[5] = {};
  for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
    amprt_tensor *x = make(ctx, d, {n}), *c = make(ctx, d, {n}),
                 *one = make(ctx, d, {n}), *half = make(ctx, d, {n}),
                 *s = make(ctx, d, {n}), *h = make(ctx, d, {n}),
                 *y = make(ctx, d, {n});
    double separate = medianSeconds(repeats * 4, [&] {
      amprt_mul(ctx, x, c, s);
      amprt_erf(ctx, s, s);
      amprt_add(ctx, s, one, s);
      amprt_mul(ctx, x, half, h);
      amprt_mul(ctx, h, s, h);
    });
    const amprt_tensor *in[4] = {x, c, one, half};
    double fused = medianSeconds(repeats * 4, [&] {
      amprt_elementwise_chain(ctx, in, 4, program, alphas, 5, y);
    });
    row("decomposed gelu (5 ops)", "1M", d, separate, fused);
    for (amprt_tensor *t : {x, c, one, half, s, h, y})
      amprt_tensor_release(t);
  }
}

/// The unary ops whose 16-bit forms look their results up by bit pattern
/// (cpu/UnaryTables.h), in each precision over 4M elements (a GPT feed-
/// forward layer's activations), beside a multiply of the same tensors:
/// f32 computes (amprt_elementary.h's polynomials, no call).
void printUnaryTable(amprt_context *ctx, int repeats) {
  using Unary =
      amprt_status (*)(amprt_context *, const amprt_tensor *, amprt_tensor *);
  struct Op {
    const char *name;
    Unary call;
  };
  const int64_t n = 4096 * 1024;
  printf("\n| op (4M elements) | f32 ms | f16 ms | bf16 ms | bf16 mul ms "
         "|\n|---|---:|---:|---:|---:|\n");
  for (Op op :
       {Op{"exp", amprt_exp}, Op{"log", amprt_log}, Op{"tanh", amprt_tanh},
        Op{"sigmoid", amprt_sigmoid}, Op{"gelu", amprt_gelu},
        Op{"erf", amprt_erf}, Op{"silu", amprt_silu}}) {
    printf("| %s |", op.name);
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *x = make(ctx, d, {n}), *y = make(ctx, d, {n});
      printf(" %.2f |",
             medianSeconds(repeats, [&] { op.call(ctx, x, y); }) * 1e3);
      if (d == AMPRT_BF16)
        printf(" %.2f |\n",
               medianSeconds(repeats, [&] { amprt_mul(ctx, x, x, y); }) * 1e3);
      amprt_tensor_release(x);
      amprt_tensor_release(y);
    }
  }
}

/// pow by one exponent (a one-element b) over 4M elements: 2, 1/2 and -1
/// are a multiply, a square root and a division (amprt_elementary.h's
/// powWith), any other exponent a powf call per element.
void printPowTable(amprt_context *ctx, int repeats) {
  const int64_t n = 4096 * 1024;
  printf("\n| pow by one exponent (4M elements) | f32 ms | f16 ms | bf16 ms "
         "|\n|---|---:|---:|---:|\n");
  for (double b : {2.0, 0.5, -1.0, 3.0}) {
    printf("| x ^ %g |", b);
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *x = make(ctx, d, {n}), *e = make(ctx, d, {1}),
                   *y = make(ctx, d, {n});
      amprt_tensor_fill(e, b);
      printf(" %.2f |",
             medianSeconds(repeats, [&] { amprt_pow(ctx, x, e, y); }) * 1e3);
      for (amprt_tensor *t : {x, e, y})
        amprt_tensor_release(t);
    }
    printf("\n");
  }
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {256, 512, 1024, 2048};
  int repeats = 5;
  // What the CPU figures run on, alone: bench/cpu_kernels.py asks here
  // (a sanitizer build's libamprt.so cannot be loaded into Python).
  if (argc == 2 && std::string(argv[1]) == "--cpu-kernels") {
    printf("%s\n", amprt_cpu_kernels());
    return 0;
  }
  if (!parseBenchArgs(argc, argv, "amprt-bench", 8192, sizes, repeats))
    return 2;
  amprt_context *ctx;
  amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx);
  printf("CPU kernels: %s\n", amprt_cpu_kernels());
  Peaks peaks;
  printf("Vector peak on %d threads: f32 FMA %.1f GFLOP/s, bf16 dot product "
         "%s\n\n",
         amp::bench::peakThreads(), peaks.f32,
         peaks.bf16 > 0 ? (std::to_string((int)peaks.bf16) + " GFLOP/s").c_str()
                        : "none");
  printf("| op | size | precision | amprt GFLOP/s | raw sgemm GFLOP/s | "
         "amprt / raw | amprt / peak |\n|---|---:|---|---:|---:|---:|---:|\n");
  for (int64_t n : sizes) {
    double flops = 2.0 * n * n * n;
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.5f), c(n * n);
    double raw = medianSeconds(repeats, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  a.data(), n, b.data(), n, 0.0f, c.data(), n);
    });
    letBlasThreadsSleep();
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *ta = make(ctx, d, {n, n}), *tb = make(ctx, d, {n, n}),
                   *tc = make(ctx, d, {n, n});
      double t =
          medianSeconds(repeats, [&] { amprt_matmul(ctx, ta, tb, 0, 0, tc); });
      printf("| matmul | %lld | %s | %.1f | %.1f | %.2f | %s |\n", (long long)n,
             name(d), flops / t / 1e9, flops / raw / 1e9, raw / t,
             peaks.share(d, flops / t / 1e9).c_str());
      amprt_tensor_release(ta);
      amprt_tensor_release(tb);
      amprt_tensor_release(tc);
    }
  }
  // Convolutions: 3x3, stride 1, same padding, NHWC, batch 32, C -> C.
  for (int64_t hw : {28, 14}) {
    int64_t batch = 32, c = 64;
    int64_t rows = batch * hw * hw, width = 9 * c;
    double flops = 2.0 * rows * width * c;
    std::vector<float> col(rows * width, 0.5f), w(c * width, 0.5f), y(rows * c);
    double raw = medianSeconds(repeats, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, c, width, 1.0f,
                  col.data(), width, w.data(), width, 0.0f, y.data(), c);
    });
    letBlasThreadsSleep();
    int64_t strides[2] = {1, 1}, pad[4] = {1, 1, 1, 1}, dil[2] = {1, 1};
    for (amprt_dtype d : {AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      amprt_tensor *x = make(ctx, d, {batch, hw, hw, c}),
                   *k = make(ctx, d, {c, 3, 3, c}),
                   *out = make(ctx, d, {batch, hw, hw, c});
      double t = medianSeconds(repeats, [&] {
        amprt_conv2d(ctx, x, k, strides, pad, dil, AMPRT_NHWC, out);
      });
      printf(
          "| conv2d 3x3 %lldx%lldx%lld | %lld | %s | %.1f | %.1f | %.2f | %s "
          "|\n",
          (long long)hw, (long long)hw, (long long)c, (long long)batch, name(d),
          flops / t / 1e9, flops / raw / 1e9, raw / t,
          peaks.share(d, flops / t / 1e9).c_str());
      amprt_tensor_release(x);
      amprt_tensor_release(k);
      amprt_tensor_release(out);
    }
  }
  printFusionTable(ctx, repeats);
  printUnaryTable(ctx, repeats);
  printPowTable(ctx, repeats);
  amprt_context_destroy(ctx);
  return 0;
}
