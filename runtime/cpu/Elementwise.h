//===- Elementwise.h - Broadcast indexing for the CPU kernels --*- C++ -*-===//

#ifndef AMPRT_CPU_ELEMENTWISE_H
#define AMPRT_CPU_ELEMENTWISE_H

#include "../common/Runtime.h"
#include "../common/amprt_math.h"
#include <type_traits>

namespace amprt::cpu {

// One case of the switches below.
#define AMPRT_KIND_CASE(Enum, K)                                               \
  case Enum::K:                                                                \
    return f(std::integral_constant<Enum, Enum::K>());

/// Calls `f(std::integral_constant<Unary, K>())` for the run-time `kind`, so
/// that a loop written inside `f` sees a constant op: the switch in
/// applyUnary folds away and the loop vectorises instead of branching on
/// every element (gcc's -O2 does not unswitch loops).
template <typename F> void withUnary(Unary kind, F &&f) {
  switch (kind) {
#define AMPRT_UNARY(name, Kind, CODE) AMPRT_KIND_CASE(Unary, Kind)
#include "../include/amprt/amprt_unary.def"
  }
}

/// withUnary for binary ops.
template <typename F> void withBinary(Binary kind, F &&f) {
  switch (kind) {
#define AMPRT_BINARY(name, Kind, CODE) AMPRT_KIND_CASE(Binary, Kind)
#include "../include/amprt/amprt_binary.def"
  }
}

/// withUnary for activation gradients.
template <typename F> void withActivationGrad(ActivationGrad kind, F &&f) {
  switch (kind) {
    AMPRT_KIND_CASE(ActivationGrad, Relu)
    AMPRT_KIND_CASE(ActivationGrad, Gelu)
    AMPRT_KIND_CASE(ActivationGrad, Tanh)
    AMPRT_KIND_CASE(ActivationGrad, Sigmoid)
    AMPRT_KIND_CASE(ActivationGrad, LeakyRelu)
  }
}
/// withUnary for the exponent of a pow by one exponent.
template <typename F> void withPowExponent(PowExponent kind, F &&f) {
  switch (kind) {
    AMPRT_KIND_CASE(PowExponent, Zero)
    AMPRT_KIND_CASE(PowExponent, One)
    AMPRT_KIND_CASE(PowExponent, Two)
    AMPRT_KIND_CASE(PowExponent, MinusOne)
    AMPRT_KIND_CASE(PowExponent, Half)
    AMPRT_KIND_CASE(PowExponent, Other)
  }
}
#undef AMPRT_KIND_CASE

/// Maps linear indices of an output to offsets into a broadcast input:
/// stride 0 along expanded dimensions.
class BroadcastMap {
public:
  BroadcastMap(const Shape &in, const Shape &out) : out(out) {
    identity = in == out;
    strides.assign(out.size(), 0);
    int64_t stride = 1;
    for (int64_t d = (int64_t)in.size() - 1; d >= 0; --d) {
      int64_t o = d + (int64_t)(out.size() - in.size());
      strides[o] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  int64_t operator()(int64_t linear) const {
    if (identity)
      return linear;
    int64_t offset = 0;
    for (int64_t d = (int64_t)out.size() - 1; d >= 0 && linear; --d) {
      offset += (linear % out[d]) * strides[d];
      linear /= out[d];
    }
    return offset;
  }

private:
  Shape out;
  std::vector<int64_t> strides;
  bool identity;
};

/// Row-major strides of `shape`.
inline std::vector<int64_t> stridesOf(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_ELEMENTWISE_H
