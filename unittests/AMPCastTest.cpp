//===- AMPCastTest.cpp - amp.cast folding against IEEE conversion ---------===//
//
// Folds casts of random constants through the real op folder and compares
// every element with an independent f32 -> f16 conversion.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/InitAll.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <random>

using namespace mlir;

namespace {

/// Reference f32 -> f16 (binary16) bits with round-to-nearest-even,
/// written from the format definition rather than through APFloat.
uint16_t referenceHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  if (std::isnan(value))
    return sign | 0x7E00;
  float mag = std::fabs(value);
  if (mag >= 65520.0f) // Halfway between 65504 and 65536 rounds to inf.
    return sign | 0x7C00;
  if (mag < std::ldexp(1.0f, -14)) {
    // Subnormal: units of 2^-24, ties to even by nearbyint.
    float units = std::nearbyint(mag * std::ldexp(1.0f, 24));
    return sign | static_cast<uint16_t>(units);
  }
  int exp;
  float frac = std::frexp(mag, &exp); // mag = frac * 2^exp, frac in [0.5, 1)
  float mant = std::nearbyint(std::ldexp(frac, 11)); // 11 significant bits
  if (mant == 2048.0f) {
    mant = 1024.0f;
    ++exp;
  }
  uint16_t biased = static_cast<uint16_t>(exp - 1 + 15);
  return sign | static_cast<uint16_t>(biased << 10) |
         (static_cast<uint16_t>(mant) & 0x3FF);
}

class CastFoldTest : public ::testing::Test {
protected:
  CastFoldTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(CastFoldTest, ConstantsRoundToNearestEven) {
  std::mt19937 rng(7);
  std::vector<float> values;
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-30, 17);
  for (int i = 0; i < 4096; ++i)
    values.push_back(std::ldexp(unit(rng), scale(rng)));
  // Edge cases: ties, the largest f16, overflow, subnormals, signed zero.
  for (float v : {0.0f, -0.0f, 65504.0f, 65519.0f, 65520.0f, 1e6f, -1e6f,
                  1.00048828125f, 1.000732421875f, 5.9604645e-8f, 2.9802322e-8f,
                  8.940697e-8f, 6.1035156e-5f})
    values.push_back(v);

  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module.getBody());
  auto f32Type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                       builder.getF32Type());
  auto f16Type = f32Type.clone(builder.getF16Type());
  auto constant = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32Type, llvm::ArrayRef(values)));
  auto cast = amp::CastOp::create(builder, loc, f16Type, constant);

  SmallVector<OpFoldResult> folded;
  ASSERT_TRUE(succeeded(cast->fold(folded)));
  ASSERT_EQ(folded.size(), 1u);
  auto dense = dyn_cast<DenseFPElementsAttr>(
      llvm::dyn_cast_if_present<Attribute>(folded[0]));
  ASSERT_TRUE(dense);
  ASSERT_EQ(dense.getElementType(), builder.getF16Type());
  size_t i = 0;
  for (APFloat got : dense.getValues<APFloat>()) {
    uint16_t bits = got.bitcastToAPInt().getZExtValue();
    EXPECT_EQ(bits, referenceHalf(values[i])) << "value " << values[i];
    ++i;
  }
  module->erase();
}

TEST(ExactConversion, WideningOnly) {
  MLIRContext ctx;
  auto f16 = Float16Type::get(&ctx);
  auto bf16 = BFloat16Type::get(&ctx);
  auto f32 = Float32Type::get(&ctx);
  auto f64 = Float64Type::get(&ctx);
  EXPECT_TRUE(amp::isExactFloatConversion(f16, f32));
  EXPECT_TRUE(amp::isExactFloatConversion(bf16, f32));
  EXPECT_TRUE(amp::isExactFloatConversion(f32, f64));
  EXPECT_FALSE(amp::isExactFloatConversion(f32, f16));
  EXPECT_FALSE(amp::isExactFloatConversion(f16, bf16));
  EXPECT_FALSE(amp::isExactFloatConversion(bf16, f16));
}

} // namespace
