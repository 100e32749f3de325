//===- ElementwiseTest.cpp - Elementwise runtime ops vs references --------===//
//
// Each op runs on random data in f32, f16 and bf16 and is compared with a
// reference computed here in double from the same (rounded) inputs.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"
#include "common/amprt_half.h"
#include "common/amprt_math.h"
#include <cstring>
#include <utility>

using namespace amprt_test;

namespace {

using UnaryFn = amprt_status (*)(amprt_context *, const amprt_tensor *,
                                 amprt_tensor *);
struct UnaryCase {
  const char *name;
  UnaryFn fn;
  double (*ref)(double);
  double lo, hi;
};

const UnaryCase kUnary[] = {
    {"neg", amprt_neg, [](double x) { return -x; }, -2, 2},
    {"abs", amprt_abs, [](double x) { return std::fabs(x); }, -2, 2},
    {"exp", amprt_exp, [](double x) { return std::exp(x); }, -3, 3},
    {"log", amprt_log, [](double x) { return std::log(x); }, 0.1, 5},
    {"sqrt", amprt_sqrt, [](double x) { return std::sqrt(x); }, 0.1, 5},
    {"rsqrt", amprt_rsqrt, [](double x) { return 1 / std::sqrt(x); }, 0.1, 5},
    {"square", amprt_square, [](double x) { return x * x; }, -2, 2},
    {"reciprocal", amprt_reciprocal, [](double x) { return 1 / x; }, 0.5, 4},
    {"tanh", amprt_tanh, [](double x) { return std::tanh(x); }, -3, 3},
    {"sigmoid", amprt_sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); },
     -4, 4},
    {"relu", amprt_relu, [](double x) { return x > 0 ? x : 0.0; }, -2, 2},
    {"gelu", amprt_gelu,
     [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -3,
     3},
    {"erf", amprt_erf, [](double x) { return std::erf(x); }, -2, 2},
    {"silu", amprt_silu, [](double x) { return x / (1 + std::exp(-x)); }, -4,
     4},
};

const amprt_dtype kFloatTypes[] = {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64};

TEST(RuntimeElementwise, UnaryOpsMatchReferences) {
  Runtime rt;
  Shape shape{7, 33};
  for (const UnaryCase &c : kUnary)
    for (amprt_dtype dtype : kFloatTypes) {
      auto values = randomValues(numel(shape), 11, c.lo, c.hi);
      Tensor x = rt.make(dtype, shape, values);
      Tensor y = rt.make(dtype, shape);
      ASSERT_EQ(c.fn(rt.ctx, x, y), AMPRT_OK) << c.name << amprt_last_error();
      std::vector<double> in = rt.read(x), want(in.size());
      for (size_t i = 0; i < in.size(); ++i)
        want[i] = c.ref(in[i]);
      expectNear(rt.read(y), want, tolerance(dtype) * 2, c.name);
    }
}

