//===- AttentionBench.cpp - Fused attention against the ops it replaces ---===//
//
// Prints the time of amprt_attention and amprt_attention_grad beside the
// unfused calls a lowering makes without them (amprt_batch_matmul,
// amprt_scale, amprt_(causal_)softmax, amprt_softmax_grad), for 128 heads
// (batch 32 x 4 heads, as the GPT model's) of T queries and T keys, d
// wide, scaled by 1/sqrt(d), causal and not, in f32 and bf16: medians of
// side-by-side runs in one process. attention-min-keys (the lowering's
// option) is where the fused forward + backward starts to win for heads
// that are not causal; the backward's GFLOP/s count its five products
// (the scores recomputed) over the keys each query sees.
//
// Usage: amprt-attention-bench [--sizes=T,...] [--repeats=R]
//
//===----------------------------------------------------------------------===//

#include "BenchArgs.h"
#include "MedianTime.h"
#include "amprt/amprt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int64_t kHeads = 128;

/// Stops at the first failed call: a benchmark of a failing op is noise.
void check(amprt_status status, const char *what) {
  if (status != AMPRT_OK) {
    fprintf(stderr, "amprt-attention-bench: %s: %s\n", what,
            amprt_last_error());
    exit(1);
  }
}

amprt_tensor *make(amprt_context *ctx, amprt_dtype dtype,
                   std::vector<int64_t> shape) {
  amprt_tensor *t = amprt_tensor_new(ctx, dtype, shape.size(), shape.data());
  if (!t) {
    fprintf(stderr, "amprt-attention-bench: %s\n", amprt_last_error());
    exit(1);
  }
  return t;
}

/// A tensor of N(0, 1) values rounded to `dtype` (scores of a spread a
/// trained model's have, so the softmax is not uniform).
amprt_tensor *random(amprt_context *ctx, amprt_dtype dtype,
                     std::vector<int64_t> shape, std::mt19937 &rng) {
  amprt_tensor *f32 = make(ctx, AMPRT_F32, shape);
  std::vector<float> values(amprt_tensor_numel(f32));
  std::normal_distribution<float> normal;
  for (float &v : values)
    v = normal(rng);
  check(amprt_tensor_write(f32, values.data(), values.size() * sizeof(float)),
        "write");
  amprt_tensor *t = make(ctx, dtype, shape);
  check(amprt_cast(ctx, f32, t), "cast");
  amprt_tensor_release(f32);
  return t;
}

/// One shape's operands, gradients and the unfused path's intermediates.
struct Case {
  amprt_context *ctx;
  int64_t t, d;
  bool causal;
  double scale;
  amprt_tensor *q, *k, *v, *o, *dO, *dq, *dk, *dv;
  amprt_tensor *scores, *p, *dp, *ds, *factor;
  std::vector<int64_t> view;

  Case(amprt_context *ctx, amprt_dtype dtype, int64_t t, int64_t d, bool causal,
       std::mt19937 &rng)
      : ctx(ctx), t(t), d(d), causal(causal), scale(1 / std::sqrt(double(d))) {
    std::vector<int64_t> rows = {kHeads, t, d}, square = {kHeads, t, t};
    q = random(ctx, dtype, rows, rng);
    k = random(ctx, dtype, rows, rng);
    v = random(ctx, dtype, rows, rng);
    dO = random(ctx, dtype, rows, rng);
    o = make(ctx, dtype, rows);
    dq = make(ctx, dtype, rows);
    dk = make(ctx, dtype, rows);
    dv = make(ctx, dtype, rows);
    scores = make(ctx, dtype, square);
    p = make(ctx, dtype, square);
    dp = make(ctx, dtype, square);
    ds = make(ctx, dtype, square);
    factor = make(ctx, AMPRT_F32, {});
    check(amprt_tensor_fill(factor, scale), "fill");
    view = {0, kHeads, t, d, t * d, d, 1};
  }
  Case(const Case &) = delete;
  Case &operator=(const Case &) = delete;
  ~Case() {
    for (amprt_tensor *x :
         {q, k, v, o, dO, dq, dk, dv, scores, p, dp, ds, factor})
      amprt_tensor_release(x);
  }

