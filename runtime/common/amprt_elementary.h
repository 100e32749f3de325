//===- amprt_elementary.h - f32 exp, log, tanh, erf and pow ---------------===//
//
// The f32 elementary functions behind the unary ops, softmax, GELU, pow
// and their gradients. exp, log, tanh and erf are straight-line
// arithmetic and selects: no branch and no call, so a loop over a tensor
// vectorises (gcc 12 calls glibc's scalar expf, logf and tanhf once per
// element unless built with -ffast-math: an f32 tanh of 4M elements took
// 16.4 ms, exp 6.9, log 7.5, Zen 4). No float-to-int conversion either:
// integers come from the float adder (1.5 * 2^23 added and taken away rounds to
// the nearest integer, which the sum's low bits hold), so the same lines
// vectorise for SSE2 and AVX-512 and no input reaches an undefined conversion
// or shift (NaN is clamped like any other input before its bits become an
// exponent). Host and device compile the same lines (AMPRT_HD), so the CPU's
// tests check the GPU's formulas; nvcc contracts a * b + c into one FMA, which
// moves about 1 result in 2000-10000 by an ulp and keeps the bounds. Each bound
// below held on every one of the 2^32 floats (against glibc's f64
// function rounded to f32); ElementaryTest samples them. A NaN result of
// exp, log, tanh, erf or pow is a quiet NaN, its sign and payload not
// glibc's (m_expNonPositive passes a NaN through as it is).
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_ELEMENTARY_H
#define AMPRT_COMMON_ELEMENTARY_H

#include "amprt_half.h"
#include <math.h>

