//===- RuntimeTestUtils.h - Tensors and references for runtime tests ------===//

#ifndef AMP_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H
#define AMP_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H

#include "amprt/amprt.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace amprt_test {

using Shape = std::vector<int64_t>;

/// Host-side conversions used to fill and read 16-bit tensors; written
/// independently of the runtime so the tests check it.
/// The half conversions work in arithmetic (scale to the half's ulp, round
/// with nearbyint, which is nearest-even) rather than bit tricks, so they
/// share no code or method with the runtime's.
/// An FP8 code's value from its fields: E4M3FN (bias 7, S.1111.111 NaN, no
/// infinity) or E5M2 (bias 15, IEEE infinities and NaNs).
inline double fromFp8(uint8_t code, bool e4m3) {
  int mantissaBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int exponent = (code & 0x7F) >> mantissaBits;
  int mantissa = code & ((1 << mantissaBits) - 1);
  double sign = code & 0x80 ? -1.0 : 1.0;
  if (e4m3 && exponent == 15 && mantissa == 7)
    return std::nan("");
  if (!e4m3 && exponent == 31)
    return mantissa ? std::nan("") : sign * HUGE_VAL;
  if (exponent == 0) // subnormal
    return sign * std::ldexp(mantissa, 1 - bias - mantissaBits);
  return sign * std::ldexp(mantissa + (1 << mantissaBits),
                           exponent - bias - mantissaBits);
}

inline uint16_t toHalf(double v) {
  float f = (float)v;
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f))
    return sign | 0x7E00;
  double a = std::fabs((double)f);
  if (a >= 65520.0) // halfway between 65504 and 2^16 rounds to even: inf
    return sign | 0x7C00;
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e); // a = m * 2^e with m in [0.5, 1)
  int ulpExp = std::max(e - 11, -24);
  double rounded = std::ldexp(std::nearbyint(std::ldexp(a, -ulpExp)), ulpExp);
  if (rounded < std::ldexp(1.0, -14))
    return sign | (uint16_t)std::ldexp(rounded, 24);
  double m = std::frexp(rounded, &e);
  return sign | (uint16_t)((e + 14) << 10) |
         (uint16_t)((m * 2 - 1) * 1024);
}
inline double fromHalf(uint16_t bits) {
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
  if (exponent == 0x1F)
    return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}
