//===- ContractionActivationTest.cpp - Products with their activation -----===//
//
// amprt_matmul_bias_act and amprt_conv2d_bias_act against the calls they
// replace (the product, amprt_bias_add, then the activation's own call):
// the same values in every type, with and without a bias and a `pre`
// output, on every path a product takes (the staged 16-bit epilogue over
// whole rows, a column block and slices of the sum; a pass
// of its own after oneDNN and the plain GEMMs), and the refusals of
// arguments that do not fit.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"

using namespace amprt_test;

namespace {

constexpr double kLeakySlope = 0.125;

struct ActivationCase {
  amprt_activation code;
  const char *name;
  /// The activation's own call, x -> y.
  amprt_status run(amprt_context *ctx, const amprt_tensor *x,
                   amprt_tensor *y) const {
    switch (code) {
    case AMPRT_ACTIVATION_RELU:
      return amprt_relu(ctx, x, y);
    case AMPRT_ACTIVATION_GELU:
      return amprt_gelu(ctx, x, y);
    case AMPRT_ACTIVATION_TANH:
      return amprt_tanh(ctx, x, y);
    case AMPRT_ACTIVATION_SIGMOID:
      return amprt_sigmoid(ctx, x, y);
    case AMPRT_ACTIVATION_SILU:
      return amprt_silu(ctx, x, y);
    case AMPRT_ACTIVATION_LEAKY_RELU:
      return amprt_leaky_relu(ctx, x, kLeakySlope, y);
    default:
      return AMPRT_ERROR_INVALID_ARGUMENT;
    }
  }
};

const ActivationCase kActivations[] = {
    {AMPRT_ACTIVATION_RELU, "relu"}, {AMPRT_ACTIVATION_GELU, "gelu"},
    {AMPRT_ACTIVATION_TANH, "tanh"}, {AMPRT_ACTIVATION_SIGMOID, "sigmoid"},
    {AMPRT_ACTIVATION_SILU, "silu"}, {AMPRT_ACTIVATION_LEAKY_RELU, "leaky"},
};

/// A fused call's `result` (and `pre`, when it wrote one) against the calls
/// it replaces, from the bare `product` on: amprt_bias_add of `bias` along
/// `layout`'s channels when there is one, then the activation's own call.
void expectTheSeparateCalls(Runtime &rt, const ActivationCase &act,
                            const amprt_tensor *product,
                            const amprt_tensor *bias, amprt_layout layout,
                            const amprt_tensor *result, const amprt_tensor *pre,
                            const std::string &what) {
  Tensor biased = rt.make(product->dtype, product->shape),
         apart = rt.make(product->dtype, product->shape);
  const amprt_tensor *x = product;
  if (bias) {
    ASSERT_EQ(amprt_bias_add(rt.ctx, product, bias, layout, biased), AMPRT_OK);
    x = biased;
  }
  ASSERT_EQ(act.run(rt.ctx, x, apart), AMPRT_OK) << what;
  expectSameValues(rt.read(result), rt.read(apart), what);
  if (pre)
    expectSameValues(rt.read(pre), rt.read(x), what + " (pre)");
}

TEST(ContractionActivation, MatmulBiasActIsTheSeparateCalls) {
  Runtime rt;
  // One thread's block; rows split across threads; columns split (blocks
  // start inside a row); slices of the sum.
  int index = 0;
  forEachMatmul(
      {{7, 13, 5}, {300, 40, 37}, {8, 600, 300}, {32, 800, 100}},
      {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}, [&](const MatmulCase &c) {
        const MatmulDims &d = c.dims;
        Tensor a = rt.make(c.dtype, c.a(), randomValues(d.m * d.k, 11));
        Tensor b = rt.make(c.dtype, c.b(), randomValues(d.k * d.n, 12));
        Tensor bias = rt.make(c.dtype, {d.n}, randomValues(d.n, 13, -4, 4));
        for (const ActivationCase &act : kActivations) {
          // Alternate the bias and the pre output over the cases, so that
          // each path meets all four combinations.
          bool withBias = index % 2 == 0, withPre = index / 2 % 2 == 0;
          ++index;
          std::string what = std::string(act.name) + " " + c.name() +
                             (withBias ? " bias" : "") +
                             (withPre ? " pre" : "");
          Tensor fused = rt.make(c.dtype, c.c()), pre = rt.make(c.dtype, c.c());
          Tensor product = rt.make(c.dtype, c.c());
          amprt_tensor *biasOrNull = withBias ? bias.t : nullptr;
          amprt_tensor *preOrNull = withPre ? pre.t : nullptr;
          ASSERT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, c.ta, c.tb, biasOrNull,
                                          act.code, kLeakySlope, preOrNull,
                                          fused),
                    AMPRT_OK)
              << what << ": " << amprt_last_error();
          ASSERT_EQ(amprt_matmul(rt.ctx, a, b, c.ta, c.tb, product), AMPRT_OK);
          expectTheSeparateCalls(rt, act, product, biasOrNull, AMPRT_NHWC,
                                 fused, preOrNull, what);
        }
      });
}