TEST(RuntimeElementwise, LeakyReluAndActivationGrads) {
  Runtime rt;
  Shape shape{5, 9};
  auto xs = randomValues(45, 3, -2, 2), dys = randomValues(45, 4);
  for (amprt_dtype dtype : kFloatTypes) {
    Tensor x = rt.make(dtype, shape, xs), dy = rt.make(dtype, shape, dys);
    Tensor out = rt.make(dtype, shape);
    std::vector<double> in = rt.read(x), g = rt.read(dy), want(45);
    double tol = tolerance(dtype) * 2;
    ASSERT_EQ(amprt_leaky_relu(rt.ctx, x, 0.2, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i)
      want[i] = in[i] > 0 ? in[i] : 0.2 * in[i];
    expectNear(rt.read(out), want, tol, "leaky_relu");
    ASSERT_EQ(amprt_relu_grad(rt.ctx, dy, x, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i)
      want[i] = in[i] > 0 ? g[i] : 0;
    expectNear(rt.read(out), want, tol, "relu_grad");
    ASSERT_EQ(amprt_leaky_relu_grad(rt.ctx, dy, x, 0.2, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i)
      want[i] = in[i] > 0 ? g[i] : 0.2 * g[i];
    expectNear(rt.read(out), want, tol, "leaky_relu_grad");
    ASSERT_EQ(amprt_tanh_grad(rt.ctx, dy, x, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i)
      want[i] = g[i] * (1 - in[i] * in[i]);
    expectNear(rt.read(out), want, tol, "tanh_grad");
    ASSERT_EQ(amprt_sigmoid_grad(rt.ctx, dy, x, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i)
      want[i] = g[i] * in[i] * (1 - in[i]);
    expectNear(rt.read(out), want, tol, "sigmoid_grad");
    ASSERT_EQ(amprt_gelu_grad(rt.ctx, dy, x, out), AMPRT_OK);
    for (int i = 0; i < 45; ++i) {
      // Central difference of the exact gelu, in double.
      auto gelu = [](double v) {
        return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      };
      want[i] = g[i] * (gelu(in[i] + 1e-6) - gelu(in[i] - 1e-6)) / 2e-6;
    }
    expectNear(rt.read(out), want, std::max(tol, 1e-6), "gelu_grad");
  }
}

/// The CPU takes a 16-bit GELU gradient's factor from a table by the
/// input's bits: every one of the 65536 inputs (NaNs, infinities,
/// subnormals) must give the bits of the formula computed in f32. 13 more
/// leave a tail shorter than a vector.
template <typename T> void expectGeluGradEveryInput(amprt_dtype dtype) {
  Runtime rt;
  const int64_t n = (1 << 16) + 13;
  std::vector<uint16_t> xs(n), dys(n), got(n);
  std::vector<double> gradients = randomValues(n, 31, -3, 3);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<uint16_t>(i & 0xFFFF);
    T dy;
    amprt::store(&dy, 0, static_cast<float>(gradients[i]));
    dys[i] = dy.bits;
  }
  Tensor x = rt.make(dtype, {n}), dy = rt.make(dtype, {n}),
         dx = rt.make(dtype, {n});
  ASSERT_EQ(amprt_tensor_write(x, xs.data(), 2 * n), AMPRT_OK);
  ASSERT_EQ(amprt_tensor_write(dy, dys.data(), 2 * n), AMPRT_OK);
  ASSERT_EQ(amprt_gelu_grad(rt.ctx, dy, x, dx), AMPRT_OK);
  ASSERT_EQ(amprt_tensor_read(dx, got.data(), 2 * n), AMPRT_OK);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    T v{xs[i]}, g{dys[i]}, want;
    amprt::store(&want, 0,
                 amprt::applyActivationGrad<float>(amprt::ActivationGrad::Gelu,
                                                   amprt::load(&g, 0),
                                                   amprt::load(&v, 0), 0.0f));
    T have{got[i]};
    float w = amprt::load(&want, 0), h = amprt::load(&have, 0);
    bool bothNaN = std::isnan(w) && std::isnan(h);
    if (got[i] != want.bits && !bothNaN && wrong++ < 5)
      ADD_FAILURE() << "gelu_grad dtype " << dtype << " input bits 0x"
                    << std::hex << xs[i] << std::dec << ": " << h
                    << " where the formula gives " << w;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(RuntimeElementwise, GeluGradEverySixteenBitInput) {
  expectGeluGradEveryInput<amprt::half_t>(AMPRT_F16);
  expectGeluGradEveryInput<amprt::bf16_t>(AMPRT_BF16);
}

/// amprt_<op> on 16-bit inputs given as bit patterns, into their results'
/// bit patterns.
template <typename Call>
std::vector<uint16_t> unaryOnPatterns(Runtime &rt, amprt_dtype dtype,
                                      const std::vector<uint16_t> &xs,
                                      Call call) {
  int64_t n = xs.size();
  std::vector<uint16_t> got(n);
  Tensor x = rt.make(dtype, {n}), y = rt.make(dtype, {n});
  EXPECT_EQ(amprt_tensor_write(x, xs.data(), 2 * n), AMPRT_OK);
  EXPECT_EQ(call(rt.ctx, x, y), AMPRT_OK) << amprt_last_error();
  EXPECT_EQ(amprt_tensor_read(y, got.data(), 2 * n), AMPRT_OK);
  return got;
}

/// The CPU looks the results of 16-bit exp, log, tanh, sigmoid, GELU, erf
/// and SiLU up in a table of every input from 16K elements up: each of the
/// 65536 inputs (NaNs, infinities, subnormals; 13 more leave a tail
/// shorter than a vector), and a shuffled 4099 of them below the table's
/// size, must give the bits of the op's formula in f32, for every unary op.
template <typename T> void expectUnaryEveryInput(amprt_dtype dtype) {
  Runtime rt;
  std::vector<uint16_t> every((1 << 16) + 13), some(4099);
  for (size_t i = 0; i < every.size(); ++i)
    every[i] = static_cast<uint16_t>(i & 0xFFFF);
  for (size_t i = 0; i < some.size(); ++i)
    some[i] = static_cast<uint16_t>(i * 40503u);
  auto check = [&](amprt::Unary kind, const char *name, double alpha,
                   auto call) {
    for (const std::vector<uint16_t> *xs : {&every, &some}) {
      std::vector<uint16_t> got = unaryOnPatterns(rt, dtype, *xs, call);
      int64_t wrong = 0;
      for (size_t i = 0; i < xs->size(); ++i) {
        T v{(*xs)[i]}, want, have{got[i]};
        amprt::store(&want, 0,
                     amprt::applyUnary<float>(kind, amprt::load(&v, 0),
                                              static_cast<float>(alpha)));
        float w = amprt::load(&want, 0), h = amprt::load(&have, 0);
        if (got[i] != want.bits && !(std::isnan(w) && std::isnan(h)) &&
            wrong++ < 3)
          ADD_FAILURE() << name << " dtype " << dtype << " n " << xs->size()
                        << " input bits 0x" << std::hex << (*xs)[i] << std::dec
                        << ": " << h << " where the formula gives " << w;
      }
      EXPECT_EQ(wrong, 0) << name;
    }
  };
#define AMPRT_UNARY(name, Kind, CODE)                                          \
  check(amprt::Unary::Kind, #name, 0.0,                                        \
        [](amprt_context *c, amprt_tensor *x, amprt_tensor *y) {               \
          return amprt_##name(c, x, y);                                        \
        });
#define AMPRT_UNARY_ALPHA(name, Kind, CODE)                                    \
  check(amprt::Unary::Kind, #name, 0.125,                                      \
        [](amprt_context *c, amprt_tensor *x, amprt_tensor *y) {               \
          return amprt_##name(c, x, 0.125, y);                                 \
        });
#include "amprt/amprt_unary.def"
}

TEST(RuntimeElementwise, UnaryEverySixteenBitInput) {
  expectUnaryEveryInput<amprt::half_t>(AMPRT_F16);
  expectUnaryEveryInput<amprt::bf16_t>(AMPRT_BF16);
}

using BinaryFn = amprt_status (*)(amprt_context *, const amprt_tensor *,
                                  const amprt_tensor *, amprt_tensor *);

struct BinaryCase {
  const char *name;
  BinaryFn fn;
  double (*ref)(double, double);
};

const BinaryCase kBinary[] = {
    {"add", amprt_add, [](double a, double b) { return a + b; }},
    {"sub", amprt_sub, [](double a, double b) { return a - b; }},
    {"mul", amprt_mul, [](double a, double b) { return a * b; }},
    {"div", amprt_div, [](double a, double b) { return a / b; }},
    {"pow", amprt_pow,
     [](double a, double b) { return std::pow(std::fabs(a), b); }},
    {"maximum", amprt_maximum,
     [](double a, double b) { return std::max(a, b); }},
    {"minimum", amprt_minimum,
     [](double a, double b) { return std::min(a, b); }},
};

TEST(RuntimeElementwise, BinaryOpsBroadcast) {
  Runtime rt;
  // [4, 1, 6] with [5, 1]: every broadcasting rule at once.
  Shape sa{4, 1, 6}, sb{5, 1}, sc{4, 5, 6};
  for (const BinaryCase &c : kBinary)
    for (amprt_dtype dtype : kFloatTypes) {
      auto av = randomValues(24, 5, 0.5, 2), bv = randomValues(5, 6, 0.5, 2);
      Tensor a = rt.make(dtype, sa, av), b = rt.make(dtype, sb, bv);
      Tensor out = rt.make(dtype, sc);
      ASSERT_EQ(c.fn(rt.ctx, a, b, out), AMPRT_OK) << amprt_last_error();
      std::vector<double> ra = rt.read(a), rb = rt.read(b), want;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 5; ++j)
          for (int k = 0; k < 6; ++k)
            want.push_back(c.ref(ra[i * 6 + k], rb[j]));
      expectNear(rt.read(out), want, tolerance(dtype) * 2, c.name);
    }
  // The kernels' fast paths: equal shapes, a scalar right operand, and a
  // scalar left one (which takes the general path).
  struct Shapes {
    Shape a, b;
  } fast[] = {{{3, 7}, {3, 7}}, {{3, 7}, {}}, {{}, {3, 7}}, {{21}, {1, 21}}};
  for (const Shapes &shapes : fast)
    for (const BinaryCase &c : kBinary)
      for (amprt_dtype dtype : kFloatTypes) {
        int64_t na = shapes.a.empty() ? 1 : 21, nb = shapes.b.empty() ? 1 : 21;
        Tensor a = rt.make(dtype, shapes.a, randomValues(na, 7, 0.5, 2));
        Tensor b = rt.make(dtype, shapes.b, randomValues(nb, 8, 0.5, 2));
        Shape outShape =
            shapes.a.size() >= shapes.b.size() ? shapes.a : shapes.b;
        Tensor out = rt.make(dtype, outShape);
        ASSERT_EQ(c.fn(rt.ctx, a, b, out), AMPRT_OK) << amprt_last_error();
        std::vector<double> ra = rt.read(a), rb = rt.read(b), want;
        for (int64_t i = 0; i < 21; ++i)
          want.push_back(c.ref(ra[na == 1 ? 0 : i], rb[nb == 1 ? 0 : i]));
        expectNear(rt.read(out), want, tolerance(dtype) * 2, c.name);
      }
}

TEST(RuntimeElementwise, IntegerArithmeticForCounters) {
  Runtime rt;
  Tensor step = rt.make(AMPRT_I64, {}, {41});
  Tensor one = rt.make(AMPRT_I64, {}, {1});
  Tensor next = rt.make(AMPRT_I64, {});
  ASSERT_EQ(amprt_add(rt.ctx, step, one, next), AMPRT_OK);
  EXPECT_EQ(rt.read(next)[0], 42);
}

// relu is max(x, 0) with NaN kept, as PyTorch's: an overflow that turned
// into NaN must reach the loss scaler's finite check, not vanish. Its
// gradient masks by x > 0, so it gives the same values from the input or
// the output (tg-autodiff passes the output).
TEST(RuntimeElementwise, ReluKeepsNaNAndItsGradientMasksEitherOperand) {
  Runtime rt;
  const std::vector<double> xs = {-3, -0.0, 0, 2.5, NAN, INFINITY, -INFINITY};
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}) {
    Tensor x = rt.make(dtype, {7}, xs), y = rt.make(dtype, {7});
    ASSERT_EQ(amprt_relu(rt.ctx, x, y), AMPRT_OK);
    std::vector<double> got = rt.read(y);
    EXPECT_EQ(got[0], 0);
    EXPECT_EQ(got[1], 0);
    EXPECT_FALSE(std::signbit(got[1])) << "relu(-0) is +0";
    EXPECT_EQ(got[3], 2.5);
    EXPECT_TRUE(std::isnan(got[4])) << "relu(NaN), dtype " << dtype;
    EXPECT_EQ(got[5], INFINITY);
    EXPECT_EQ(got[6], 0);
    Tensor dy = rt.make(dtype, {7}, {1, 2, 3, 4, 5, 6, 7});
    Tensor fromX = rt.make(dtype, {7}), fromY = rt.make(dtype, {7});
    ASSERT_EQ(amprt_relu_grad(rt.ctx, dy, x, fromX), AMPRT_OK);
    ASSERT_EQ(amprt_relu_grad(rt.ctx, dy, y, fromY), AMPRT_OK);
    EXPECT_EQ(rt.read(fromX), (std::vector<double>{0, 0, 0, 4, 0, 6, 0}));
    EXPECT_EQ(rt.read(fromY), rt.read(fromX));
  }
}

TEST(RuntimeElementwise, CompareSelectIsFinite) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F32, {4}, {1, 2, NAN, 4});
  Tensor zero = rt.make(AMPRT_F32, {}, {2});
  Tensor mask = rt.make(AMPRT_I1, {4});
  ASSERT_EQ(amprt_compare(rt.ctx, AMPRT_GE, a, zero, mask), AMPRT_OK);
  EXPECT_EQ(rt.read(mask), (std::vector<double>{0, 1, 0, 1}));
  ASSERT_EQ(amprt_compare(rt.ctx, AMPRT_NE, a, zero, mask), AMPRT_OK);
  EXPECT_EQ(rt.read(mask), (std::vector<double>{1, 0, 1, 1}));
  Tensor b = rt.make(AMPRT_F32, {4}, {-1, -2, -3, -4});
  Tensor c = rt.make(AMPRT_F32, {4});
  ASSERT_EQ(amprt_select(rt.ctx, mask, a, b, c), AMPRT_OK);
  std::vector<double> sel = rt.read(c);
  EXPECT_EQ(sel[0], 1);
  EXPECT_EQ(sel[1], -2);
  EXPECT_TRUE(std::isnan(sel[2]));
  Tensor h = rt.make(AMPRT_F16, {4}, {1, INFINITY, NAN, 70000});
  Tensor fin = rt.make(AMPRT_I1, {4});
  ASSERT_EQ(amprt_is_finite(rt.ctx, h, fin), AMPRT_OK);
  EXPECT_EQ(rt.read(fin), (std::vector<double>{1, 0, 0, 0}));
}