inline uint16_t toBf16(double v) {
  float f = (float)v;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return (uint16_t)((u >> 16) | 0x40);
  uint32_t rounded = u + 0x7FFF + ((u >> 16) & 1);
  return (uint16_t)(rounded >> 16);
}
inline double fromBf16(uint16_t bits) {
  uint32_t u = (uint32_t)bits << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// An owned runtime tensor.
struct Tensor {
  amprt_tensor *t = nullptr;
  Tensor() = default;
  explicit Tensor(amprt_tensor *t) : t(t) {}
  Tensor(Tensor &&o) noexcept : t(o.t) { o.t = nullptr; }
  Tensor &operator=(Tensor &&o) noexcept {
    std::swap(t, o.t);
    return *this;
  }
  ~Tensor() { amprt_tensor_release(t); }
  operator amprt_tensor *() const { return t; }
};

class Runtime {
public:
  explicit Runtime(amprt_device device = AMPRT_DEVICE_CPU) {
    EXPECT_EQ(amprt_context_create(device, 0, &ctx), AMPRT_OK)
        << amprt_last_error();
  }
  ~Runtime() { amprt_context_destroy(ctx); }

  Tensor make(amprt_dtype dtype, const Shape &shape) {
    amprt_tensor *t = nullptr;
    EXPECT_EQ(amprt_tensor_create(ctx, dtype, (int)shape.size(), shape.data(),
                                  &t),
              AMPRT_OK)
        << amprt_last_error();
    return Tensor(t);
  }
  /// A float tensor holding `values` (rounded to its type).
  Tensor make(amprt_dtype dtype, const Shape &shape,
              const std::vector<double> &values) {
    Tensor t = make(dtype, shape);
    write(t, values);
    return t;
  }
  void write(amprt_tensor *t, const std::vector<double> &values) {
    size_t n = values.size();
    amprt_dtype dtype = amprt_tensor_dtype(t);
    std::vector<char> bytes(n * amprt_dtype_size(dtype));
    for (size_t i = 0; i < n; ++i) {
      char *p = bytes.data() + i * amprt_dtype_size(dtype);
      switch (dtype) {
      case AMPRT_F32: {
        float f = (float)values[i];
        std::memcpy(p, &f, 4);
        break;
      }
      case AMPRT_F64:
        std::memcpy(p, &values[i], 8);
        break;
      case AMPRT_F16: {
        uint16_t h = toHalf(values[i]);
        std::memcpy(p, &h, 2);
        break;
      }
      case AMPRT_BF16: {
        uint16_t h = toBf16(values[i]);
        std::memcpy(p, &h, 2);
        break;
      }
      case AMPRT_I32: {
        int32_t v = (int32_t)values[i];
        std::memcpy(p, &v, 4);
        break;
      }
      case AMPRT_I64: {
        int64_t v = (int64_t)values[i];
        std::memcpy(p, &v, 8);
        break;
      }
      case AMPRT_I1:
        *p = values[i] != 0;
        break;
      case AMPRT_F8E4M3FN:
      case AMPRT_F8E5M2:
        // Rounding to FP8 is the runtime's to test (Fp8ConversionTest).
        ADD_FAILURE() << "make FP8 tensors with amprt_quantize";
        return;
      case AMPRT_DTYPE_MAX_ENUM:
        ADD_FAILURE() << "not a dtype";
      }
    }
    ASSERT_EQ(amprt_tensor_write(t, bytes.data(), bytes.size()), AMPRT_OK)
        << amprt_last_error();
  }
  std::vector<double> read(const amprt_tensor *t) {
    amprt_dtype dtype = amprt_tensor_dtype(t);
    size_t n = amprt_tensor_numel(t), e = amprt_dtype_size(dtype);
    std::vector<char> bytes(n * e);
    EXPECT_EQ(amprt_tensor_read(t, bytes.data(), bytes.size()), AMPRT_OK);
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      const char *p = bytes.data() + i * e;
      switch (dtype) {
      case AMPRT_F32: {
        float f;
        std::memcpy(&f, p, 4);
        out[i] = f;
        break;
      }
      case AMPRT_F64:
        std::memcpy(&out[i], p, 8);
        break;
      case AMPRT_F16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        out[i] = fromHalf(h);
        break;
      }
      case AMPRT_BF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        out[i] = fromBf16(h);
        break;
      }
      case AMPRT_I32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        out[i] = v;
        break;
      }
      case AMPRT_I64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        out[i] = (double)v;
        break;
      }
      case AMPRT_I1:
        out[i] = *p;
        break;
      case AMPRT_F8E4M3FN:
      case AMPRT_F8E5M2:
        out[i] = fromFp8((uint8_t)*p, dtype == AMPRT_F8E4M3FN);
        break;
      case AMPRT_DTYPE_MAX_ENUM:
        ADD_FAILURE() << "not a dtype";
      }
    }
    return out;
  }
  amprt_context *ctx = nullptr;
};

inline std::vector<double> randomValues(size_t n, unsigned seed, double lo = -1,
                                        double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v) {
    do
      x = dist(rng);
    while (std::fabs(x) < 1e-3); // never zeros
  }
  return v;
}

inline size_t numel(const Shape &s) {
  size_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// A strided view as amprt_batch_matmul_strided and amprt_attention take
/// it: {offset, shape..., strides...}.
inline std::vector<int64_t> view(int64_t offset, Shape shape, Shape strides) {
  std::vector<int64_t> v{offset};
  v.insert(v.end(), shape.begin(), shape.end());
  v.insert(v.end(), strides.begin(), strides.end());
  return v;
}

/// Tolerances by type: relative with an absolute floor.
inline double tolerance(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F64:
    return 1e-12;
  case AMPRT_F32:
    return 1e-5;
  case AMPRT_F16:
    return 2e-3;
  case AMPRT_BF16:
    return 1.6e-2;
  default:
    return 0;
  }
}

inline void expectNear(const std::vector<double> &got,
                       const std::vector<double> &want, double tol,
                       const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    double scale = std::max(1.0, std::fabs(want[i]));
    EXPECT_NEAR(got[i], want[i], tol * scale) << what << " element " << i;
  }
}

/// Element-for-element equality of two reads (NaN never occurs where it is
/// used), reporting how many differ and the first.
inline void expectSameValues(const std::vector<double> &got,
                             const std::vector<double> &want,
                             const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t differ = 0, first = got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && differ++ == 0)
      first = i;
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " elements differ, first #"
                        << first << " ("
                        << (first < got.size() ? got[first] : 0) << " vs "
                        << (first < want.size() ? want[first] : 0) << ")";
}

