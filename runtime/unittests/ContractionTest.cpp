//===- ContractionTest.cpp - Matmul and convolution vs naive loops --------===//
//
// Matmuls and forward convolutions against direct loops in double; the two
// backward convolutions against the adjoint identities
// <conv(x, w), dy> = <x, dx(dy, w)> = <w, dw(x, dy)>, which hold exactly
// for any correct implementation.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include <omp.h>

using namespace amprt_test;

namespace {

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

TEST(RuntimeContraction, MatmulAllTransposesAndTypes) {
  Runtime rt;
  // A small product runs as one BLAS call; the large ones are split across
  // threads by rows (m >= n) or by columns (m < n); 16-bit ones of few
  // rows and a long sum by slices of the sum (two, four).
  forEachMatmul(
      {{7, 13, 5}, {300, 40, 37}, {37, 40, 300}, {32, 800, 100}, {5, 1600, 40}},
      {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}, [&](const MatmulCase &c) {
        const MatmulDims &d = c.dims;
        Tensor a = rt.make(c.dtype, c.a(), randomValues(d.m * d.k, 1));
        Tensor b = rt.make(c.dtype, c.b(), randomValues(d.k * d.n, 2));
        Tensor out = rt.make(c.dtype, c.c());
        ASSERT_EQ(amprt_matmul(rt.ctx, a, b, c.ta, c.tb, out), AMPRT_OK)
            << amprt_last_error();
        std::vector<double> ra = rt.read(a), rb = rt.read(b),
                            want(d.m * d.n, 0);
        for (int64_t i = 0; i < d.m; ++i)
          for (int64_t j = 0; j < d.n; ++j)
            for (int64_t p = 0; p < d.k; ++p)
              want[i * d.n + j] += c.opA(ra, 0, i, p) * c.opB(rb, 0, p, j);
        // One rounding of an f32-accumulated sum: the type's tolerance.
        expectNear(rt.read(out), want, tolerance(c.dtype) * 4,
                   ("matmul " + c.name()).c_str());
      });
}

TEST(RuntimeContraction, BatchMatmul) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F32, {3, 4, 6}, randomValues(72, 3));
  Tensor b = rt.make(AMPRT_F32, {3, 5, 6}, randomValues(90, 4));
  Tensor c = rt.make(AMPRT_F32, {3, 4, 5});
  ASSERT_EQ(amprt_batch_matmul(rt.ctx, a, b, 0, 1, c), AMPRT_OK);
  std::vector<double> ra = rt.read(a), rb = rt.read(b), want(60, 0);
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j)
        for (int p = 0; p < 6; ++p)
          want[(s * 4 + i) * 5 + j] += ra[(s * 4 + i) * 6 + p] * rb[(s * 5 + j) * 6 + p];
  expectNear(rt.read(c), want, 1e-5, "batch_matmul");
}

// Batched products in every type and transpose: oneDNN takes f32 and bf16
// (a batch of strided operands), the rest stage through f32 on OpenBLAS;
// all must agree with the direct sum.
TEST(RuntimeContraction, BatchMatmulAllTransposesAndTypes) {
  Runtime rt;
  forEachMatmul(
      {{28, 32, 28, 3}}, {AMPRT_F32, AMPRT_F16, AMPRT_BF16},
      [&](const MatmulCase &c) {
        const MatmulDims &d = c.dims;
        Tensor a = rt.make(c.dtype, c.a(), randomValues(numel(c.a()), 5));
        Tensor b = rt.make(c.dtype, c.b(), randomValues(numel(c.b()), 6));
        Tensor out = rt.make(c.dtype, c.c());
        ASSERT_EQ(amprt_batch_matmul(rt.ctx, a, b, c.ta, c.tb, out), AMPRT_OK)
            << amprt_last_error();
        std::vector<double> ra = rt.read(a), rb = rt.read(b),
                            want(numel(c.c()), 0);
        for (int64_t s = 0; s < d.batch; ++s)
          for (int64_t i = 0; i < d.m; ++i)
            for (int64_t j = 0; j < d.n; ++j)
              for (int64_t p = 0; p < d.k; ++p)
                want[(s * d.m + i) * d.n + j] +=
                    c.opA(ra, s, i, p) * c.opB(rb, s, p, j);
        expectNear(rt.read(out), want, tolerance(c.dtype) * 4,
                   ("batch_matmul " + c.name()).c_str());
      });
}

