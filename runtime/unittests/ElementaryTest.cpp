//===- ElementaryTest.cpp - The f32 exp, log, tanh, erf and pow -----------===//
//
// common/amprt_elementary.h's functions (every f32 unary op, softmax, GELU
// and their gradients; the device compiles the same lines) against
// glibc's f64 function rounded to f32, in ulp, over a sample of every
// float, and at the values where a polynomial's range reduction or a
// select could go wrong: signed zeros, infinities, NaN (quiet, signalling,
// either sign: the sanitizer build checks that no NaN reaches an undefined
// shift), subnormals, overflow.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/amprt_elementary.h"
#include "common/amprt_math.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace {

/// The float with these bits.
float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// Floats in order as integers: adjacent floats differ by 1, -0 and +0 by
/// nothing.
int64_t ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}

/// How many floats apart `got` is from `ref` rounded to f32.
int64_t ulpFrom(float got, double ref) {
  int64_t d = ordered(got) - ordered((float)ref);
  return d < 0 ? -d : d;
}

/// `x` and every `stride`-th float of both signs from 0 to infinity.
std::vector<float> withEveryNthFloat(std::vector<float> x, uint32_t stride) {
  for (uint64_t bits = 0; bits <= 0x7f800000u; bits += stride)
    for (uint32_t sign : {0u, 0x80000000u})
      x.push_back(fromBits((uint32_t)bits | sign));
  return x;
}

/// What `run(ctx, in, out)` writes into out given an f32 tensor `in` of
/// x's values (out as large).
template <typename Run>
std::vector<float> onF32Tensor(amprt_test::Runtime &rt,
                               const std::vector<float> &x, Run run) {
  int64_t n = (int64_t)x.size();
  amprt_test::Tensor in = rt.make(AMPRT_F32, {n}),
                     out = rt.make(AMPRT_F32, {n});
  std::vector<float> y(n);
  EXPECT_EQ(amprt_tensor_write(in, x.data(), n * sizeof(float)), AMPRT_OK);
  EXPECT_EQ(run(rt.ctx, in, out), AMPRT_OK) << amprt_last_error();
  EXPECT_EQ(amprt_tensor_read(out, y.data(), n * sizeof(float)), AMPRT_OK);
  return y;
}

/// The largest distance in ulp between fn and ref (f64, rounded to f32)
/// over every `stride`-th float of both signs, finite and infinite;
/// where ref is NaN, fn must be NaN too (a distance of 2^32 otherwise).
int64_t worstUlp(float (*fn)(float), double (*ref)(double), uint32_t stride) {
  int64_t worst = 0;
  for (uint64_t bits = 0; bits <= 0x7f800000u; bits += stride)
    for (uint32_t sign : {0u, 0x80000000u}) {
      float x = fromBits((uint32_t)bits | sign);
      float want = (float)ref((double)x), got = fn(x);
      if (std::isnan(want) || std::isnan(got)) {
        worst = std::isnan(want) == std::isnan(got) ? worst : INT64_C(1) << 32;
        continue;
      }
      worst = std::max(worst, ulpFrom(got, want));
    }
  return worst;
}

/// Bits and all: +0 and -0 differ, NaN equals NaN.
bool sameFloat(float got, float want) {
  if (std::isnan(want))
    return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}
void expectSameFloat(float got, float want) {
  EXPECT_TRUE(sameFloat(got, want)) << got << " where " << want;
}