// One flag choosing a whole tensor (dynamic loss scaling's guard on every
// optimizer result) is a copy of the chosen operand, for every element size.
TEST(RuntimeElementwise, SelectByOneFlag) {
  Runtime rt;
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_F64, AMPRT_I64}) {
    std::vector<double> av(5000), bv(5000);
    for (int i = 0; i < 5000; ++i) {
      av[i] = i % 97;
      bv[i] = -(i % 89);
    }
    Tensor a = rt.make(dtype, {50, 100}, av), b = rt.make(dtype, {50, 100}, bv);
    Tensor c = rt.make(dtype, {50, 100});
    for (double flag : {1.0, 0.0}) {
      Tensor cond = rt.make(AMPRT_I1, {}, {flag});
      ASSERT_EQ(amprt_select(rt.ctx, cond, a, b, c), AMPRT_OK);
      EXPECT_EQ(rt.read(c), flag ? av : bv) << amprt_dtype_size(dtype);
    }
  }
}

// amprt_select_moving: the picked operand's storage moves into the result
// when the caller says it dies; otherwise (or per element) it copies.
TEST(RuntimeElementwise, SelectMovingTakesADyingOperand) {
  Runtime rt;
  std::vector<double> av(300, 1.5), bv(300, -2.0);
  for (double flag : {1.0, 0.0}) {
    Tensor a = rt.make(AMPRT_F32, {3, 100}, av);
    Tensor b = rt.make(AMPRT_F32, {3, 100}, bv);
    Tensor c = rt.make(AMPRT_F32, {3, 100});
    Tensor cond = rt.make(AMPRT_I1, {}, {flag});
    void *aData = a.t->data, *bData = b.t->data, *cData = c.t->data;
    // Only the unpicked operand dies: a copy, operands untouched.
    ASSERT_EQ(
        amprt_select_moving(rt.ctx, cond, a, b, c, flag ? 0 : 1, flag ? 1 : 0),
        AMPRT_OK);
    EXPECT_EQ(rt.read(c), flag ? av : bv);
    EXPECT_EQ(c.t->data, cData);
    EXPECT_EQ(a.t->data, aData);
    EXPECT_EQ(b.t->data, bData);
    // The picked operand dies: its storage is the result's now.
    ASSERT_EQ(amprt_select_moving(rt.ctx, cond, a, b, c, 1, 1), AMPRT_OK);
    EXPECT_EQ(rt.read(c), flag ? av : bv);
    EXPECT_EQ(c.t->data, flag ? aData : bData);
    EXPECT_EQ((flag ? a : b).t->data, cData);
  }
  // A per-element condition copies whatever dies.
  Tensor a = rt.make(AMPRT_F32, {2}, {1, 2}),
         b = rt.make(AMPRT_F32, {2}, {3, 4});
  Tensor c = rt.make(AMPRT_F32, {2}), mask = rt.make(AMPRT_I1, {2}, {1, 0});
  void *cData = c.t->data;
  ASSERT_EQ(amprt_select_moving(rt.ctx, mask, a, b, c, 1, 1), AMPRT_OK);
  EXPECT_EQ(rt.read(c), (std::vector<double>{1, 4}));
  EXPECT_EQ(c.t->data, cData);
  // The checks of amprt_select apply.
  Tensor wrong = rt.make(AMPRT_F32, {5});
  EXPECT_EQ(amprt_select_moving(rt.ctx, mask, a, b, wrong, 1, 0),
            AMPRT_ERROR_SHAPE);
}

