//===- Fp8OpsTest.cpp - The FP8 entry points of the C API -----------------===//
//
// amprt_quantize / dequantize / amax / fp8_scale / record_amax on the CPU
// backend: every FP8 code read back at a scale, the scale applied before
// rounding, the delayed-scaling rule and the history, and the refusals.
// The conversions themselves are checked against an independent reference
// in Fp8ConversionTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/amprt_fp8.h"

using namespace amprt_test;

namespace {

std::vector<uint8_t> readBytes(amprt_tensor *t) {
  std::vector<uint8_t> bytes(amprt_tensor_numel(t));
  EXPECT_EQ(amprt_tensor_read(t, bytes.data(), bytes.size()), AMPRT_OK);
  return bytes;
}

template <typename Format> void checkEveryCode(amprt_dtype dtype) {
  Runtime rt;
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i)
    codes[i] = (uint8_t)i;
  Tensor q = rt.make(dtype, {256});
  ASSERT_EQ(amprt_tensor_write(q, codes.data(), codes.size()), AMPRT_OK);
  Tensor scale = rt.make(AMPRT_F32, {}, {1.0 / 8});
  for (amprt_dtype to : {AMPRT_F32, AMPRT_BF16}) {
    Tensor y = rt.make(to, {256});
    ASSERT_EQ(amprt_dequantize(rt.ctx, q, scale, y), AMPRT_OK)
        << amprt_last_error();
    std::vector<double> got = rt.read(y);
    for (int i = 0; i < 256; ++i) {
      double want = (double)amprt::fp8ToFloat<Format>((uint8_t)i) * 8;
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got[i])) << "code " << i;
      else // exact: a power-of-two scale and at most 4 significant bits
        EXPECT_EQ(got[i], want) << "code " << i << " to dtype " << to;
    }
    // And back: quantizing the read-back values gives every code again
    // (NaN codes give the format's one NaN of that sign).
    Tensor again = rt.make(dtype, {256});
    ASSERT_EQ(amprt_quantize(rt.ctx, y, scale, again), AMPRT_OK);
    std::vector<uint8_t> back = readBytes(again);
    for (int i = 0; i < 256; ++i)
      if (!std::isnan(got[i])) {
        EXPECT_EQ(back[i], i) << "code " << i;
      }
  }
}

TEST(RuntimeFp8, EveryCodeRoundTripsAtAScale) {
  checkEveryCode<amprt::E4M3FN>(AMPRT_F8E4M3FN);
  checkEveryCode<amprt::E5M2>(AMPRT_F8E5M2);
}

TEST(RuntimeFp8, QuantizeScalesThenRoundsAndSaturates) {
  Runtime rt;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 40.0f);
  std::vector<double> values(4096);
  for (double &v : values)
    v = normal(rng);
  values[0] = 1e6; // past 448 * 4: saturates
  values[1] = -1e6;
  values[2] = 1e-9; // underflows to zero
  Tensor x = rt.make(AMPRT_F32, {4096}, values);
  Tensor scale = rt.make(AMPRT_F32, {}, {4.0});
  for (amprt_dtype dtype : {AMPRT_F8E4M3FN, AMPRT_F8E5M2}) {
    Tensor q = rt.make(dtype, {4096});
    ASSERT_EQ(amprt_quantize(rt.ctx, x, scale, q), AMPRT_OK)
        << amprt_last_error();
    std::vector<uint8_t> got = readBytes(q);
    for (size_t i = 0; i < values.size(); ++i) {
      float scaled = (float)values[i] * 4.0f;
      uint8_t want = dtype == AMPRT_F8E4M3FN
                         ? amprt::floatToFp8<amprt::E4M3FN>(scaled)
                         : amprt::floatToFp8<amprt::E5M2>(scaled);
      ASSERT_EQ(got[i], want) << "element " << i;
    }
    EXPECT_EQ(got[0], dtype == AMPRT_F8E4M3FN ? 0x7E : 0x7B); // max finite
    EXPECT_EQ(got[1], dtype == AMPRT_F8E4M3FN ? 0xFE : 0xFB);
    EXPECT_EQ(got[2] & 0x7F, 0);
  }
  // bf16 input: the same bits as its f32 value.
  Tensor xb = rt.make(AMPRT_BF16, {3}, {1.5, -0.3125, 100.0});
  Tensor qb = rt.make(AMPRT_F8E4M3FN, {3});
  ASSERT_EQ(amprt_quantize(rt.ctx, xb, scale, qb), AMPRT_OK);
  std::vector<uint8_t> got = readBytes(qb);
  EXPECT_EQ(amprt::fp8ToFloat<amprt::E4M3FN>(got[0]), 6.0f);
  EXPECT_EQ(amprt::fp8ToFloat<amprt::E4M3FN>(got[1]), -1.25f);
  // 400 lies halfway between 384 (even mantissa) and 416.
  EXPECT_EQ(amprt::fp8ToFloat<amprt::E4M3FN>(got[2]), 384.0f);
}

