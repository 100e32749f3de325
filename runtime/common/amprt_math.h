//===- amprt_math.h - Per-element math shared by CPU and CUDA -------------===//
//
// Every elementwise formula of the runtime lives here once, as host/device
// functions on the compute type (f32, or f64 for reference runs). The CPU
// backend and the CUDA kernels both call these, so the CPU tests check the
// GPU's arithmetic too.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_MATH_H
#define AMPRT_COMMON_MATH_H

#include "amprt_elementary.h"
#include "amprt_half.h"
#include <math.h>
#include <type_traits>

namespace amprt {

#define AMPRT_MATH1(name, ffn, dfn)                                            \
  AMPRT_HD inline float m_##name(float x) { return ffn(x); }                   \
  AMPRT_HD inline double m_##name(double x) { return dfn(x); }
AMPRT_MATH1(sqrt, sqrtf, sqrt)
AMPRT_MATH1(fabs, fabsf, fabs)
#undef AMPRT_MATH1
// f32 exp, log, tanh, erf, exp of x <= 0 and pow are amprt_elementary.h's;
// f64 (reference runs) calls libm.
AMPRT_HD inline double m_exp(double x) { return exp(x); }
AMPRT_HD inline double m_log(double x) { return log(x); }
AMPRT_HD inline double m_tanh(double x) { return tanh(x); }
AMPRT_HD inline double m_erf(double x) { return erf(x); }
AMPRT_HD inline double m_expNonPositive(double x) { return exp(x); }
AMPRT_HD inline double m_pow(double a, double b) { return pow(a, b); }
/// One step of a running maximum: v replaces acc when larger or NaN, so a
/// NaN once seen stays (the reductions, pooling and softmax's row maximum).
template <typename C> AMPRT_HD inline C foldMax(C acc, C v) {
  return (v != v || v > acc) ? v : acc;
}
template <typename C> AMPRT_HD inline bool m_isfinite(C x) {
  return x - x == x - x; // false for inf and NaN, without <cmath> templates
}

/// Unary ops, by enumerator.
enum class Unary {
#define AMPRT_UNARY(name, Kind, CODE) Kind,
#include "../include/amprt/amprt_unary.def"
};

template <typename C>
AMPRT_HD inline C applyUnary(Unary op, C x, C alpha) {
  switch (op) {
  case Unary::Neg:
    return -x;
  case Unary::Abs:
    return m_fabs(x);
  case Unary::Exp:
    return m_exp(x);
  case Unary::Log:
    return m_log(x);
  case Unary::Sqrt:
    return m_sqrt(x);
  case Unary::Rsqrt:
    return C(1) / m_sqrt(x);
  case Unary::Square:
    return x * x;
  case Unary::Reciprocal:
    return C(1) / x;
  case Unary::Tanh:
    return m_tanh(x);
  case Unary::Sigmoid:
    return C(1) / (C(1) + m_exp(-x));
  case Unary::Relu:
    // max(x, 0) with NaN kept, as IEEE maximum and PyTorch's relu: a NaN
    // that reaches the loss fails the step's finite check and the step is
    // skipped, where a relu that zeroed it hid the overflow.
    return (x > C(0) || x != x) ? x : C(0);
  case Unary::Gelu:
    return C(0.5) * x * (C(1) + m_erf(x * C(0.70710678118654752440)));
  case Unary::Erf:
    return m_erf(x);
  case Unary::LeakyRelu:
    return x > C(0) ? x : alpha * x;
  case Unary::Silu:
    return x / (C(1) + m_exp(-x));
  }
  return x;
}

/// Binary ops, by enumerator.
enum class Binary {
#define AMPRT_BINARY(name, Kind, CODE) Kind,
#include "../include/amprt/amprt_binary.def"
};

/// a op b, in a float compute type or i32/i64. On integers division by
/// zero gives 0 (no trap on any device), and pow, which has no integer
/// form, is refused before this is called.
template <typename C> AMPRT_HD inline C applyBinary(Binary op, C a, C b) {
  constexpr bool integer = std::is_integral<C>::value;
  switch (op) {
  case Binary::Add:
    return a + b;
  case Binary::Sub:
    return a - b;
  case Binary::Mul:
    return a * b;
  case Binary::Div:
    if (integer && b == C(0))
      return C(0);
    return a / b;
  case Binary::Pow:
    if constexpr (integer)
      return a;
    else
      return m_pow(a, b);
  case Binary::Maximum:
    // NaN propagates, as in IEEE maximum and in the frameworks.
    return (a != a || a > b) ? a : b;
  case Binary::Minimum:
    return (a != a || a < b) ? a : b;
  }
  return a;
}

/// An elementwise chain (amprt_elementwise_chain): `inputs` tensors of the
/// result's type and shape, then `steps` unary or binary ops, step s
/// computing value[inputs + s] from earlier values `a` (and `b`), rounded
/// to the result's type as the op's own call would store it; the last
/// value is the result. Fixed sizes so a device kernel takes it by value.
constexpr int kMaxChainInputs = 8;
constexpr int kMaxChainSteps = 16;
struct ChainStep {
  bool binary;
  int op; // a Unary, or a Binary when `binary`
  int a, b;
  double alpha; // leaky relu's slope
};
struct Chain {
  int inputs = 0, steps = 0;
  ChainStep step[kMaxChainSteps];
};

/// Step `s` of `chain` on values computed in C.
template <typename C>
AMPRT_HD inline C applyChainStep(const ChainStep &s, const C *values) {
  return s.binary ? applyBinary<C>(Binary(s.op), values[s.a], values[s.b])
                  : applyUnary<C>(Unary(s.op), values[s.a], C(s.alpha));
}

enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

template <typename C> AMPRT_HD inline bool applyCompare(Compare op, C a, C b) {
  switch (op) {
  case Compare::Eq:
    return a == b;
  case Compare::Ne:
    return a != b;
  case Compare::Lt:
    return a < b;
  case Compare::Le:
    return a <= b;
  case Compare::Gt:
    return a > b;
  case Compare::Ge:
    return a >= b;
  }
  return false;
}

/// Activation gradients: dx from dy and the saved input (relu, gelu, leaky
/// relu) or output (tanh, sigmoid).
enum class ActivationGrad { Relu, Gelu, Tanh, Sigmoid, LeakyRelu };

/// GELU's derivative at v, Phi(v) + v phi(v): the factor its gradient
/// multiplies dy by. The CPU tabulates it for every 16-bit v
/// (runtime/cpu/ElementwiseOps.cpp), so this one expression is both.
template <typename C> AMPRT_HD inline C geluGradFactor(C v) {
  C cdf = C(0.5) * (C(1) + m_erf(v * C(0.70710678118654752440)));
  C pdf = m_expNonPositive(C(-0.5) * v * v) * C(0.39894228040143267794);
  return cdf + v * pdf;
}

template <typename C>
AMPRT_HD inline C applyActivationGrad(ActivationGrad op, C dy, C v, C alpha) {
  switch (op) {
  case ActivationGrad::Relu:
    return v > C(0) ? dy : C(0);
  case ActivationGrad::Gelu:
    return dy * geluGradFactor(v);
  case ActivationGrad::Tanh:
    return dy * (C(1) - v * v);
  case ActivationGrad::Sigmoid:
    return dy * v * (C(1) - v);
  case ActivationGrad::LeakyRelu:
    return v > C(0) ? dy : alpha * dy;
  }
  return dy;
}

/// One optimizer step on one element.
template <typename C>
AMPRT_HD inline void sgdStep(C &param, C grad, C lr) {
  param = param - lr * grad;
}

/// torch.optim.SGD's momentum step: weight decay joins the gradient first
/// (skipped at 0, so a non-finite parameter does not turn the step NaN).
template <typename C>
AMPRT_HD inline void momentumStep(C &param, C &velocity, C grad, C lr,
                                  C momentum, C weightDecay, bool nesterov) {
  if (weightDecay != 0)
    grad = grad + weightDecay * param;
  velocity = momentum * velocity + grad;
  C step = nesterov ? grad + momentum * velocity : velocity;
  param = param - lr * step;
}

/// Adam's scalars for one step, in the parameters' type C: the bias
/// corrections fold into the step size and the square root's divisor (one
/// division and one square root per element, not three and one), as
/// torch.optim.AdamW computes them. They are formed in double, then
/// rounded to C.
template <typename C> struct AdamScalars {
  C beta1, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, sqrtCorrection2,
      epsilon, keep;
};
template <typename C>
AMPRT_HD inline AdamScalars<C>
adamScalars(double lr, double beta1, double beta2, double epsilon,
            double weightDecay, double correction1, double correction2) {
  return {(C)beta1,       (C)(1 - beta1),           (C)beta2,
          (C)(1 - beta2), (C)(lr / correction1),    (C)sqrt(correction2),
          (C)epsilon,     (C)(1 - lr * weightDecay)};
}

/// One Adam / AdamW step on one element in its own type (f32 master
/// weights and state update in f32, f64 in f64), torch.optim.AdamW's
/// arithmetic in its order: decoupled decay p * (1 - lr * wd), then
/// p - (step_size * m') / (sqrt(v') / sqrt(c2) + eps). Equal in exact
/// arithmetic to tg.adam_update's formula.
template <typename C>
AMPRT_HD inline void adamStep(C &param, C &m, C &v, C grad,
                              const AdamScalars<C> &s) {
  m = m * s.beta1 + s.oneMinusBeta1 * grad;
  v = v * s.beta2 + s.oneMinusBeta2 * grad * grad;
  C denom = m_sqrt(v) / s.sqrtCorrection2 + s.epsilon;
  param = param * s.keep - (s.stepSize * m) / denom;
}

/// The dynamic loss-scale state machine (PyTorch GradScaler semantics):
/// finite steps count up and grow the scale every `interval`; a non-finite
/// step backs off and resets the count. The scale stays in
/// [minScale, maxScale] and never becomes inf.
AMPRT_HD inline void updateScale(float &scale, int64_t &goodSteps, bool finite,
                                 double growth, double backoff,
                                 int64_t interval, double minScale,
                                 double maxScale) {
  if (finite) {
    goodSteps += 1;
    if (goodSteps >= interval) {
      double grown = (double)scale * growth;
      if (grown > maxScale)
        grown = maxScale;
      float next = (float)grown;
      if (next - next == next - next) // finite
        scale = next;
      goodSteps = 0;
    }
  } else {
    double reduced = (double)scale * backoff;
    if (reduced < minScale)
      reduced = minScale;
    scale = (float)reduced;
    goodSteps = 0;
  }
}

} // namespace amprt

#endif // AMPRT_COMMON_MATH_H
