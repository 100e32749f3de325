//===- TGShapesTest.cpp - Shape rules of the tg ops -----------------------===//

#include "amp/Dialect/TG/IR/TGShapes.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace amp::tg;
using llvm::SmallVector;

TEST(BroadcastShapes, FollowsNumPy) {
  using Shape = SmallVector<int64_t>;
  EXPECT_EQ(*broadcastShapes({4, 8}, {8}), (Shape{4, 8}));
  EXPECT_EQ(*broadcastShapes({4, 1}, {1, 8}), (Shape{4, 8}));
  EXPECT_EQ(*broadcastShapes({}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(*broadcastShapes({2, 1, 5}, {3, 1}), (Shape{2, 3, 5}));
  EXPECT_FALSE(broadcastShapes({4, 8}, {4}).has_value());
  EXPECT_FALSE(broadcastShapes({2, 3}, {3, 2}).has_value());
}

TEST(SlidingWindow, MatchesTheConvolutionFormula) {
  // (H + pads - d*(K-1) - 1) / s + 1
  EXPECT_EQ(slidingWindowSize(28, 3, 1, 1, 1, 1), 28);
  EXPECT_EQ(slidingWindowSize(28, 3, 2, 1, 1, 1), 14);
  EXPECT_EQ(slidingWindowSize(27, 3, 2, 1, 1, 1), 14);
  EXPECT_EQ(slidingWindowSize(32, 5, 2, 2, 0, 0), 12);
  EXPECT_EQ(slidingWindowSize(28, 2, 2, 1, 0, 0), 14);
  EXPECT_EQ(slidingWindowSize(2, 3, 1, 1, 0, 0), 0);
  // Every window start must fit: brute-force count agrees.
  for (int64_t size = 1; size < 12; ++size)
    for (int64_t k = 1; k < 5; ++k)
      for (int64_t s = 1; s < 4; ++s)
        for (int64_t d = 1; d < 3; ++d)
          for (int64_t p = 0; p < 3; ++p) {
            int64_t count = 0;
            for (int64_t start = 0; start + d * (k - 1) < size + 2 * p;
                 start += s)
              ++count;
            EXPECT_EQ(slidingWindowSize(size, k, s, d, p, p), count)
                << size << " " << k << " " << s << " " << d << " " << p;
          }
}

TEST(Layout, ChannelDims) {
  EXPECT_EQ(*getChannelDim(4, Layout::NHWC), 3u);
  EXPECT_EQ(*getChannelDim(4, Layout::NCHW), 1u);
  EXPECT_EQ(*getChannelDim(2, Layout::NCHW), 1u);
  EXPECT_EQ(*getChannelDim(2, Layout::NHWC), 1u);
  EXPECT_FALSE(getChannelDim(1, Layout::NHWC).has_value());
}

TEST(Layout, NamesAreTheSpecSpelling) {
  EXPECT_EQ(symbolizeLayout("NHWC"), Layout::NHWC);
  EXPECT_EQ(symbolizeLayout("NCHW"), Layout::NCHW);
  EXPECT_FALSE(symbolizeLayout("CHWN").has_value());
  EXPECT_FALSE(symbolizeLayout("nhwc").has_value());
  EXPECT_EQ(stringifyLayout(Layout::NCHW), "NCHW");
}

TEST(Enums, EveryNameRoundTrips) {
  for (const char *name : {"eq", "ne", "lt", "le", "gt", "ge"})
    EXPECT_EQ(stringifyComparisonDirection(*symbolizeComparisonDirection(name)),
              name);
  EXPECT_FALSE(symbolizeComparisonDirection("GE").has_value());
  for (const char *name : {"param", "opt_state", "input", "label", "lr",
                           "loss_scale", "good_steps", "loss", "logits",
                           "output", "communicator", "amax_history"})
    EXPECT_EQ(stringifyRole(*symbolizeRole(name)), name);
  EXPECT_FALSE(symbolizeRole("params").has_value());
  // The roles a step both takes and returns are the ones hosts carry.
  EXPECT_TRUE(isCarriedRole(Role::Param));
  EXPECT_TRUE(isCarriedRole(Role::LossScale));
  EXPECT_TRUE(isCarriedRole(Role::AmaxHistory));
  EXPECT_FALSE(isCarriedRole(Role::Communicator));
  EXPECT_FALSE(isCarriedRole(Role::Input));
  EXPECT_FALSE(isCarriedRole(Role::Loss));
  EXPECT_FALSE(isArgumentRole(Role::Logits));
  EXPECT_FALSE(isResultRole(Role::LearningRate));
}

TEST(Conv2D, InfersOutputTypeForBothLayouts) {
  mlir::MLIRContext ctx;
  auto f32 = mlir::Float32Type::get(&ctx);
  auto nhwc = mlir::RankedTensorType::get({8, 28, 28, 1}, f32);
  auto ohwi = mlir::RankedTensorType::get({16, 3, 3, 1}, f32);
  auto y = inferConv2DType(std::nullopt, "tg.conv2d", nhwc, ohwi, {2, 2},
                           {1, 1, 1, 1}, {1, 1}, Layout::NHWC);
  ASSERT_TRUE(mlir::succeeded(y));
  EXPECT_EQ(y->getShape(), llvm::ArrayRef<int64_t>({8, 14, 14, 16}));

  auto nchw = mlir::RankedTensorType::get({8, 3, 32, 32}, f32);
  auto oihw = mlir::RankedTensorType::get({8, 3, 5, 5}, f32);
  auto z = inferConv2DType(std::nullopt, "tg.conv2d", nchw, oihw, {1, 1},
                           {0, 0, 0, 0}, {1, 1}, Layout::NCHW);
  ASSERT_TRUE(mlir::succeeded(z));
  EXPECT_EQ(z->getShape(), llvm::ArrayRef<int64_t>({8, 8, 28, 28}));

  // Mismatched channels fail without a location (nothing is emitted).
  auto bad = mlir::RankedTensorType::get({16, 3, 3, 2}, f32);
  EXPECT_TRUE(
      mlir::failed(inferConv2DType(std::nullopt, "tg.conv2d", nhwc, bad, {1, 1},
                                   {0, 0, 0, 0}, {1, 1}, Layout::NHWC)));
}

TEST(Stats, AreF32UnlessReferenceF64) {
  mlir::MLIRContext ctx;
  EXPECT_TRUE(getStatsElementType(mlir::Float16Type::get(&ctx)).isF32());
  EXPECT_TRUE(getStatsElementType(mlir::BFloat16Type::get(&ctx)).isF32());
  EXPECT_TRUE(getStatsElementType(mlir::Float32Type::get(&ctx)).isF32());
  EXPECT_TRUE(getStatsElementType(mlir::Float64Type::get(&ctx)).isF64());
}