// f32 operands of a 16-bit product are rounded to its type on the way in:
// the same bits as casting them first, in every split of the work (one
// block, rows, columns, batches), transpose and mix of operand types.
TEST(RuntimeContraction, MatmulRoundsF32OperandsLikeACast) {
  Runtime rt;
  forEachMatmul(
      {{7, 13, 5},
       {300, 40, 37},
       {37, 40, 300},
       {32, 800, 100},
       {28, 32, 28, 3}},
      {AMPRT_F16, AMPRT_BF16}, [&](const MatmulCase &c) {
        auto product = c.dims.batch > 1 ? amprt_batch_matmul : amprt_matmul;
        // Values well inside the type's range, most of them inexact in it.
        Tensor a32 =
            rt.make(AMPRT_F32, c.a(), randomValues(numel(c.a()), 7, -3.3, 3.3));
        Tensor b32 =
            rt.make(AMPRT_F32, c.b(), randomValues(numel(c.b()), 8, -3.3, 3.3));
        Tensor a16 = rt.make(c.dtype, c.a()), b16 = rt.make(c.dtype, c.b());
        ASSERT_EQ(amprt_cast(rt.ctx, a32, a16), AMPRT_OK);
        ASSERT_EQ(amprt_cast(rt.ctx, b32, b16), AMPRT_OK);
        Tensor want = rt.make(c.dtype, c.c());
        ASSERT_EQ(product(rt.ctx, a16, b16, c.ta, c.tb, want), AMPRT_OK);
        std::vector<double> expected = rt.read(want);
        for (auto [a, b] :
             {std::pair{&a32, &b16}, {&a16, &b32}, {&a32, &b32}}) {
          Tensor out = rt.make(c.dtype, c.c());
          ASSERT_EQ(product(rt.ctx, *a, *b, c.ta, c.tb, out), AMPRT_OK)
              << amprt_last_error();
          expectSameValues(rt.read(out), expected,
                           "rounded operands " + c.name());
        }
      });
}

/// Whether bf16 products are staged on this machine: oneDNN runs them on
/// every AVX-512 family (AMX, AVX-512 BF16, or its bf16 emulation) and on
/// none below, and does not promise the same bits on every thread count.
bool bf16ProductsAreStaged() {
  std::string kernels = amprt_cpu_kernels();
  size_t onednn = kernels.find("; oneDNN ");
  return onednn == std::string::npos ||
         kernels.find("avx512", onednn) == std::string::npos;
}

// A staged product of few rows and a long sum runs slices of the sum on
// the cores; their number depends on the sum's length alone, so one thread
// gives the bits two do. f16 products are always staged, bf16 ones where
// oneDNN has no bf16 kernel (runtime-isa-AVX2 checks those).
TEST(RuntimeContraction, SlicedSumsDoNotDependOnThreads) {
  Runtime rt;
  int threads = omp_get_max_threads();
  std::vector<amprt_dtype> staged{AMPRT_F16};
  if (bf16ProductsAreStaged())
    staged.push_back(AMPRT_BF16);
  forEachMatmul(
      {{32, 800, 100}, {5, 1600, 40}}, staged, [&](const MatmulCase &c) {
        // f32 operands, rounded on the way in.
        Tensor a = rt.make(AMPRT_F32, c.a(), randomValues(numel(c.a()), 41));
        Tensor b = rt.make(AMPRT_F32, c.b(), randomValues(numel(c.b()), 42));
        Tensor wide = rt.make(c.dtype, c.c()), one = rt.make(c.dtype, c.c());
        ASSERT_EQ(amprt_matmul(rt.ctx, a, b, c.ta, c.tb, wide), AMPRT_OK)
            << amprt_last_error();
        omp_set_num_threads(1);
        amprt_status status = amprt_matmul(rt.ctx, a, b, c.ta, c.tb, one);
        omp_set_num_threads(threads);
        ASSERT_EQ(status, AMPRT_OK) << amprt_last_error();
        expectSameValues(rt.read(one), rt.read(wide),
                         "one thread vs " + std::to_string(threads) + ", " +
                             c.name());
      });
}

struct ConvCase {
  int64_t n, h, w, c, o, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw;
  amprt_layout layout;
};

int64_t outSize(int64_t size, int64_t k, int64_t s, int64_t d, int64_t lo,
                int64_t hi) {
  return (size + lo + hi - d * (k - 1) - 1) / s + 1;
}

