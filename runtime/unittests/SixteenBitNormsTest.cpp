//===- SixteenBitNormsTest.cpp - 16-bit norms and softmax bits -----------===//
//
// The ops that read each element several times (batch norm, layer norm,
// softmax and their gradients) compute 16-bit data in f32 and round each
// result once. Whatever path a size and layout take on the CPU (whole f32
// copies, blocks of rows widened in scratch, per-element loads), the
// 16-bit result must be the f32 op's result on the widened operands,
// narrowed: these tests compare the bits.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include <functional>
#include <string>

using namespace amprt_test;

namespace {

const char *dtypeName(amprt_dtype t) { return t == AMPRT_F16 ? "f16" : "bf16"; }

/// An op's operands in one storage type: `low` holds the 16-bit tensors,
/// `wide` the same values in f32 (widening is exact).
struct Operands {
  Runtime &rt;
  amprt_dtype low;
  std::vector<Tensor> lowTensors, wideTensors;

  /// A 16-bit operand (and its f32 twin) of random values in [-3, 3].
  std::pair<amprt_tensor *, amprt_tensor *> data(const Shape &shape,
                                                 unsigned seed) {
    lowTensors.push_back(
        rt.make(low, shape, randomValues(numel(shape), seed, -3, 3)));
    wideTensors.push_back(
        rt.make(AMPRT_F32, shape, rt.read(lowTensors.back())));
    return {lowTensors.back(), wideTensors.back()};
  }
  /// A 16-bit result (and its f32 twin) of `shape`.
  std::pair<amprt_tensor *, amprt_tensor *> result(const Shape &shape) {
    lowTensors.push_back(rt.make(low, shape));
    wideTensors.push_back(rt.make(AMPRT_F32, shape));
    return {lowTensors.back(), wideTensors.back()};
  }
};

std::vector<uint16_t> bits16(const amprt_tensor *t) {
  std::vector<uint16_t> out(amprt_tensor_numel(t));
  EXPECT_EQ(amprt_tensor_read(t, out.data(), out.size() * 2), AMPRT_OK);
  return out;
}

/// `low` must hold `wide` narrowed (amprt_cast rounds as the ops do).
void expectNarrowed(Runtime &rt, const amprt_tensor *low,
                    const amprt_tensor *wide, const std::string &what) {
  const int64_t *dims = amprt_tensor_shape(wide);
  Tensor narrowed = rt.make(amprt_tensor_dtype(low),
                            Shape(dims, dims + amprt_tensor_rank(wide)));
  ASSERT_EQ(amprt_cast(rt.ctx, wide, narrowed), AMPRT_OK) << amprt_last_error();
  std::vector<uint16_t> got = bits16(low), want = bits16(narrowed);
  ASSERT_EQ(got.size(), want.size());
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && wrong++ == 0)
      first = (int64_t)i;
  EXPECT_EQ(wrong, 0) << what << ": " << wrong << " of " << got.size()
                      << " elements differ, first at " << first;
}

void expectSameF32(Runtime &rt, const amprt_tensor *a, const amprt_tensor *b,
                   const std::string &what) {
  std::vector<double> x = rt.read(a), y = rt.read(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(x[i], y[i]) << what << " element " << i;
}

const amprt_dtype kLowTypes[] = {AMPRT_F16, AMPRT_BF16};

} // namespace