TEST(RuntimeElementwise, CastsRoundToNearestEven) {
  Runtime rt;
  std::vector<double> values = {
      1.0,  1.00048828125, 1.000732421875, 65504,        65519, 65520,
      -1e6, 5.9604645e-8,  2.98e-8,        6.1035156e-5, 0.0,   -0.0,
      NAN,  INFINITY,      3.14159265};
  Tensor x = rt.make(AMPRT_F32, {15}, values);
  Tensor h = rt.make(AMPRT_F16, {15}), b = rt.make(AMPRT_BF16, {15});
  ASSERT_EQ(amprt_cast(rt.ctx, x, h), AMPRT_OK);
  ASSERT_EQ(amprt_cast(rt.ctx, x, b), AMPRT_OK);
  std::vector<double> rh = rt.read(h), rb = rt.read(b), rx = rt.read(x);
  for (size_t i = 0; i < values.size(); ++i) {
    double wantH = fromHalf(toHalf(rx[i])), wantB = fromBf16(toBf16(rx[i]));
    if (std::isnan(wantH)) {
      EXPECT_TRUE(std::isnan(rh[i]) && std::isnan(rb[i]));
      continue;
    }
    EXPECT_EQ(rh[i], wantH) << "f16 of " << values[i];
    EXPECT_EQ(rb[i], wantB) << "bf16 of " << values[i];
  }
  EXPECT_TRUE(std::isinf(rh[5])) << "65520 overflows f16 to inf";
  EXPECT_EQ(rh[4], 65504) << "65519 rounds down to the largest f16";
  // Widening is exact.
  Tensor back = rt.make(AMPRT_F32, {15});
  ASSERT_EQ(amprt_cast(rt.ctx, h, back), AMPRT_OK);
  std::vector<double> rback = rt.read(back);
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(rh[i])) {
      EXPECT_EQ(rback[i], rh[i]);
    }
}

