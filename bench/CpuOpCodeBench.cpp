//===- CpuOpCodeBench.cpp - CPU loops beside the shared op code -----------===//
//
// The CPU backend keeps a loop of its own for an op only where it beats the
// op code the device backends run (runtime/device/DeviceOps.h), executed on
// the CPU's cores by CpuExec. This prints, per op, the median time of the
// CPU backend's entry point and of the shared code on the same tensors, in
// one process, alternating the two; the ratio is shared / CPU (above 1: the
// CPU loop wins). docs/runtime.md says which ops keep a CPU loop and why.
//
//===----------------------------------------------------------------------===//

#include "BenchArgs.h"
#include "amprt/amprt.h"
#include "common/Runtime.h"
#include "cpu/CpuExec.h"
#include "device/DeviceOps.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace amprt;

namespace {

amprt_context *ctx() {
  static amprt_context *c = [] {
    amprt_context *made = nullptr;
    amprt_context_create(AMPRT_DEVICE_CPU, 0, &made);
    return made;
  }();
  return c;
}

/// Every tensor the benchmark makes, released at the end.
std::vector<amprt_tensor *> &made() {
  static std::vector<amprt_tensor *> tensors;
  return tensors;
}

amprt_tensor *like(amprt_dtype dtype, std::vector<int64_t> shape) {
  amprt_tensor *t = amprt_tensor_new(ctx(), dtype, shape.size(), shape.data());
  made().push_back(t);
  return t;
}

/// A tensor of random values in [lo, hi) (integers: [0, hi)).
amprt_tensor *random(amprt_dtype dtype, std::vector<int64_t> shape,
                     double lo = -1, double hi = 1) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(1);
  for (int64_t s : shape)
    v.resize(v.size() * s);
  for (float &x : v)
    x = dtype == AMPRT_I32 ? float(rng() % (uint32_t)hi) : d(rng);
  amprt_tensor *out = like(dtype, shape);
  if (dtype == AMPRT_I32) {
    std::vector<int32_t> n(v.begin(), v.end());
    amprt_tensor_write(out, n.data(), n.size() * 4);
  } else if (dtype == AMPRT_F32) {
    amprt_tensor_write(out, v.data(), v.size() * 4);
  } else {
    amprt_tensor *staging =
        amprt_tensor_new(ctx(), AMPRT_F32, shape.size(), shape.data());
    amprt_tensor_write(staging, v.data(), v.size() * 4);
    amprt_cast(ctx(), staging, out);
    amprt_tensor_release(staging);
  }
  return out;
}

double medianMs(const std::function<void()> &fn, int repeats) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string op;
  std::function<amprt_status()> cpu, shared;
};