TEST(RuntimeFp8, Amax) {
  Runtime rt;
  Tensor amax = rt.make(AMPRT_F32, {});
  std::vector<double> values(10000);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin((double)i) * (double)i;
  values[7777] = -20000.5;
  Tensor x = rt.make(AMPRT_F32, {100, 100}, values);
  ASSERT_EQ(amprt_amax(rt.ctx, x, amax), AMPRT_OK) << amprt_last_error();
  EXPECT_EQ(rt.read(amax)[0], 20000.5);
  Tensor h = rt.make(AMPRT_F16, {3}, {-2.0, 1.0, -65504.0});
  ASSERT_EQ(amprt_amax(rt.ctx, h, amax), AMPRT_OK);
  EXPECT_EQ(rt.read(amax)[0], 65504.0);
  Tensor withNan = rt.make(AMPRT_BF16, {3}, {1.0, NAN, 3.0});
  ASSERT_EQ(amprt_amax(rt.ctx, withNan, amax), AMPRT_OK);
  EXPECT_TRUE(std::isnan(rt.read(amax)[0]));
}

TEST(RuntimeFp8, DelayedScaleAndHistory) {
  Runtime rt;
  Tensor scale = rt.make(AMPRT_F32, {});
  auto scaleOf = [&](std::vector<double> history, amprt_dtype format,
                     int64_t margin) {
    Tensor h = rt.make(AMPRT_F32, {(int64_t)history.size()}, history);
    EXPECT_EQ(amprt_fp8_scale(rt.ctx, h, format, margin, scale), AMPRT_OK)
        << amprt_last_error();
    return rt.read(scale)[0];
  };
  EXPECT_EQ(scaleOf({3.5, 1.0, 0.0}, AMPRT_F8E4M3FN, 0), 128.0);
  EXPECT_EQ(scaleOf({3.5, 1.0, 0.0}, AMPRT_F8E4M3FN, 2), 32.0);
  EXPECT_EQ(scaleOf({448.0}, AMPRT_F8E4M3FN, 0), 1.0); // fits exactly
  EXPECT_EQ(scaleOf({448.5}, AMPRT_F8E4M3FN, 0), 0.5);
  EXPECT_EQ(scaleOf({3.6}, AMPRT_F8E5M2, 0), 8192.0);
  EXPECT_EQ(scaleOf({0.0, 0.0}, AMPRT_F8E4M3FN, 0), 1.0); // first step
  EXPECT_EQ(scaleOf({1e-40}, AMPRT_F8E4M3FN, 0), std::ldexp(1.0, 126));
  EXPECT_EQ(scaleOf({3e38}, AMPRT_F8E5M2, 0), std::ldexp(1.0, -113));

  Tensor h = rt.make(AMPRT_F32, {4}, {4, 3, 2, 1});
  Tensor h2 = rt.make(AMPRT_F32, {4});
  Tensor a = rt.make(AMPRT_F32, {}, {9.0});
  ASSERT_EQ(amprt_record_amax(rt.ctx, h, a, h2), AMPRT_OK)
      << amprt_last_error();
  EXPECT_EQ(rt.read(h2), (std::vector<double>{9, 4, 3, 2}));
  // An overflowed step leaves the history as it was.
  for (double bad : {(double)INFINITY, (double)NAN}) {
    Tensor b = rt.make(AMPRT_F32, {}, {bad});
    ASSERT_EQ(amprt_record_amax(rt.ctx, h, b, h2), AMPRT_OK);
    EXPECT_EQ(rt.read(h2), (std::vector<double>{4, 3, 2, 1}));
  }
}