TEST(RuntimeElementwise, ScaleUnscaleAndSeed) {
  Runtime rt;
  Tensor g = rt.make(AMPRT_F16, {3}, {1024, -2048, 0.5});
  Tensor s = rt.make(AMPRT_F32, {}, {1024});
  Tensor u = rt.make(AMPRT_F32, {3});
  ASSERT_EQ(amprt_unscale(rt.ctx, g, s, u), AMPRT_OK);
  EXPECT_EQ(rt.read(u), (std::vector<double>{1, -2, 0.5 / 1024}));
  Tensor x = rt.make(AMPRT_F32, {}, {3});
  Tensor y = rt.make(AMPRT_F32, {});
  ASSERT_EQ(amprt_scale(rt.ctx, x, s, y), AMPRT_OK);
  EXPECT_EQ(rt.read(y)[0], 3072);
  Tensor seed = rt.make(AMPRT_BF16, {2, 2});
  ASSERT_EQ(amprt_grad_seed(rt.ctx, seed), AMPRT_OK);
  EXPECT_EQ(rt.read(seed), (std::vector<double>{1, 1, 1, 1}));
}

// --amp-lower-to-runtime lets an elementwise op write its result over an
// operand that dies at it (RuntimeLoweringBuilder::elementwiseResult): each
// such entry must give the same bits with its output aliasing that operand
// as into a fresh tensor, in every storage type, on tensors large enough to
// split across threads and blocks, and with the other operand broadcast.
TEST(RuntimeElementwise, ResultsOverAnOperandMatchFreshOnes) {
  Runtime rt;
  const Shape full{97, 1031}, row{1031};
  auto same = [&](const Tensor &got, const Tensor &want, const char *name,
                  amprt_dtype dtype) {
    std::vector<double> g = rt.read(got), w = rt.read(want);
    ASSERT_EQ(g.size(), w.size());
    for (size_t i = 0; i < g.size(); ++i)
      if (!(g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i])))) {
        ADD_FAILURE() << name << " in place, dtype " << dtype << ", element "
                      << i << ": " << g[i] << " vs " << w[i];
        return;
      }
  };
  for (amprt_dtype dtype : kFloatTypes) {
    for (const UnaryCase &c : kUnary) {
      auto values = randomValues(numel(full), 21, c.lo, c.hi);
      Tensor x = rt.make(dtype, full, values), y = rt.make(dtype, full);
      ASSERT_EQ(c.fn(rt.ctx, x, y), AMPRT_OK) << c.name;
      ASSERT_EQ(c.fn(rt.ctx, x, x), AMPRT_OK) << c.name;
      same(x, y, c.name, dtype);
    }
    std::vector<std::pair<const char *, BinaryFn>> binaries;
    for (const BinaryCase &c : kBinary)
      binaries.push_back({c.name, c.fn});
    binaries.insert(binaries.end(), {{"relu_grad", amprt_relu_grad},
                                     {"gelu_grad", amprt_gelu_grad},
                                     {"tanh_grad", amprt_tanh_grad},
                                     {"sigmoid_grad", amprt_sigmoid_grad}});
    for (auto [name, fn] : binaries) {
      bool activation = std::strstr(name, "_grad") != nullptr;
      auto av = randomValues(numel(full), 22, 0.5, 2);
      auto bv = randomValues(numel(full), 23, -2, 2);
      // Over a (b full), over b (a full), and over a with b broadcast (the
      // activation gradients take equal shapes only).
      for (int form = 0; form < (activation ? 2 : 3); ++form) {
        const Shape &bShape = form == 2 ? row : full;
        Tensor a = rt.make(dtype, full, av),
               b = rt.make(
                   dtype, bShape,
                   std::vector<double>(bv.begin(), bv.begin() + numel(bShape))),
               c = rt.make(dtype, full);
        ASSERT_EQ(fn(rt.ctx, a, b, c), AMPRT_OK) << name;
        Tensor &over = form == 1 ? b : a;
        ASSERT_EQ(fn(rt.ctx, a, b, over), AMPRT_OK) << name;
        same(over, c, name, dtype);
      }
    }
    auto xv = randomValues(numel(full), 24, -2, 2);
    {
      Tensor x = rt.make(dtype, full, xv), y = rt.make(dtype, full);
      ASSERT_EQ(amprt_leaky_relu(rt.ctx, x, 0.2, y), AMPRT_OK);
      ASSERT_EQ(amprt_leaky_relu(rt.ctx, x, 0.2, x), AMPRT_OK);
      same(x, y, "leaky_relu", dtype);
    }
    {
      Tensor dy = rt.make(dtype, full, randomValues(numel(full), 25, -2, 2)),
             x = rt.make(dtype, full, xv), dx = rt.make(dtype, full);
      ASSERT_EQ(amprt_leaky_relu_grad(rt.ctx, dy, x, 0.2, dx), AMPRT_OK);
      ASSERT_EQ(amprt_leaky_relu_grad(rt.ctx, dy, x, 0.2, dy), AMPRT_OK);
      same(dy, dx, "leaky_relu_grad", dtype);
    }
    for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW}) {
      const Shape image{8, 16, 12, 20};
      Shape channels{layout == AMPRT_NHWC ? image[3] : image[1]};
      Tensor x = rt.make(dtype, image, randomValues(numel(image), 26, -2, 2)),
             b = rt.make(dtype, channels,
                         randomValues(numel(channels), 27, -1, 1)),
             y = rt.make(dtype, image);
      ASSERT_EQ(amprt_bias_add(rt.ctx, x, b, layout, y), AMPRT_OK);
      ASSERT_EQ(amprt_bias_add(rt.ctx, x, b, layout, x), AMPRT_OK);
      same(x, y, "bias_add", dtype);
    }
  }
}

} // namespace

