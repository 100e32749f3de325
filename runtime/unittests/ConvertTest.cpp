//===- ConvertTest.cpp - Bulk f16 <-> f32 conversion ----------------------===//
//
// The bulk conversions (AVX-512, F16C or scalar, whichever this CPU runs)
// give the scalar amprt_half.h conversion's bits for every half and a sweep
// of floats, at lengths that leave every tail size.
//
//===----------------------------------------------------------------------===//

#include "cpu/Convert.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace amprt;

namespace {

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(Convert, EveryHalfWidensToTheScalarBits) {
  std::vector<half_t> in(1 << 16);
  for (uint32_t i = 0; i < in.size(); ++i) {
    uint16_t bits = static_cast<uint16_t>(i);
    std::memcpy(&in[i], &bits, sizeof bits);
  }
  // Every length from 1 to 40 (all tails of 16- and 8-lane loops), then
  // all of them at once.
  for (int64_t n = 1; n <= 40; ++n) {
    std::vector<float> out(n);
    cpu::convert(in.data() + 1000, out.data(), n);
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(bitsOf(out[k]), bitsOf(halfToFloat(1000 + k)));
  }
  std::vector<float> out(in.size());
  cpu::convert(in.data(), out.data(), in.size());
  for (uint32_t i = 0; i < in.size(); ++i) {
    float expected = halfToFloat(static_cast<uint16_t>(i));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(out[i])) << i;
    else
      ASSERT_EQ(bitsOf(out[i]), bitsOf(expected)) << i;
  }
}

/// Every 4099th float pattern, with both signs of zero, infinities, the
/// half range's edges and the ties around them.
std::vector<float> floatSweep() {
  std::vector<float> in;
  for (uint64_t b = 0; b < (1ull << 32); b += 4099) {
    uint32_t bits = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (!std::isnan(f))
      in.push_back(f);
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, 65504.0f, 65520.0f,
                  65519.99f, -65520.0f, 6.1035156e-05f, 5.9604645e-08f,
                  2.9802322e-08f, 2.9802326e-08f})
    in.push_back(f);
  return in;
}

TEST(Convert, FloatsNarrowToTheScalarBits) {
  std::vector<float> in = floatSweep();
  for (int64_t n : {int64_t(1), int64_t(15), int64_t(17), int64_t(31),
                    static_cast<int64_t>(in.size())}) {
    std::vector<half_t> out(n);
    cpu::convert(in.data(), out.data(), n);
    for (int64_t k = 0; k < n; ++k) {
      uint16_t got;
      std::memcpy(&got, &out[k], sizeof got);
      ASSERT_EQ(got, floatToHalf(in[k])) << in[k];
    }
  }
}

// Rounding through a 16-bit type in registers (f32 operands of 16-bit
// products) gives the bits of narrowing and widening back.
TEST(Convert, RoundingThroughGivesNarrowThenWiden) {
  std::vector<float> in = floatSweep();
  for (int64_t n : {int64_t(1), int64_t(15), int64_t(17), int64_t(31),
                    static_cast<int64_t>(in.size())}) {
    std::vector<float> half(n), bf16(n);
    cpu::roundThrough(half_t(), in.data(), half.data(), n);
    cpu::roundThrough(bf16_t(), in.data(), bf16.data(), n);
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_EQ(bitsOf(half[k]), bitsOf(halfToFloat(floatToHalf(in[k]))))
          << in[k];
      ASSERT_EQ(bitsOf(bf16[k]), bitsOf(bf16ToFloat(floatToBf16(in[k]))))
          << in[k];
    }
  }
}

} // namespace