TEST(RuntimeContraction, ConvolutionForwardAndAdjoints) {
  Runtime rt;
  const ConvCase cases[] = {
      {2, 6, 7, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, AMPRT_NHWC},
      {2, 9, 8, 2, 3, 3, 2, 2, 2, 1, 0, 0, 1, 1, 1, AMPRT_NHWC},
      {1, 10, 10, 3, 2, 3, 3, 1, 2, 2, 2, 0, 0, 2, 2, AMPRT_NHWC},
      {2, 7, 6, 3, 4, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, AMPRT_NCHW},
      // Output rows of at most 4 points: oneDNN's forward kernel works on
      // blocked channels, with both activations reordered, and an NHWC
      // filter gradient is a product a window tap (ConvFilterTaps.h) --
      // strided, dilated, 1x1, and with taps that read only padding.
      {2, 4, 4, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, AMPRT_NHWC},
      {2, 7, 7, 16, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, AMPRT_NCHW},
      {3, 7, 8, 16, 24, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1, AMPRT_NHWC},
      {2, 6, 6, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, 2, AMPRT_NHWC},
      {2, 7, 7, 32, 16, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, AMPRT_NHWC},
      {2, 1, 2, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, AMPRT_NHWC},
  };
  for (const ConvCase &g : cases) {
    bool nchw = g.layout == AMPRT_NCHW;
    int64_t oh = outSize(g.h, g.kh, g.sh, g.dh, g.pt, g.pb);
    int64_t ow = outSize(g.w, g.kw, g.sw, g.dw, g.pl, g.pr);
    Shape xs = nchw ? Shape{g.n, g.c, g.h, g.w} : Shape{g.n, g.h, g.w, g.c};
    Shape ws = nchw ? Shape{g.o, g.c, g.kh, g.kw} : Shape{g.o, g.kh, g.kw, g.c};
    Shape ys = nchw ? Shape{g.n, g.o, oh, ow} : Shape{g.n, oh, ow, g.o};
    auto xAt = [&](int64_t n, int64_t y, int64_t x, int64_t c) {
      return nchw ? ((n * g.c + c) * g.h + y) * g.w + x
                  : ((n * g.h + y) * g.w + x) * g.c + c;
    };
    auto wAt = [&](int64_t o, int64_t y, int64_t x, int64_t c) {
      return nchw ? ((o * g.c + c) * g.kh + y) * g.kw + x
                  : ((o * g.kh + y) * g.kw + x) * g.c + c;
    };
    auto yAt = [&](int64_t n, int64_t y, int64_t x, int64_t o) {
      return nchw ? ((n * g.o + o) * oh + y) * ow + x
                  : ((n * oh + y) * ow + x) * g.o + o;
    };
    int64_t strides[2] = {g.sh, g.sw}, padding[4] = {g.pt, g.pb, g.pl, g.pr},
            dil[2] = {g.dh, g.dw};
    for (amprt_dtype dtype : {AMPRT_F64, AMPRT_F32, AMPRT_F16, AMPRT_BF16}) {
      Tensor x = rt.make(dtype, xs, randomValues(numel(xs), 5));
      Tensor w = rt.make(dtype, ws, randomValues(numel(ws), 6));
      Tensor y = rt.make(dtype, ys);
      ASSERT_EQ(amprt_conv2d(rt.ctx, x, w, strides, padding, dil, g.layout, y),
                AMPRT_OK)
          << amprt_last_error();
      std::vector<double> rx = rt.read(x), rw = rt.read(w),
                          want(numel(ys), 0.0);
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t o = 0; o < g.o; ++o)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox)
              for (int64_t ky = 0; ky < g.kh; ++ky)
                for (int64_t kx = 0; kx < g.kw; ++kx) {
                  int64_t iy = oy * g.sh - g.pt + ky * g.dh;
                  int64_t ix = ox * g.sw - g.pl + kx * g.dw;
                  if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
                    continue;
                  for (int64_t c = 0; c < g.c; ++c)
                    want[yAt(n, oy, ox, o)] +=
                        rx[xAt(n, iy, ix, c)] * rw[wAt(o, ky, kx, c)];
                }
      expectNear(rt.read(y), want, tolerance(dtype) * 8, "conv2d");

      Tensor dy = rt.make(dtype, ys, randomValues(numel(ys), 7));
      Tensor dx = rt.make(dtype, xs), dw = rt.make(dtype, ws);
      // Every element must be written: a tap that reads only padding too.
      amprt_tensor_fill(dx, NAN);
      amprt_tensor_fill(dw, NAN);
      ASSERT_EQ(amprt_conv2d_backward_input(rt.ctx, dy, w, strides, padding,
                                            dil, g.layout, dx),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_conv2d_backward_filter(rt.ctx, x, dy, strides, padding,
                                             dil, g.layout, dw),
                AMPRT_OK)
          << amprt_last_error();
      if (dtype == AMPRT_F64) {
        // Adjoint identities, exact up to f64 rounding.
        double lhs = dot(want, rt.read(dy));
        EXPECT_NEAR(dot(rx, rt.read(dx)), lhs, 1e-9 * std::fabs(lhs) + 1e-9);
        EXPECT_NEAR(dot(rw, rt.read(dw)), lhs, 1e-9 * std::fabs(lhs) + 1e-9);
        continue;
      }
      // Lower precisions (oneDNN's kernels for f32 and bf16, im2col + GEMM
      // for f16) against the f64 path on the same rounded values: one
      // rounding of an f32-accumulated sum.
      Tensor x64 = rt.make(AMPRT_F64, xs, rx), w64 = rt.make(AMPRT_F64, ws, rw);
      Tensor dy64 = rt.make(AMPRT_F64, ys, rt.read(dy));
      Tensor dx64 = rt.make(AMPRT_F64, xs), dw64 = rt.make(AMPRT_F64, ws);
      ASSERT_EQ(amprt_conv2d_backward_input(rt.ctx, dy64, w64, strides, padding,
                                            dil, g.layout, dx64),
                AMPRT_OK);
      ASSERT_EQ(amprt_conv2d_backward_filter(rt.ctx, x64, dy64, strides,
                                             padding, dil, g.layout, dw64),
                AMPRT_OK);
      expectNear(rt.read(dx), rt.read(dx64), tolerance(dtype) * 8,
                 "conv2d_backward_input");
      expectNear(rt.read(dw), rt.read(dw64), tolerance(dtype) * 8,
                 "conv2d_backward_filter");
    }
  }
}

} // namespace