/// A product's sizes: op(A) is [batch,] m x k, op(B) [batch,] k x n.
struct MatmulDims {
  int64_t m, k, n, batch = 1;
};

/// One case of a product test: sizes, type and transposes, with the
/// operands' stored shapes.
struct MatmulCase {
  MatmulDims dims;
  amprt_dtype dtype;
  int ta, tb;

  Shape a() const {
    return batched(ta ? Shape{dims.k, dims.m} : Shape{dims.m, dims.k});
  }
  Shape b() const {
    return batched(tb ? Shape{dims.n, dims.k} : Shape{dims.k, dims.n});
  }
  Shape c() const { return batched({dims.m, dims.n}); }
  /// op(A)[s][i][p] and op(B)[s][p][j] in row-major reads of the operands.
  double opA(const std::vector<double> &a, int64_t s, int64_t i,
             int64_t p) const {
    int64_t base = s * dims.m * dims.k;
    return a[base + (ta ? p * dims.m + i : i * dims.k + p)];
  }
  double opB(const std::vector<double> &b, int64_t s, int64_t p,
             int64_t j) const {
    int64_t base = s * dims.k * dims.n;
    return b[base + (tb ? j * dims.k + p : p * dims.n + j)];
  }
  std::string name() const {
    const char *type = dtype == AMPRT_F32    ? "f32"
                       : dtype == AMPRT_F16  ? "f16"
                       : dtype == AMPRT_BF16 ? "bf16"
                       : dtype == AMPRT_F64  ? "f64"
                                             : "other";
    return std::string(type) + " " +
           (dims.batch > 1 ? std::to_string(dims.batch) + "x" : "") +
           std::to_string(dims.m) + "x" + std::to_string(dims.k) + "x" +
           std::to_string(dims.n) + " t" + std::to_string(ta) +
           std::to_string(tb);
  }

private:
  Shape batched(Shape s) const {
    if (dims.batch > 1)
      s.insert(s.begin(), dims.batch);
    return s;
  }
};

/// f(MatmulCase) for every size, type and pair of transposes.
template <typename F>
void forEachMatmul(std::initializer_list<MatmulDims> sizes,
                   const std::vector<amprt_dtype> &dtypes, F f) {
  for (MatmulDims d : sizes)
    for (amprt_dtype dtype : dtypes)
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          f(MatmulCase{d, dtype, ta, tb});
}

/// A 16-bit product with f32 first operand, for the tests that an epilogue
/// follows the operands' rounding: `a` f32 (m x k), `b` (k x n) and `bias`
/// (n) in `dtype`, and the m x n shape of its results.
struct RoundedProductOperands {
  Tensor a, b, bias;
  Shape result;
};
inline RoundedProductOperands roundedProductOperands(Runtime &rt,
                                                     amprt_dtype dtype) {
  const int64_t m = 32, k = 200, n = 128;
  return {rt.make(AMPRT_F32, {m, k}, randomValues(m * k, 21)),
          rt.make(dtype, {k, n}, randomValues(k * n, 22)),
          rt.make(dtype, {n}, randomValues(n, 23)),
          {m, n}};
}

/// A 3x3 same-padded convolution's operands for the epilogue tests: x
/// (4 images of 9x8 with 5 channels), 24 filters f and their bias, in
/// `dtype` and the layout `nchw` says, and the shape of its result.
struct ConvOperands {
  Tensor x, f, bias;
  Shape result;
};
inline ConvOperands convOperands(Runtime &rt, amprt_dtype dtype, bool nchw) {
  const int64_t n = 4, h = 9, w = 8, c = 5, o = 24;
  Shape xs = nchw ? Shape{n, c, h, w} : Shape{n, h, w, c};
  Shape ws = nchw ? Shape{o, c, 3, 3} : Shape{o, 3, 3, c};
  return {rt.make(dtype, xs, randomValues(numel(xs), 31)),
          rt.make(dtype, ws, randomValues(numel(ws), 32)),
          rt.make(dtype, {o}, randomValues(o, 33, -4, 4)),
          nchw ? Shape{n, o, h, w} : Shape{n, h, w, o}};
}
/// The strides, padding and dilations of convOperands' convolution.
constexpr int64_t kConvStrides[2] = {1, 1}, kConvPadding[4] = {1, 1, 1, 1},
                  kConvDilations[2] = {1, 1};

} // namespace amprt_test

#endif