constexpr int64_t kGrain = 1 << 14;

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {1};
  int repeats = 15;
  // --sizes=N divides the tensors (smoke runs use a large N).
  if (!parseBenchArgs(argc, argv, "amprt-cpu-code-bench", 1 << 20, sizes,
                      repeats))
    return 2;
  int64_t scale = sizes[0];
  auto dim = [&](int64_t d) { return std::max<int64_t>(1, d / scale); };
  cpu::CpuExec exec(kGrain);

  int64_t n = dim(1 << 22);
  amprt_tensor *x32 = random(AMPRT_F32, {n}), *y32 = like(AMPRT_F32, {n});
  amprt_tensor *b32 = random(AMPRT_F32, {n}), *x16 = random(AMPRT_F16, {n});
  amprt_tensor *y16 = like(AMPRT_F16, {n}), *b16 = random(AMPRT_F16, {n});
  amprt_tensor *mask = like(AMPRT_I1, {n});
  amprt_compare(ctx(), AMPRT_LT, x32, b32, mask);
  int64_t rows = dim(4096), cols = 1024;
  amprt_tensor *m16 = random(AMPRT_F16, {rows, cols});
  amprt_tensor *bias16 = random(AMPRT_F16, {cols});
  amprt_tensor *o16 = like(AMPRT_F16, {rows, cols});
  amprt_tensor *t16 = like(AMPRT_F16, {cols, rows});
  amprt_tensor *col32 = like(AMPRT_F32, {cols});
  amprt_tensor *row32 = like(AMPRT_F32, {rows});
  amprt_tensor *m32 = random(AMPRT_F32, {rows, cols});
  amprt_tensor *scale32 = random(AMPRT_F32, {}, 1000, 2000);
  int64_t batch = dim(64);
  std::vector<int64_t> img = {batch, 28, 28, 64}, pooled = {batch, 14, 14, 64};
  amprt_tensor *i16 = random(AMPRT_F16, img), *io16 = like(AMPRT_F16, img);
  amprt_tensor *p16 = like(AMPRT_F16, pooled),
               *pg16 = random(AMPRT_F16, pooled);
  amprt_tensor *c64 = random(AMPRT_F32, {64}), *c64b = random(AMPRT_F32, {64});
  amprt_tensor *cb16 = random(AMPRT_F16, {64}), *cg16 = like(AMPRT_F16, {64});
  amprt_tensor *mean = like(AMPRT_F32, {64}), *inv = like(AMPRT_F32, {64});
  amprt_tensor *g1 = like(AMPRT_F32, {64}), *g2 = like(AMPRT_F32, {64});
  amprt_tensor *table = random(AMPRT_F32, {30000, 256});
  amprt_tensor *ids = random(AMPRT_I32, {dim(8192)}, 0, 30000);
  amprt_tensor *gathered = like(AMPRT_F32, {dim(8192), 256});

  Split channels{batch * 28 * 28, 64, 1};
  Pool pool{batch, 28, 28, 64, 14, 14, 2, 2, 2, 2, 0, 0, false};
  int64_t window[] = {2, 2}, strides[] = {2, 2}, padding[] = {0, 0, 0, 0};
  int64_t perm[] = {1, 0}, rowsDim[] = {0}, colsDim[] = {1};
  bool reduceRows[] = {true, false}, reduceCols[] = {false, true};

  std::vector<Row> table_ = {
      {"relu f32", [&] { return amprt_relu(ctx(), x32, y32); },
       [&] { return device::unary(exec, Unary::Relu, x32, y32, 0); }},
      {"gelu f16", [&] { return amprt_gelu(ctx(), x16, y16); },
       [&] { return device::unary(exec, Unary::Gelu, x16, y16, 0); }},
      {"add f32", [&] { return amprt_add(ctx(), x32, b32, y32); },
       [&] { return device::binary(exec, Binary::Add, x32, b32, y32); }},
      {"mul f16", [&] { return amprt_mul(ctx(), x16, b16, y16); },
       [&] { return device::binary(exec, Binary::Mul, x16, b16, y16); }},
      {"add f16 [r,c]+[c]", [&] { return amprt_add(ctx(), m16, bias16, o16); },
       [&] { return device::binary(exec, Binary::Add, m16, bias16, o16); }},
      {"compare f32",
       [&] { return amprt_compare(ctx(), AMPRT_LT, x32, b32, mask); },
       [&] { return device::compare(exec, Compare::Lt, x32, b32, mask); }},
      {"select f32", [&] { return amprt_select(ctx(), mask, x32, b32, y32); },
       [&] { return device::select(exec, mask, x32, b32, y32); }},
      {"cast f32->f16", [&] { return amprt_cast(ctx(), x32, y16); },
       [&] { return device::cast(exec, x32, y16); }},
      {"cast f16->f32", [&] { return amprt_cast(ctx(), x16, y32); },
       [&] { return device::cast(exec, x16, y32); }},
      {"unscale f16->f32",
       [&] { return amprt_unscale(ctx(), x16, scale32, y32); },
       [&] { return device::scale(exec, x16, scale32, y32, true); }},
      {"scale f32", [&] { return amprt_scale(ctx(), x32, scale32, y32); },
       [&] { return device::scale(exec, x32, scale32, y32, false); }},
      {"relu_grad f32", [&] { return amprt_relu_grad(ctx(), x32, b32, y32); },
       [&] {
         return device::activationGrad(exec, ActivationGrad::Relu, x32, b32,
                                       y32, 0);
       }},
      {"gelu_grad f16", [&] { return amprt_gelu_grad(ctx(), x16, b16, y16); },
       [&] {
         return device::activationGrad(exec, ActivationGrad::Gelu, x16, b16,
                                       y16, 0);
       }},
      {"relu_grad f16", [&] { return amprt_relu_grad(ctx(), x16, b16, y16); },
       [&] {
         return device::activationGrad(exec, ActivationGrad::Relu, x16, b16,
                                       y16, 0);
       }},
      {"reduce_sum f32 rows",
       [&] { return amprt_reduce_sum(ctx(), m32, rowsDim, 1, col32); },
       [&] {
         return device::reduce(exec, Reduce::Sum, m32, reduceRows, col32);
       }},
      {"reduce_sum f32 cols",
       [&] { return amprt_reduce_sum(ctx(), m32, colsDim, 1, row32); },
       [&] {
         return device::reduce(exec, Reduce::Sum, m32, reduceCols, row32);
       }},
      {"transpose f16", [&] { return amprt_transpose(ctx(), m16, perm, t16); },
       [&] { return device::transpose(exec, m16, perm, t16); }},
      {"bias_add f16 NHWC",
       [&] { return amprt_bias_add(ctx(), i16, cb16, AMPRT_NHWC, io16); },
       [&] { return device::biasAdd(exec, i16, cb16, channels, io16); }},
      {"bias_add_grad f16 NHWC",
       [&] { return amprt_bias_add_grad(ctx(), i16, AMPRT_NHWC, cg16); },
       [&] { return device::biasAddGrad(exec, i16, channels, cg16); }},
      {"max_pool2d f16 NHWC",
       [&] {
         return amprt_max_pool2d(ctx(), i16, window, strides, padding,
                                 AMPRT_NHWC, p16);
       },
       [&] { return device::pool(exec, true, i16, pool, p16); }},
      {"max_pool2d_grad f16 NHWC",
       [&] {
         return amprt_max_pool2d_grad(ctx(), pg16, i16, p16, window, strides,
                                      padding, AMPRT_NHWC, io16);
       },
       [&] {
         return device::poolGrad(exec, true, pg16, i16, p16, pool, io16);
       }},
      {"batch_norm f16 NHWC",
       [&] {
         return amprt_batch_norm(ctx(), i16, c64, c64b, 1e-5, AMPRT_NHWC, io16,
                                 mean, inv);
       },
       [&] {
         return device::batchNorm(exec, i16, c64, c64b, 1e-5, channels, io16,
                                  mean, inv);
       }},
      {"batch_norm_grad f16 NHWC",
       [&] {
         return amprt_batch_norm_grad(ctx(), i16, i16, c64, mean, inv,
                                      AMPRT_NHWC, io16, g1, g2);
       },
       [&] {
         return device::batchNormGrad(exec, i16, i16, c64, mean, inv, channels,
                                      io16, g1, g2);
       }},
      {"gather f32", [&] { return amprt_gather(ctx(), table, ids, gathered); },
       [&] { return device::gather(exec, table, ids, gathered); }},
  };

  printf("| op | CPU backend ms | shared op code ms | shared / CPU |\n");
  printf("|---|---:|---:|---:|\n");
  for (const Row &row : table_) {
    if (row.cpu() != AMPRT_OK || row.shared() != AMPRT_OK) {
      printf("| %s | failed: %s | | |\n", row.op.c_str(), amprt_last_error());
      continue;
    }
    std::vector<double> cpu, shared;
    for (int r = 0; r < repeats; ++r) { // alternate, so drift hits both
      cpu.push_back(medianMs([&] { row.cpu(); }, 1));
      shared.push_back(medianMs([&] { row.shared(); }, 1));
    }
    std::sort(cpu.begin(), cpu.end());
    std::sort(shared.begin(), shared.end());
    double c = cpu[cpu.size() / 2], s = shared[shared.size() / 2];
    printf("| %s | %.3f | %.3f | %.2fx |\n", row.op.c_str(), c, s, s / c);
  }
  for (amprt_tensor *t : made())
    amprt_tensor_release(t);
  amprt_context_destroy(ctx());
  return 0;
}