  void fused() {
    const int64_t *w = view.data();
    check(amprt_attention(ctx, 3, causal, scale, q, w, k, w, v, w, o, w),
          "amprt_attention");
  }
  void fusedGrad() {
    const int64_t *w = view.data();
    check(amprt_attention_grad(ctx, 3, causal, scale, q, w, k, w, v, w, dO, w,
                               dq, w, dk, w, dv, w),
          "amprt_attention_grad");
  }
  void unfused() {
    check(amprt_batch_matmul(ctx, q, k, 0, 1, scores), "q k^T");
    check(amprt_scale(ctx, scores, factor, scores), "scale");
    check(causal ? amprt_causal_softmax(ctx, scores, p)
                 : amprt_softmax(ctx, scores, 2, p),
          "softmax");
    check(amprt_batch_matmul(ctx, p, v, 0, 0, o), "p v");
  }
  /// The backward of unfused(), whose probabilities it reads.
  void unfusedGrad() {
    check(amprt_batch_matmul(ctx, dO, v, 0, 1, dp), "do v^T");
    check(amprt_softmax_grad(ctx, dp, p, 2, ds), "softmax grad");
    check(amprt_scale(ctx, ds, factor, ds), "scale");
    check(amprt_batch_matmul(ctx, ds, k, 0, 0, dq), "ds k");
    check(amprt_batch_matmul(ctx, ds, q, 1, 0, dk), "ds^T q");
    check(amprt_batch_matmul(ctx, p, dO, 1, 0, dv), "p^T do");
  }
  /// The backward's multiply-adds: five t x t x d products, a causal
  /// head's over the (t + 1) / 2t of its scores it sees.
  double backwardFlops() const {
    double seen = causal ? (t + 1) / 2.0 : t;
    return 5 * 2.0 * kHeads * t * seen * d;
  }
};

const char *name(amprt_dtype d) { return d == AMPRT_F32 ? "f32" : "bf16"; }

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {32, 64, 128, 256};
  int repeats = 7;
  // At 1024, each of the four score tensors is 512 MiB in f32.
  if (!parseBenchArgs(argc, argv, "amprt-attention-bench", 1024, sizes,
                      repeats))
    return 2;
  amprt_context *ctx;
  check(amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx), "context");
  printf("CPU kernels: %s; %lld heads, scale 1/sqrt(d)\n\n",
         amprt_cpu_kernels(), (long long)kHeads);
  printf("| T | d | causal | precision | fused fwd ms | unfused fwd ms | fused "
         "bwd ms | unfused bwd ms | fused bwd GFLOP/s | fused / unfused (fwd + "
         "bwd) |\n|---:|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::mt19937 rng(7);
  for (int64_t t : sizes)
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (amprt_dtype dtype : {AMPRT_F32, AMPRT_BF16}) {
          Case c(ctx, dtype, t, d, causal, rng);
          double fwd = medianSeconds(repeats, [&] { c.fused(); });
          double ufwd = medianSeconds(repeats, [&] { c.unfused(); });
          double bwd = medianSeconds(repeats, [&] { c.fusedGrad(); });
          double ubwd = medianSeconds(repeats, [&] { c.unfusedGrad(); });
          printf("| %lld | %lld | %s | %s | %.3f | %.3f | %.3f | %.3f | %.0f | "
                 "%.2f |\n",
                 (long long)t, (long long)d, causal ? "yes" : "no", name(dtype),
                 fwd * 1e3, ufwd * 1e3, bwd * 1e3, ubwd * 1e3,
                 c.backwardFlops() / bwd / 1e9, (fwd + bwd) / (ufwd + ubwd));
          fflush(stdout);
        }
  amprt_context_destroy(ctx);
  return 0;
}