namespace amprt {

/// A float's bits as an int32 and back, for the Lanes templates below on
/// scalars (cpu/AttentionRows.h has the vector one).
struct FloatBitsCast {
  AMPRT_HD static int32_t bits(float x) { return (int32_t)floatBits(x); }
  AMPRT_HD static float fromBits(int32_t b) { return bitsFloat((uint32_t)b); }
};

/// 1.5 * 2^23: a float added to it (|x| < 2^22) is rounded to an integer,
/// held in the sum's low bits.
constexpr float kRoundingShift = 12582912.0f;
constexpr int32_t kRoundingShiftBits = 0x4B400000;

/// e^t = er * 2^n for t in [-104, 89]: t = n ln2 + r with |r| <= ln2 / 2
/// (Cody-Waite, two constants), e^r by Cephes' degree-6 polynomial.
template <typename F, typename Cast> struct ExpParts {
  F er;
  decltype(Cast::bits(F{})) n;
};
template <typename F, typename Cast>
AMPRT_HD inline ExpParts<F, Cast> expParts(F t) {
  F k = t * 1.44269504088896341f + kRoundingShift;
  F fn = k - kRoundingShift;
  F r = t - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  return {p * r * r + r + 1.0f, Cast::bits(k) - kRoundingShiftBits};
}

/// 2^n as a float for n in [-126, 127].
template <typename F, typename Cast, typename I>
AMPRT_HD inline F powerOfTwo(I n) {
  return Cast::fromBits((n + 127) << 23);
}

/// e^x for x <= 0, for the softmaxes and GELU's density term: within 1
/// ulp of the correctly rounded e^x on every float in [-87, 0] (0.008 ulp
/// on average); 0 below -87, where e^x is under 2^-125 and no softmax
/// term or GELU density can matter beside the row's largest (e^0);
/// NaN gives NaN (x > 0 is outside the domain and gives 1).
///
/// expNonPositiveLanes is its body for F a float or a vector of floats
/// (GCC's vector extension, whose arithmetic and ?: read the same), Cast
/// giving F's bits as integers and back: the CPU's vector loops
/// (cpu/AttentionRows.h) get this function's bits from the same lines.
template <typename F, typename Cast>
AMPRT_HD inline F expNonPositiveLanes(F x) {
  const F zero = F{}, floor = zero - 87.0f;
  F t = x < zero ? x : zero; // one select per statement: if-converts
  t = t >= floor ? t : floor;
  ExpParts<F, Cast> e = expParts<F, Cast>(t); // n in [-126, 0]
  F y = e.er * powerOfTwo<F, Cast>(e.n);
  y = x < floor ? zero : y;
  return x != x ? x : y;
}
AMPRT_HD inline float m_expNonPositive(float x) {
  return expNonPositiveLanes<float, FloatBitsCast>(x);
}

/// e^x on every float: within 1 ulp of the correctly rounded e^x,
/// subnormal results included (x down to -103.97; 0 below), +inf from
/// x = 88.72284 (0x42b17218) up, NaN for NaN. 2^n is applied as two factors
/// 2^(n/2) and 2^(n - n/2), both normal for n in [-150, 128]: the first product
/// is exact, so the result is rounded once (as a subnormal where it is one),
/// and a normal result has the bits of er * 2^n.
AMPRT_HD inline float m_exp(float x) {
  float t = x > -104.0f ? x : -104.0f; // NaN too: its bits are no exponent
  t = t > 89.0f ? 89.0f : t;
  ExpParts<float, FloatBitsCast> e = expParts<float, FloatBitsCast>(t);
  int32_t half = e.n >> 1; // arithmetic: rounds towards -infinity
  float y = e.er * powerOfTwo<float, FloatBitsCast>(half) *
            powerOfTwo<float, FloatBitsCast>(e.n - half);
  return x != x ? x + x : y; // x + x: a signalling NaN made quiet
}

/// The natural logarithm on every float: x = 2^k m with m in
/// [sqrt(1/2), sqrt(2)), log(m) = f - f^2 / 2 + f^3 P(f) for f = m - 1
/// (exact) with Cephes' degree-8 P, k ln2 added in two parts. Within 1 ulp
/// of the correctly rounded log; subnormals are scaled by 2^23 first;
/// log(0) = -inf, log(+inf) = +inf, a NaN for NaN and x < 0 (-0 gives
/// -inf, as logf).
AMPRT_HD inline float m_log(float x) {
  bool tiny = x < 1.17549435e-38f; // FLT_MIN: subnormal, 0 or negative
  float scaled = tiny ? x * 8388608.0f : x;
  // m's bits: the mantissa moved into [sqrt(1/2), sqrt(2)) by borrowing
  // from the exponent when it is at least sqrt(2)'s (unsigned: NaN's and
  // negative floats' bits wrap, and their results are selected away).
  uint32_t bits = floatBits(scaled) + (0x3f800000u - 0x3f3504f3u);
  int32_t k = (int32_t)(bits >> 23) - 127 - (tiny ? 23 : 0);
  float m = bitsFloat((bits & 0x007fffffu) + 0x3f3504f3u);
  float ek = bitsFloat((uint32_t)(k + kRoundingShiftBits)) - kRoundingShift;
  float f = m - 1.0f, f2 = f * f;
  float p = f * 7.0376836292e-2f + -1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f + -1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f + -1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f + -2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = p * f * f2;
  y = y + ek * -2.12194440e-4f;
  y = y + f2 * -0.5f;
  y = f + y;
  y = y + ek * 0.693359375f;
  y = x == 0.0f ? -INFINITY : y;
  y = x == INFINITY ? x : y;
  y = x < 0.0f ? NAN : y;
  return x != x ? x + x : y;
}

/// tanh on every float: below |x| = 0.625 Cephes' odd polynomial x + x^3
/// P(x^2) (+-0 as they are); above it 1 - 2 / (e^2|x| + 1) with x's sign,
/// which rounds to 1 from |x| = 9.01 on. Within 1 ulp of the correctly
/// rounded tanh; NaN for NaN.
AMPRT_HD inline float m_tanh(float x) {
  float s = x * x;
  float p = s * -5.70498872745e-3f + 2.06390887954e-2f;
  p = p * s + -5.37397155531e-2f;
  p = p * s + 1.33314422036e-1f;
  p = p * s + -3.33332819422e-1f;
  float small = p * s * x + x;
  float z = x < 0.0f ? -x : x;
  float large = 1.0f - 2.0f / (m_exp(z + z) + 1.0f);
  large = x < 0.0f ? -large : large;
  float y = z < 0.625f ? small : large; // NaN: large, which is NaN
  return x == 0.0f ? x : y;             // -0 + +0 (P < 0) would be +0
}

/// The exponents a^b takes without powf: 0, 1, 2, -1 and 1/2 give 1,
/// a, a * a, 1 / a and sqrt(a) (+0 at -0 and +inf at -inf, as C's pow,
/// where PyTorch's sqrt path gives -0 and NaN), each correctly rounded,
/// where glibc's powf is a call per element (4M f32 elements 9.0 ms, a
/// multiply 0.45, Zen 4) and misrounds about one x^2 in 2800. Any other
/// b, NaN included, is powf's.
enum class PowExponent { Zero, One, Two, MinusOne, Half, Other };

AMPRT_HD inline PowExponent powExponentOf(float b) {
  if (b == 2.0f)
    return PowExponent::Two;
  if (b == 0.5f)
    return PowExponent::Half;
  if (b == 1.0f)
    return PowExponent::One;
  if (b == -1.0f)
    return PowExponent::MinusOne;
  return b == 0.0f ? PowExponent::Zero : PowExponent::Other;
}

/// a^b for b of kind K (b itself read only for Other): a loop over a
/// tensor with one exponent runs this for its K, no call in it but powf's.
template <PowExponent K> AMPRT_HD inline float powWith(float a, float b) {
  if constexpr (K == PowExponent::Zero)
    return 1.0f; // NaN^0 too (a signalling one: C's Annex F allows 1)
  else if constexpr (K == PowExponent::One)
    return a != a ? a + a : a; // a NaN made quiet (a * 1 folds to a)
  else if constexpr (K == PowExponent::Two)
    return a * a;
  else if constexpr (K == PowExponent::MinusOne)
    return 1.0f / a;
  else if constexpr (K == PowExponent::Half) {
    float root = sqrtf(a); // -0 and -inf are sqrt's own: -0 and NaN
    root = a == 0.0f ? 0.0f : root;
    return a == -INFINITY ? INFINITY : root;
  } else
    return powf(a, b);
}

/// a^b in f32, the same bits whether b is one exponent for a whole tensor
/// or an element of its own.
AMPRT_HD inline float m_pow(float a, float b) {
  switch (powExponentOf(b)) {
  case PowExponent::Zero:
    return powWith<PowExponent::Zero>(a, b);
  case PowExponent::One:
    return powWith<PowExponent::One>(a, b);
  case PowExponent::Two:
    return powWith<PowExponent::Two>(a, b);
  case PowExponent::MinusOne:
    return powWith<PowExponent::MinusOne>(a, b);
  case PowExponent::Half:
    return powWith<PowExponent::Half>(a, b);
  case PowExponent::Other:
    break;
  }
  return powWith<PowExponent::Other>(a, b);
}

/// erf in f32 as one rational function of x^2 (the form of Eigen's and
/// XLA's vector erf), clamped to [-4, 4] where f32 erf is +-1. At most 8
/// ulp from the correctly rounded erf (near |x| = 3.9, 5e-7 absolute),
/// 0.34 ulp on average over all floats; x * (P / Q) keeps tiny x exact
/// where x * P would go subnormal.
AMPRT_HD inline float m_erf(float a) {
  float x = a < -4.0f ? -4.0f : (a > 4.0f ? 4.0f : a);
  float x2 = x * x;
  float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = x2 * p + -2.10102402082508e-06f;
  p = x2 * p + -5.69250639462346e-05f;
  p = x2 * p + -7.34990630326855e-04f;
  p = x2 * p + -2.95459980854025e-03f;
  p = x2 * p + -1.60960333262415e-02f;
  float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
  q = x2 * q + -1.68282697438203e-03f;
  q = x2 * q + -7.37332916720468e-03f;
  q = x2 * q + -1.42647390514189e-02f;
  return x * (p / q);
}

} // namespace amprt

#endif // AMPRT_COMMON_ELEMENTARY_H