// e^x on every float: 1 ulp (every float was checked once; 2^32 / 257
// here), subnormal results, overflow to +inf.
TEST(RuntimeElementary, ExpWithinOneUlp) {
  EXPECT_LE(worstUlp(
                amprt::m_exp, [](double x) { return std::exp(x); }, 257),
            1);
  expectSameFloat(amprt::m_exp(0.0f), 1.0f);
  expectSameFloat(amprt::m_exp(-0.0f), 1.0f);
  expectSameFloat(amprt::m_exp(1.0f), (float)M_E);
  expectSameFloat(amprt::m_exp(-INFINITY), 0.0f);
  expectSameFloat(amprt::m_exp(INFINITY), INFINITY);
  expectSameFloat(amprt::m_exp(89.0f), INFINITY);
  expectSameFloat(amprt::m_exp(NAN), NAN);
  // The largest finite result and subnormal ones, down to the smallest.
  for (float x : {88.72283f, -88.0f, -100.0f, -103.9f})
    EXPECT_LE(ulpFrom(amprt::m_exp(x), std::exp((double)x)), 1) << x;
  EXPECT_LT(amprt::m_exp(88.72283f), INFINITY);
  EXPECT_GT(amprt::m_exp(-103.9f), 0.0f);
  expectSameFloat(amprt::m_exp(-104.0f), 0.0f);
}

// The softmaxes' e^x for x <= 0: 1 ulp on [-87, 0], 0 below.
TEST(RuntimeElementary, ExpOfNonPositiveWithinOneUlp) {
  int64_t worst = 0;
  for (uint32_t bits = 0x80000000u; bits <= 0xC2AE0000u; bits += 97) {
    float x = fromBits(bits);
    worst = std::max(worst,
                     ulpFrom(amprt::m_expNonPositive(x), std::exp((double)x)));
  }
  EXPECT_LE(worst, 1);
  expectSameFloat(amprt::m_expNonPositive(0.0f), 1.0f);
  expectSameFloat(amprt::m_expNonPositive(-0.0f), 1.0f);
  EXPECT_LE(ulpFrom(amprt::m_expNonPositive(-87.0f), std::exp(-87.0)), 1);
  expectSameFloat(amprt::m_expNonPositive(-87.00001f), 0.0f);
  expectSameFloat(amprt::m_expNonPositive(-88.0f), 0.0f);
  expectSameFloat(amprt::m_expNonPositive(-INFINITY), 0.0f);
  expectSameFloat(amprt::m_expNonPositive(NAN), NAN);
  // Where both are defined, the same bits as m_exp: one reduction.
  for (float x : {-86.5f, -10.25f, -1.0f, -0.125f, -1e-6f})
    expectSameFloat(amprt::m_expNonPositive(x), amprt::m_exp(x));
}

// log x on every float: 1 ulp, subnormal inputs, -inf at zero, NaN below.
TEST(RuntimeElementary, LogWithinOneUlp) {
  EXPECT_LE(worstUlp(
                amprt::m_log, [](double x) { return std::log(x); }, 257),
            1);
  expectSameFloat(amprt::m_log(1.0f), 0.0f);
  expectSameFloat(amprt::m_log(0.0f), -INFINITY);
  expectSameFloat(amprt::m_log(-0.0f), -INFINITY);
  expectSameFloat(amprt::m_log(INFINITY), INFINITY);
  expectSameFloat(amprt::m_log(-1.0f), NAN);
  expectSameFloat(amprt::m_log(-INFINITY), NAN);
  expectSameFloat(amprt::m_log(NAN), NAN);
  expectSameFloat(amprt::m_log(FLT_MAX), (float)std::log((double)FLT_MAX));
  for (float x : {FLT_MIN, FLT_TRUE_MIN, 3e-42f, FLT_MIN / 2})
    expectSameFloat(amprt::m_log(x), (float)std::log((double)x));
  // Just either side of sqrt(2) and sqrt(1/2), where the reduction
  // borrows from the exponent.
  for (uint32_t bits : {0x3fb504f2u, 0x3fb504f3u, 0x3f3504f2u, 0x3f3504f3u})
    EXPECT_LE(
        ulpFrom(amprt::m_log(fromBits(bits)), std::log((double)fromBits(bits))),
        1);
}