// The FP8 GEMM computes exactly what dequantizing and multiplying does.
TEST(RuntimeFp8, ScaledMatmulEqualsDequantizeThenMatmul) {
  Runtime rt;
  for (bool batched : {false, true}) {
    Shape as = batched ? Shape{3, 7, 5} : Shape{7, 5};
    Shape bs = batched ? Shape{3, 6, 5} : Shape{6, 5}; // transpose_b
    Shape cs = batched ? Shape{3, 7, 6} : Shape{7, 6};
    auto values = [](size_t n, double amplitude) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i)
        v[i] = amplitude * std::sin(0.7 * (double)i + 0.3);
      return v;
    };
    size_t na = 1, nb = 1;
    for (int64_t d : as)
      na *= d;
    for (int64_t d : bs)
      nb *= d;
    Tensor x = rt.make(AMPRT_F32, as, values(na, 30));
    Tensor w = rt.make(AMPRT_F32, bs, values(nb, 0.02));
    Tensor sa = rt.make(AMPRT_F32, {}, {8.0});
    Tensor sb = rt.make(AMPRT_F32, {}, {16384.0});
    Tensor qa = rt.make(AMPRT_F8E4M3FN, as), qb = rt.make(AMPRT_F8E5M2, bs);
    ASSERT_EQ(amprt_quantize(rt.ctx, x, sa, qa), AMPRT_OK);
    ASSERT_EQ(amprt_quantize(rt.ctx, w, sb, qb), AMPRT_OK);
    for (amprt_dtype out : {AMPRT_BF16, AMPRT_F32}) {
      Tensor da = rt.make(out, as), db = rt.make(out, bs);
      ASSERT_EQ(amprt_dequantize(rt.ctx, qa, sa, da), AMPRT_OK);
      ASSERT_EQ(amprt_dequantize(rt.ctx, qb, sb, db), AMPRT_OK);
      Tensor want = rt.make(out, cs), got = rt.make(out, cs);
      ASSERT_EQ(batched ? amprt_batch_matmul(rt.ctx, da, db, 0, 1, want)
                        : amprt_matmul(rt.ctx, da, db, 0, 1, want),
                AMPRT_OK);
      ASSERT_EQ(amprt_scaled_matmul(rt.ctx, qa, sa, qb, sb, 0, 1, got),
                AMPRT_OK)
          << amprt_last_error();
      EXPECT_EQ(rt.read(got), rt.read(want));
    }
  }
  Tensor q = rt.make(AMPRT_F8E4M3FN, {2, 3}), s = rt.make(AMPRT_F32, {}, {1});
  Tensor f = rt.make(AMPRT_F32, {3, 2}), c = rt.make(AMPRT_F32, {2, 2});
  EXPECT_EQ(amprt_scaled_matmul(rt.ctx, q, s, f, s, 0, 0, c),
            AMPRT_ERROR_DTYPE);
  Tensor q2 = rt.make(AMPRT_F8E4M3FN, {4, 2});
  EXPECT_EQ(amprt_scaled_matmul(rt.ctx, q, s, q2, s, 0, 0, c),
            AMPRT_ERROR_SHAPE)
      << amprt_last_error();
}

TEST(RuntimeFp8, Refusals) {
  Runtime rt;
  Tensor x = rt.make(AMPRT_F32, {4}, {1, 2, 3, 4});
  Tensor s = rt.make(AMPRT_F32, {}, {1.0});
  Tensor q = rt.make(AMPRT_F8E4M3FN, {4});
  Tensor wrongShape = rt.make(AMPRT_F8E4M3FN, {5});
  Tensor f16 = rt.make(AMPRT_F16, {4});
  Tensor f64 = rt.make(AMPRT_F64, {4});
  EXPECT_EQ(amprt_quantize(rt.ctx, x, s, f16), AMPRT_ERROR_DTYPE);
  EXPECT_NE(std::string(amprt_last_error()).find("f8E4M3FN or f8E5M2"),
            std::string::npos);
  EXPECT_EQ(amprt_quantize(rt.ctx, f64, s, q), AMPRT_ERROR_DTYPE);
  EXPECT_EQ(amprt_quantize(rt.ctx, x, s, wrongShape), AMPRT_ERROR_SHAPE);
  EXPECT_EQ(amprt_quantize(rt.ctx, x, x, q), AMPRT_ERROR_SHAPE);
  EXPECT_EQ(amprt_dequantize(rt.ctx, x, s, f16), AMPRT_ERROR_DTYPE);
  EXPECT_EQ(amprt_dequantize(rt.ctx, q, s, f64), AMPRT_ERROR_DTYPE);
  EXPECT_EQ(amprt_amax(rt.ctx, q, s), AMPRT_ERROR_DTYPE);
  Tensor h = rt.make(AMPRT_F32, {4}, {0, 0, 0, 0});
  EXPECT_EQ(amprt_fp8_scale(rt.ctx, h, AMPRT_F16, 0, s),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_fp8_scale(rt.ctx, h, AMPRT_F8E5M2, 65, s),
            AMPRT_ERROR_INVALID_ARGUMENT);
  Tensor matrix = rt.make(AMPRT_F32, {2, 2});
  EXPECT_EQ(amprt_fp8_scale(rt.ctx, matrix, AMPRT_F8E5M2, 0, s),
            AMPRT_ERROR_DTYPE);
  EXPECT_EQ(amprt_record_amax(rt.ctx, h, s, h), AMPRT_ERROR_INVALID_ARGUMENT);
}

} // namespace