TEST(SixteenBitNorms, BatchNormGivesTheNarrowedF32Bits) {
  // Channels last with 16 channels over more rows than one block of the
  // channel sums (2048), with 5 channels, and channels first.
  struct Case {
    Shape shape;
    amprt_layout layout;
    int64_t channels;
  } cases[] = {{{3, 29, 31, 16}, AMPRT_NHWC, 16},
               {{4, 7, 9, 5}, AMPRT_NHWC, 5},
               {{2, 5, 6, 7}, AMPRT_NCHW, 5}};
  for (amprt_dtype low : kLowTypes)
    for (const Case &c : cases) {
      Runtime rt;
      std::string at =
          std::string(dtypeName(low)) + " " +
          std::to_string(c.shape[0] * c.shape[1] * c.shape[2] * c.shape[3]) +
          (c.layout == AMPRT_NHWC ? " nhwc" : " nchw");
      Operands ops{rt, low, {}, {}};
      auto x = ops.data(c.shape, 1), dy = ops.data(c.shape, 2);
      auto y = ops.result(c.shape), dx = ops.result(c.shape);
      Shape ch{c.channels};
      Tensor scale = rt.make(AMPRT_F32, ch, randomValues(c.channels, 3)),
             offset = rt.make(AMPRT_F32, ch, randomValues(c.channels, 4));
      Tensor stats[2][4];
      for (auto &side : stats)
        for (Tensor &t : side)
          t = rt.make(AMPRT_F32, ch);
      ASSERT_EQ(amprt_batch_norm(rt.ctx, x.first, scale, offset, 1e-5, c.layout,
                                 y.first, stats[0][0], stats[0][1]),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_batch_norm(rt.ctx, x.second, scale, offset, 1e-5,
                                 c.layout, y.second, stats[1][0], stats[1][1]),
                AMPRT_OK)
          << amprt_last_error();
      expectNarrowed(rt, y.first, y.second, "batch_norm y " + at);
      expectSameF32(rt, stats[0][0], stats[1][0], "batch_norm mean " + at);
      expectSameF32(rt, stats[0][1], stats[1][1], "batch_norm inv_std " + at);
      ASSERT_EQ(amprt_batch_norm_grad(rt.ctx, dy.first, x.first, scale,
                                      stats[0][0], stats[0][1], c.layout,
                                      dx.first, stats[0][2], stats[0][3]),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_batch_norm_grad(rt.ctx, dy.second, x.second, scale,
                                      stats[1][0], stats[1][1], c.layout,
                                      dx.second, stats[1][2], stats[1][3]),
                AMPRT_OK)
          << amprt_last_error();
      expectNarrowed(rt, dx.first, dx.second, "batch_norm_grad dx " + at);
      expectSameF32(rt, stats[0][2], stats[1][2],
                    "batch_norm_grad dscale " + at);
      expectSameF32(rt, stats[0][3], stats[1][3],
                    "batch_norm_grad doffset " + at);
    }
}

