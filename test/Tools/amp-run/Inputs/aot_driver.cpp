//===- aot_driver.cpp - Drives a training step linked ahead of time -------===//
//
// Linked with the object file `amp-run --emit-obj` wrote for aot-object.mlir
// and with libamprt: no JIT, no MLIR. Trains the step on a fixed batch whose
// label is the argmax of the first three features, and prints the loss, the
// dynamic loss scale and how many steps the scaling skipped.
//
//===----------------------------------------------------------------------===//

#include "amprt/amprt.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The lowered step's ABI: i32 train_step(ctx, args, results).
extern "C" int32_t train_step(amprt_context *, void **, void **);

static amprt_tensor *make(amprt_context *ctx, amprt_dtype dtype,
                          std::vector<int64_t> shape, const void *values,
                          size_t bytes) {
  amprt_tensor *t = nullptr;
  if (amprt_tensor_create(ctx, dtype, (int)shape.size(), shape.data(), &t) !=
          AMPRT_OK ||
      amprt_tensor_write(t, values, bytes) != AMPRT_OK) {
    std::fprintf(stderr, "aot_driver: %s\n", amprt_last_error());
    std::exit(1);
  }
  return t;
}

int main() {
  amprt_context *ctx = nullptr;
  if (amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx) != AMPRT_OK)
    return 1;
  std::vector<float> w(12, 0.0f), x(32);
  std::vector<int32_t> y(8);
  for (int i = 0; i < 8; ++i) {
    int best = 0;
    for (int f = 0; f < 4; ++f) {
      x[i * 4 + f] = float((i * 7 + f * 3) % 5) - 2.0f;
      if (f < 3 && x[i * 4 + f] > x[i * 4 + best])
        best = f;
    }
    y[i] = best;
  }
  float lr = 0.5f, scale = 65536.0f;
  int64_t good = 0;
  amprt_tensor *args[6] = {
      make(ctx, AMPRT_F32, {4, 3}, w.data(), 48),
      make(ctx, AMPRT_F32, {8, 4}, x.data(), 128),
      make(ctx, AMPRT_I32, {8}, y.data(), 32),
      make(ctx, AMPRT_F32, {}, &lr, 4),
      make(ctx, AMPRT_F32, {}, &scale, 4),
      make(ctx, AMPRT_I64, {}, &good, 8)};
  float first = 0, loss = 0;
  int skipped = 0;
  for (int step = 0; step < 40; ++step) {
    // loss, param, scale, good steps, and whether the update was applied.
    void *results[5] = {};
    if (train_step(ctx, (void **)args, results) != AMPRT_OK) {
      std::fprintf(stderr, "aot_driver: %s\n", amprt_context_error(ctx));
      return 1;
    }
    amprt_tensor_read((amprt_tensor *)results[0], &loss, 4);
    amprt_tensor_read((amprt_tensor *)results[2], &scale, 4);
    bool applied = false;
    amprt_tensor_read((amprt_tensor *)results[4], &applied, 1);
    skipped += applied ? 0 : 1;
    if (step == 0)
      first = loss;
    amprt_tensor_release((amprt_tensor *)results[0]);
    amprt_tensor_release((amprt_tensor *)results[4]);
    // The new param and loss-scale state replace the old.
    for (int r = 1; r < 4; ++r) {
      int arg = r == 1 ? 0 : r + 2;
      amprt_tensor_release(args[arg]);
      args[arg] = (amprt_tensor *)results[r];
    }
  }
  std::printf("first loss %.4f\nlast loss %.4f\nloss scale %.0f\n"
              "skipped steps %d\n",
              first, loss, scale, skipped);
  std::printf("loss fell: %s\n", loss < 0.5f * first ? "yes" : "no");
  for (amprt_tensor *t : args)
    amprt_tensor_release(t);
  amprt_context_destroy(ctx);
  return 0;
}