// tanh x on every float: 1 ulp, -0 kept, +-1 at the infinities.
TEST(RuntimeElementary, TanhWithinOneUlp) {
  EXPECT_LE(worstUlp(
                amprt::m_tanh, [](double x) { return std::tanh(x); }, 257),
            1);
  expectSameFloat(amprt::m_tanh(0.0f), 0.0f);
  expectSameFloat(amprt::m_tanh(-0.0f), -0.0f);
  expectSameFloat(amprt::m_tanh(INFINITY), 1.0f);
  expectSameFloat(amprt::m_tanh(-INFINITY), -1.0f);
  expectSameFloat(amprt::m_tanh(50.0f), 1.0f);
  expectSameFloat(amprt::m_tanh(NAN), NAN);
  expectSameFloat(amprt::m_tanh(FLT_TRUE_MIN), FLT_TRUE_MIN);
  // Either side of the switch from the polynomial to the exponential.
  for (float x : {0.62499994f, 0.625f, -0.62499994f, -0.625f})
    EXPECT_LE(ulpFrom(amprt::m_tanh(x), std::tanh((double)x)), 1);
}

// The f32 erf behind tg.erf and GELU (and its gradient): within 8 ulp of
// the correctly rounded erf, exact at the ends.
TEST(RuntimeElementary, ErfWithinEightUlp) {
  EXPECT_LE(worstUlp(
                amprt::m_erf, [](double x) { return std::erf(x); }, 4099),
            8);
  expectSameFloat(amprt::m_erf(0.0f), 0.0f);
  expectSameFloat(amprt::m_erf(INFINITY), 1.0f);
  expectSameFloat(amprt::m_erf(-INFINITY), -1.0f);
  EXPECT_FLOAT_EQ(amprt::m_erf(1e-30f), (float)std::erf(1e-30));
  expectSameFloat(amprt::m_erf(NAN), NAN);
}

// pow's exponents 0, 1, 2, -1 and 1/2 are correctly rounded, signed zeros,
// infinities and NaN as pow's (f64 pow rounded once to f32 is correctly
// rounded for these: exact, or 53 bits then 24); any other exponent is
// powf's.
TEST(RuntimeElementary, PowSingledOutExponentsAreCorrectlyRounded) {
  std::vector<float> x =
      withEveryNthFloat({0.f, -0.f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f,
                         FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, 3.0f, -2.25f, 1e-30f},
                        4099);
  for (float b : {0.0f, -0.0f, 1.0f, 2.0f, -1.0f, 0.5f})
    for (float v : x) {
      float want = (float)std::pow((double)v, (double)b);
      ASSERT_TRUE(sameFloat(amprt::m_pow(v, b), want)) << v << " ^ " << b;
    }
  for (float b : {3.0f, 0.3f, -2.5f, -0.5f, NAN, INFINITY})
    for (float v : x)
      ASSERT_TRUE(sameFloat(amprt::m_pow(v, b), powf(v, b))) << v << " ^ " << b;
}

// Every NaN, quiet or signalling, of either sign, gives a quiet NaN: no
// NaN's bits become an exponent (a shift the sanitizer build refuses);
// a^0 is 1 for every a, NaN too.
TEST(RuntimeElementary, NansGiveQuietNans) {
  for (uint32_t bits : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                        0x7fffffffu, 0xffffffffu, 0x7fa00000u}) {
    float x = fromBits(bits);
    for (float y :
         {amprt::m_exp(x), amprt::m_log(x), amprt::m_tanh(x), amprt::m_erf(x),
          amprt::m_pow(x, 1.0f), amprt::m_pow(x, 2.0f), amprt::m_pow(x, -1.0f),
          amprt::m_pow(x, 0.5f), amprt::m_pow(x, 3.0f),
          amprt::m_pow(1.5f, x)}) {
      uint32_t out;
      std::memcpy(&out, &y, sizeof out);
      EXPECT_TRUE(std::isnan(y)) << std::hex << bits;
      EXPECT_TRUE(out & 0x00400000u) << "signalling: " << std::hex << out;
    }
    expectSameFloat(amprt::m_pow(x, 0.0f), 1.0f);
  }
}