TEST(SixteenBitNorms, LayerNormGivesTheNarrowedF32Bits) {
  // The transformer's rows of 32, rows longer than a block of 64 columns of
  // the column sums, a row count that leaves partial blocks, and more rows
  // than two chunks of the column sums (1024 each), and four chunks (dx
  // and the sums in one pass on 1, 2 or 4 cores).
  const Shape shapes[] = {
      {32, 28, 32}, {3, 5, 300}, {7, 13, 24}, {50, 50, 16}, {64, 64, 48}};
  for (amprt_dtype low : kLowTypes)
    for (const Shape &shape : shapes) {
      Runtime rt;
      std::string at = std::string(dtypeName(low)) + " rows of " +
                       std::to_string(shape.back());
      Operands ops{rt, low, {}, {}};
      auto x = ops.data(shape, 5), dy = ops.data(shape, 6);
      auto y = ops.result(shape), dx = ops.result(shape);
      int64_t d = shape.back();
      Shape rows{shape[0], shape[1]};
      Tensor gamma = rt.make(AMPRT_F32, {d}, randomValues(d, 7)),
             beta = rt.make(AMPRT_F32, {d}, randomValues(d, 8));
      Tensor mean[2] = {rt.make(AMPRT_F32, rows), rt.make(AMPRT_F32, rows)};
      Tensor inv[2] = {rt.make(AMPRT_F32, rows), rt.make(AMPRT_F32, rows)};
      Tensor dgamma[2] = {rt.make(AMPRT_F32, {d}), rt.make(AMPRT_F32, {d})};
      Tensor dbeta[2] = {rt.make(AMPRT_F32, {d}), rt.make(AMPRT_F32, {d})};
      amprt_tensor *xs[2] = {x.first, x.second}, *ys[2] = {y.first, y.second},
                   *dys[2] = {dy.first, dy.second},
                   *dxs[2] = {dx.first, dx.second};
      for (int side = 0; side < 2; ++side) {
        ASSERT_EQ(amprt_layer_norm(rt.ctx, xs[side], gamma, beta, 1e-5,
                                   ys[side], mean[side], inv[side]),
                  AMPRT_OK)
            << amprt_last_error();
        ASSERT_EQ(amprt_layer_norm_grad(rt.ctx, dys[side], xs[side], gamma,
                                        mean[side], inv[side], dxs[side],
                                        dgamma[side], dbeta[side]),
                  AMPRT_OK)
            << amprt_last_error();
      }
      expectNarrowed(rt, y.first, y.second, "layer_norm y " + at);
      expectSameF32(rt, mean[0], mean[1], "layer_norm mean " + at);
      expectSameF32(rt, inv[0], inv[1], "layer_norm inv_std " + at);
      expectNarrowed(rt, dx.first, dx.second, "layer_norm_grad dx " + at);
      expectSameF32(rt, dgamma[0], dgamma[1], "layer_norm_grad dgamma " + at);
      expectSameF32(rt, dbeta[0], dbeta[1], "layer_norm_grad dbeta " + at);
    }
}

TEST(SixteenBitNorms, SoftmaxFamilyGivesTheNarrowedF32Bits) {
  using Forward = amprt_status (*)(amprt_context *, const amprt_tensor *,
                                   int64_t, amprt_tensor *);
  using Backward =
      amprt_status (*)(amprt_context *, const amprt_tensor *,
                       const amprt_tensor *, int64_t, amprt_tensor *);
  struct Kind {
    const char *name;
    Forward forward;
    Backward backward;
  } kinds[] = {{"softmax", amprt_softmax, amprt_softmax_grad},
               {"log_softmax", amprt_log_softmax, amprt_log_softmax_grad}};
  // Attention's last axis, a long last axis, and a middle axis.
  struct Case {
    Shape shape;
    int64_t axis;
  } cases[] = {{{32, 28, 28}, 2}, {{3, 7, 700}, 2}, {{4, 9, 6}, 1}};
  for (amprt_dtype low : kLowTypes)
    for (const Kind &kind : kinds)
      for (const Case &c : cases) {
        Runtime rt;
        std::string at = std::string(kind.name) + " " + dtypeName(low) +
                         " axis " + std::to_string(c.axis) + " of " +
                         std::to_string(c.shape[c.axis]);
        Operands ops{rt, low, {}, {}};
        auto x = ops.data(c.shape, 9), dy = ops.data(c.shape, 10);
        auto y = ops.result(c.shape), dx = ops.result(c.shape);
        ASSERT_EQ(kind.forward(rt.ctx, x.first, c.axis, y.first), AMPRT_OK)
            << amprt_last_error();
        ASSERT_EQ(kind.forward(rt.ctx, x.second, c.axis, y.second), AMPRT_OK)
            << amprt_last_error();
        expectNarrowed(rt, y.first, y.second, at);
        // The gradient reads the 16-bit y on both sides, widened for f32.
        Tensor yWide = rt.make(AMPRT_F32, c.shape, rt.read(y.first));
        ASSERT_EQ(kind.backward(rt.ctx, dy.first, y.first, c.axis, dx.first),
                  AMPRT_OK)
            << amprt_last_error();
        ASSERT_EQ(kind.backward(rt.ctx, dy.second, yWide, c.axis, dx.second),
                  AMPRT_OK)
            << amprt_last_error();
        expectNarrowed(rt, dx.first, dx.second, at + " grad");
      }
}
