//===- Fp8ConversionTest.cpp - FP8 conversions against APFloat ------------===//
//
// amprt_fp8.h's conversions, bit for bit, against LLVM's APFloat (an
// independent implementation of the same formats): every one of the 256
// codes of each format decodes to APFloat's value and encodes back to
// itself, and 2^20 f32 bit patterns spread over every exponent, both
// signs, NaN and inf, with exact ties among them, encode as APFloat rounds
// (nearest-even) with amp's saturation on top.
//
//===----------------------------------------------------------------------===//

#include "common/amprt_fp8.h"
#include "llvm/ADT/APFloat.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace amprt;
using llvm::APFloat;

namespace {

template <typename Format> const llvm::fltSemantics &semantics() {
  return Format::kHasInfinity ? APFloat::Float8E5M2() : APFloat::Float8E4M3FN();
}

/// What amp's encoding must give for `f`: APFloat's nearest-even result,
/// with a finite value past the largest finite one saturating.
template <typename Format> uint8_t reference(float f) {
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  if (std::isnan(f))
    return sign | Format::kNaN;
  if (std::isinf(f))
    return sign | (Format::kHasInfinity ? Format::kInfinity : Format::kNaN);
  APFloat value(f);
  bool losesInfo = false;
  APFloat::opStatus status = value.convert(
      semantics<Format>(), APFloat::rmNearestTiesToEven, &losesInfo);
  if ((status & APFloat::opOverflow) || value.isInfinity() || value.isNaN())
    return sign | Format::kMaxFinite;
  return (uint8_t)value.bitcastToAPInt().getZExtValue();
}

template <typename Format> void checkEveryCode() {
  for (unsigned code = 0; code < 256; ++code) {
    APFloat ref(semantics<Format>(), llvm::APInt(8, code));
    float decoded = fp8ToFloat<Format>((uint8_t)code);
    if (ref.isNaN()) {
      EXPECT_TRUE(std::isnan(decoded)) << "code " << code;
      EXPECT_TRUE(std::isnan(fp8ToFloat<Format>(floatToFp8<Format>(decoded))));
      continue;
    }
    bool losesInfo = false;
    ref.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
    ASSERT_FALSE(losesInfo);
    EXPECT_EQ(floatBits(decoded), floatBits(ref.convertToFloat()))
        << "code " << code;
    EXPECT_EQ(floatToFp8<Format>(decoded), code) << "round trip of " << code;
  }
}

template <typename Format> void checkFloatPatterns() {
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < (1u << 20); ++i) {
    // The top 20 bits walk every sign, exponent and high mantissa; the low
    // 12 are zero for even i (exact ties between FP8 values are among
    // them) and scrambled for odd i.
    uint32_t low = (i & 1) ? ((i * 2654435761u) >> 20) & 0xFFFu : 0u;
    float f = bitsFloat((i << 12) | low);
    uint8_t got = floatToFp8<Format>(f), want = reference<Format>(f);
    bool same = got == want || (std::isnan(fp8ToFloat<Format>(got)) &&
                                std::isnan(fp8ToFloat<Format>(want)));
    if (!same && ++mismatches <= 5)
      ADD_FAILURE() << "f32 bits 0x" << std::hex << floatBits(f) << " (" << f
                    << "): got 0x" << (unsigned)got << ", want 0x"
                    << (unsigned)want;
  }
  EXPECT_EQ(mismatches, 0u);
}

} // namespace

TEST(Fp8Conversion, E4M3FNEveryCode) { checkEveryCode<E4M3FN>(); }
TEST(Fp8Conversion, E5M2EveryCode) { checkEveryCode<E5M2>(); }
TEST(Fp8Conversion, E4M3FNFloatPatterns) { checkFloatPatterns<E4M3FN>(); }
TEST(Fp8Conversion, E5M2FloatPatterns) { checkFloatPatterns<E5M2>(); }

TEST(Fp8Conversion, SaturatesAndKeepsSpecials) {
  EXPECT_EQ(floatToFp8<E4M3FN>(1e6f), 0x7E) << "448";
  EXPECT_EQ(floatToFp8<E4M3FN>(-1e6f), 0xFE);
  EXPECT_EQ(floatToFp8<E4M3FN>(464.0f), 0x7E) << "a tie rounds to even 448";
  EXPECT_EQ(floatToFp8<E4M3FN>(INFINITY), 0x7F) << "no inf: NaN";
  EXPECT_EQ(floatToFp8<E5M2>(1e6f), 0x7B) << "57344";
  EXPECT_EQ(floatToFp8<E5M2>(-INFINITY), 0xFC);
  EXPECT_EQ(fp8ToFloat<E4M3FN>(0x7E), 448.0f);
  EXPECT_EQ(fp8ToFloat<E5M2>(0x7B), 57344.0f);
  EXPECT_EQ(fp8ToFloat<E4M3FN>(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(fp8ToFloat<E5M2>(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(floatToFp8<E4M3FN>(std::ldexp(1.0f, -11)), 0x00)
      << "a quarter of the smallest subnormal rounds to zero";
  EXPECT_EQ(floatToFp8<E4M3FN>(-0.0f), 0x80);
}