// f32 operands of a 16-bit product are rounded first; the epilogue follows.
TEST(ContractionActivation, RoundedOperandsThenActivation) {
  Runtime rt;
  for (amprt_dtype dtype : {AMPRT_F16, AMPRT_BF16}) {
    auto [a, b, bias, shape] = roundedProductOperands(rt, dtype);
    Tensor fused = rt.make(dtype, shape), pre = rt.make(dtype, shape);
    Tensor biased = rt.make(dtype, shape), apart = rt.make(dtype, shape);
    ASSERT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, bias,
                                    AMPRT_ACTIVATION_GELU, 0, pre, fused),
              AMPRT_OK)
        << amprt_last_error();
    ASSERT_EQ(amprt_matmul_bias(rt.ctx, a, b, 0, 0, bias, biased), AMPRT_OK);
    ASSERT_EQ(amprt_gelu(rt.ctx, biased, apart), AMPRT_OK);
    std::string what =
        std::string("rounded operands ") + amprt::dtypeName(dtype);
    expectSameValues(rt.read(fused), rt.read(apart), what);
    expectSameValues(rt.read(pre), rt.read(biased), what + " (pre)");
  }
}

TEST(ContractionActivation, Conv2DBiasActIsTheSeparateCalls) {
  Runtime rt;
  const int64_t *strides = kConvStrides, *padding = kConvPadding,
                *dilations = kConvDilations;
  int index = 0;
  for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW})
    for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64})
      for (const ActivationCase &act : kActivations) {
        bool nchw = layout == AMPRT_NCHW;
        bool withBias = index % 2 == 0, withPre = index / 2 % 2 == 0;
        ++index;
        auto [x, f, bias, ys] = convOperands(rt, dtype, nchw);
        Tensor fused = rt.make(dtype, ys), pre = rt.make(dtype, ys);
        Tensor conv = rt.make(dtype, ys);
        amprt_tensor *biasOrNull = withBias ? bias.t : nullptr;
        amprt_tensor *preOrNull = withPre ? pre.t : nullptr;
        std::string what = std::string(act.name) + " " +
                           amprt::dtypeName(dtype) +
                           (nchw ? " NCHW" : " NHWC") +
                           (withBias ? " bias" : "") + (withPre ? " pre" : "");
        ASSERT_EQ(amprt_conv2d_bias_act(rt.ctx, x, f, biasOrNull, strides,
                                        padding, dilations, layout, act.code,
                                        kLeakySlope, preOrNull, fused),
                  AMPRT_OK)
            << what << ": " << amprt_last_error();
        ASSERT_EQ(amprt_conv2d(rt.ctx, x, f, strides, padding, dilations,
                               layout, conv),
                  AMPRT_OK);
        expectTheSeparateCalls(rt, act, conv, biasOrNull, layout, fused,
                               preOrNull, what);
      }
}

TEST(ContractionActivation, RefusesArgumentsThatDoNotFit) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F16, {4, 6}, randomValues(24, 41));
  Tensor b = rt.make(AMPRT_F16, {6, 5}, randomValues(30, 42));
  Tensor c = rt.make(AMPRT_F16, {4, 5});
  Tensor preOfOtherShape = rt.make(AMPRT_F16, {5, 4});
  Tensor preOfOtherType = rt.make(AMPRT_F32, {4, 5});
  auto lastError = [] { return std::string(amprt_last_error()); };

  EXPECT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, nullptr,
                                  (amprt_activation)42, 0, nullptr, c),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("amprt_matmul_bias_act: unknown activation 42"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, nullptr,
                                  AMPRT_ACTIVATION_GELU, 0, preOfOtherShape, c),
            AMPRT_ERROR_SHAPE);
  EXPECT_NE(lastError().find("pre"), std::string::npos) << lastError();
  EXPECT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, nullptr,
                                  AMPRT_ACTIVATION_GELU, 0, preOfOtherType, c),
            AMPRT_ERROR_DTYPE);
  EXPECT_EQ(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, nullptr,
                                  AMPRT_ACTIVATION_GELU, 0, c, c),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("other than the result"), std::string::npos)
      << lastError();
  EXPECT_NE(amprt_matmul_bias_act(rt.ctx, a, b, 0, 0, nullptr,
                                  AMPRT_ACTIVATION_RELU, 0, nullptr, nullptr),
            AMPRT_OK);

  const int64_t strides[2] = {1, 1}, padding[4] = {0, 0, 0, 0},
                dilations[2] = {1, 1};
  Tensor x = rt.make(AMPRT_F32, {1, 4, 4, 2}, randomValues(32, 43));
  Tensor f = rt.make(AMPRT_F32, {3, 3, 3, 2}, randomValues(54, 44));
  Tensor y = rt.make(AMPRT_F32, {1, 2, 2, 3});
  Tensor preOfInput = rt.make(AMPRT_F32, {1, 4, 4, 2});
  EXPECT_EQ(amprt_conv2d_bias_act(rt.ctx, x, f, nullptr, strides, padding,
                                  dilations, AMPRT_NHWC, (amprt_activation)1000,
                                  0, nullptr, y),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_conv2d_bias_act(rt.ctx, x, f, nullptr, strides, padding,
                                  dilations, AMPRT_NHWC, AMPRT_ACTIVATION_RELU,
                                  0, preOfInput, y),
            AMPRT_ERROR_SHAPE);
  EXPECT_NE(lastError().find("amprt_conv2d_bias_act"), std::string::npos)
      << lastError();
}

} // namespace
