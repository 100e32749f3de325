//===- ContractionBiasTest.cpp - Products with their bias in one call -----===//
//
// amprt_matmul_bias and amprt_conv2d_bias against the two calls they
// replace (amprt_matmul / amprt_conv2d, then amprt_bias_add): the same
// values, bit for bit, in every type and on every path a product takes
// (oneDNN's f32 epilogue, the staged 16-bit rounding pass over whole rows,
// over a column block, a pass of its own after oneDNN's bf16 kernels and for
// NCHW results), and the refusals of a bias that does not fit.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"

using namespace amprt_test;

namespace {

TEST(ContractionBias, MatmulBiasIsMatmulThenBiasAdd) {
  Runtime rt;
  // One thread's block; rows split across threads (m >= n); columns split
  // (m < n: blocks start inside a row, so the bias starts at a column
  // offset); more columns than one tile of the widened bias; slices of
  // the sum (few rows, a long sum).
  forEachMatmul(
      {{7, 13, 5},
       {300, 40, 37},
       {8, 600, 300},
       {64, 96, 2500},
       {32, 800, 100}},
      {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}, [&](const MatmulCase &c) {
        const MatmulDims &d = c.dims;
        Tensor a = rt.make(c.dtype, c.a(), randomValues(d.m * d.k, 11));
        Tensor b = rt.make(c.dtype, c.b(), randomValues(d.k * d.n, 12));
        Tensor bias = rt.make(c.dtype, {d.n}, randomValues(d.n, 13, -4, 4));
        Tensor fused = rt.make(c.dtype, c.c()),
               product = rt.make(c.dtype, c.c()),
               apart = rt.make(c.dtype, c.c());
        ASSERT_EQ(amprt_matmul_bias(rt.ctx, a, b, c.ta, c.tb, bias, fused),
                  AMPRT_OK)
            << amprt_last_error();
        ASSERT_EQ(amprt_matmul(rt.ctx, a, b, c.ta, c.tb, product), AMPRT_OK);
        ASSERT_EQ(amprt_bias_add(rt.ctx, product, bias, AMPRT_NHWC, apart),
                  AMPRT_OK);
        expectSameValues(rt.read(fused), rt.read(apart),
                         "matmul_bias " + c.name());
      });
}

// A 16-bit product of f32 operands rounds them first (amprt_matmul's
// rounded operands); the bias goes on after.
TEST(ContractionBias, RoundedOperandsThenBias) {
  Runtime rt;
  for (amprt_dtype dtype : {AMPRT_F16, AMPRT_BF16}) {
    auto [a, b, bias, shape] = roundedProductOperands(rt, dtype);
    Tensor fused = rt.make(dtype, shape), product = rt.make(dtype, shape),
           apart = rt.make(dtype, shape);
    ASSERT_EQ(amprt_matmul_bias(rt.ctx, a, b, 0, 0, bias, fused), AMPRT_OK)
        << amprt_last_error();
    ASSERT_EQ(amprt_matmul(rt.ctx, a, b, 0, 0, product), AMPRT_OK);
    ASSERT_EQ(amprt_bias_add(rt.ctx, product, bias, AMPRT_NHWC, apart),
              AMPRT_OK);
    expectSameValues(rt.read(fused), rt.read(apart),
                     std::string("rounded operands ") +
                         amprt::dtypeName(dtype));
  }
}

TEST(ContractionBias, Conv2DBiasIsConvThenBiasAdd) {
  Runtime rt;
  const int64_t *strides = kConvStrides, *padding = kConvPadding,
                *dilations = kConvDilations;
  for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW})
    for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}) {
      bool nchw = layout == AMPRT_NCHW;
      auto [x, f, bias, ys] = convOperands(rt, dtype, nchw);
      Tensor fused = rt.make(dtype, ys), conv = rt.make(dtype, ys),
             apart = rt.make(dtype, ys);
      ASSERT_EQ(amprt_conv2d_bias(rt.ctx, x, f, bias, strides, padding,
                                  dilations, layout, fused),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(
          amprt_conv2d(rt.ctx, x, f, strides, padding, dilations, layout, conv),
          AMPRT_OK);
      ASSERT_EQ(amprt_bias_add(rt.ctx, conv, bias, layout, apart), AMPRT_OK);
      expectSameValues(rt.read(fused), rt.read(apart),
                       std::string("conv2d_bias ") + amprt::dtypeName(dtype) +
                           (nchw ? " NCHW" : " NHWC"));
    }
}

TEST(ContractionBias, RefusesABiasThatDoesNotFit) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F16, {4, 6}, randomValues(24, 41));
  Tensor b = rt.make(AMPRT_F16, {6, 5}, randomValues(30, 42));
  Tensor c = rt.make(AMPRT_F16, {4, 5});
  Tensor wrongLength = rt.make(AMPRT_F16, {4});
  Tensor wrongType = rt.make(AMPRT_F32, {5});
  EXPECT_EQ(amprt_matmul_bias(rt.ctx, a, b, 0, 0, wrongLength, c),
            AMPRT_ERROR_SHAPE);
  EXPECT_NE(std::string(amprt_last_error()).find("amprt_matmul_bias"),
            std::string::npos)
      << amprt_last_error();
  EXPECT_EQ(amprt_matmul_bias(rt.ctx, a, b, 0, 0, wrongType, c),
            AMPRT_ERROR_DTYPE);
  EXPECT_NE(amprt_matmul_bias(rt.ctx, a, b, 0, 0, nullptr, c), AMPRT_OK);
  EXPECT_NE(std::string(amprt_last_error()).find("bias"), std::string::npos)
      << amprt_last_error();

  const int64_t strides[2] = {1, 1}, padding[4] = {0, 0, 0, 0},
                dilations[2] = {1, 1};
  Tensor x = rt.make(AMPRT_F32, {1, 4, 4, 2}, randomValues(32, 43));
  Tensor f = rt.make(AMPRT_F32, {3, 3, 3, 2}, randomValues(54, 44));
  Tensor y = rt.make(AMPRT_F32, {1, 2, 2, 3});
  Tensor channelsOfInput = rt.make(AMPRT_F32, {2});
  EXPECT_EQ(amprt_conv2d_bias(rt.ctx, x, f, channelsOfInput, strides, padding,
                              dilations, AMPRT_NHWC, y),
            AMPRT_ERROR_SHAPE);
  EXPECT_NE(std::string(amprt_last_error()).find("amprt_conv2d_bias"),
            std::string::npos)
      << amprt_last_error();
}

} // namespace