namespace {

// The per-element conversions every 16-bit kernel (CPU and CUDA) uses,
// against the tests' arithmetic reference: all 65536 halves and bf16s
// widened, and 2^20 float bit patterns spread over the whole range (plus
// the boundaries) narrowed.
TEST(RuntimeConversions, MatchTheReferenceBitForBit) {
  for (uint32_t h = 0; h < 65536; ++h) {
    double want = fromHalf((uint16_t)h);
    float got = amprt::halfToFloat((uint16_t)h);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << "half " << h;
      continue;
    }
    ASSERT_EQ((double)got, want) << "half " << h;
    ASSERT_EQ((double)amprt::bf16ToFloat((uint16_t)h), fromBf16((uint16_t)h))
        << "bf16 " << h;
  }
  std::vector<uint32_t> patterns = {
      0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
      0x477FE000u, 0x477FEFFFu, 0x477FF000u, 0x38800000u, 0x387FFFFFu,
      0x33000000u, 0x33000001u, 0x32FFFFFFu, 0x33800000u};
  for (uint32_t u = 0; u < (1u << 20); ++u)
    patterns.push_back(u * 4093u + (u >> 7)); // every exponent, odd mantissas
  for (uint32_t u : patterns) {
    float f;
    std::memcpy(&f, &u, 4);
    uint16_t want = toHalf(f), got = amprt::floatToHalf(f);
    if (std::isnan(f)) {
      ASSERT_EQ(got & 0x7E00u, 0x7E00u) << std::hex << u;
      continue;
    }
    ASSERT_EQ(got, want) << "float bits 0x" << std::hex << u;
    ASSERT_EQ(amprt::floatToBf16(f), toBf16(f))
        << "float bits 0x" << std::hex << u;
  }
}

} // namespace