// The f32 unary ops run these functions in vectorised loops: element by
// element the bits of the scalar formulas, for the special values, the
// subnormals and floats of every magnitude (random bits), with a tail past
// any vector width.
TEST(RuntimeElementary, UnaryOpsGiveTheScalarBits) {
  std::vector<float> x = {
      0.f,          -0.f,          INFINITY, -INFINITY, NAN,      -NAN,
      FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN,  FLT_MAX,   -FLT_MAX, 88.72283f,
      89.f,         -103.9f,       -104.f,   0.625f,    -0.625f,  0.62499994f};
  std::mt19937 rng(7);
  while (x.size() < 1037)
    x.push_back(fromBits(rng()));
  amprt_test::Runtime rt;
  using UnaryFn =
      amprt_status (*)(amprt_context *, const amprt_tensor *, amprt_tensor *);
  const std::pair<UnaryFn, amprt::Unary> ops[] = {
      {amprt_exp, amprt::Unary::Exp},
      {amprt_log, amprt::Unary::Log},
      {amprt_tanh, amprt::Unary::Tanh},
      {amprt_sigmoid, amprt::Unary::Sigmoid},
      {amprt_silu, amprt::Unary::Silu}};
  for (auto [fn, kind] : ops) {
    std::vector<float> y = onF32Tensor(rt, x, fn);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_TRUE(sameFloat(y[i], amprt::applyUnary<float>(kind, x[i], 0.f)))
          << "op " << int(kind) << " at " << x[i] << ": " << y[i];
  }
}

// amprt_pow by one exponent (a one-element b) runs the loop of that
// exponent's kind: correctly rounded for the singled-out exponents over
// every 65521st float of both signs, with inputs glibc's powf misrounds
// (1.00024414^2, 0x1.0080ap+0^-1, 0x1.006ee6p+0^0.5).
TEST(RuntimeElementary, PowByOneExponentIsCorrectlyRounded) {
  std::vector<float> x =
      withEveryNthFloat({1.00024414f, 0x1.0080ap+0f, 0x1.006ee6p+0f}, 65521);
  amprt_test::Runtime rt;
  amprt_test::Tensor exponent = rt.make(AMPRT_F32, {1});
  for (float b : {0.0f, -0.0f, 1.0f, 2.0f, -1.0f, 0.5f}) {
    ASSERT_EQ(amprt_tensor_write(exponent, &b, sizeof b), AMPRT_OK);
    std::vector<float> y = onF32Tensor(
        rt, x, [&](amprt_context *ctx, amprt_tensor *in, amprt_tensor *out) {
          return amprt_pow(ctx, in, exponent, out);
        });
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_TRUE(sameFloat(y[i], (float)std::pow((double)x[i], (double)b)))
          << x[i] << " ^ " << b << " gave " << y[i];
  }
}

// By a tensor of exponents amprt_pow runs m_pow element by element: the
// bits of one exponent's loop, in f32 and in the 16-bit types (computed
// in f32).
TEST(RuntimeElementary, PowByOneExponentGivesTheElementwiseBits) {
  amprt_test::Runtime rt;
  std::vector<double> values = {0.0,  -0.0, INFINITY, -INFINITY, NAN,
                                -1.5, 1e-3, 7.25,     65504,     0.0625};
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0.0, 4.0);
  while (values.size() < 531)
    values.push_back(normal(rng));
  int64_t n = (int64_t)values.size(), one = 1;
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16})
    for (double b : {0.0, -0.0, 1.0, 2.0, -1.0, 0.5, 3.0, -0.5}) {
      SCOPED_TRACE(testing::Message() << "dtype " << dtype << ", b " << b);
      amprt_test::Tensor x = rt.make(dtype, {n}, values),
                         scalar = rt.make(dtype, {one}, {b}),
                         full = rt.make(dtype, {n}, std::vector<double>(n, b)),
                         byOne = rt.make(dtype, {n}),
                         byEach = rt.make(dtype, {n});
      ASSERT_EQ(amprt_pow(rt.ctx, x, scalar, byOne), AMPRT_OK);
      ASSERT_EQ(amprt_pow(rt.ctx, x, full, byEach), AMPRT_OK);
      std::vector<double> got = rt.read(byOne), want = rt.read(byEach);
      for (int64_t i = 0; i < n; ++i)
        expectSameFloat((float)got[i], (float)want[i]);
    }
}

} // namespace
