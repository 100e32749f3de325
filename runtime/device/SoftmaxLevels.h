//===- SoftmaxLevels.h - Softmax rows on a GPU, in levels -------*- C++ -*-===//
//
// A thread per softmax row read its row alone, three times, element after
// element: on an H200 the attention softmax of a GPT step (98,304 rows of
// 256 keys) took 0.5 ms forward and 0.8 ms backward, for data it moves in
// tens of microseconds. On a GPU the rows' maxima and sums are reductions
// in levels instead (DeviceOps.h, reduceInto), into per-row statistics,
// and one thread per element applies them. The formulas are
// SoftmaxKernel's and CausalSoftmaxKernel's: exponentials of x - max in
// the compute type, sums in double, one reciprocal per row; only the
// order of each row's sum differs.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_SOFTMAXLEVELS_H
#define AMPRT_DEVICE_SOFTMAXLEVELS_H

#include "Kernels.h"

namespace amprt::device {

/// Whether key j of row r lies past a causal mask of `queries` queries
/// (0: no mask). Row r is query r % queries, which sees keys 0..r.
AMPRT_HD inline bool maskedKey(int64_t r, int64_t j, int64_t queries) {
  return queries != 0 && j > r % queries;
}

/// A row's elements for its maximum; masked keys do not take part.
template <typename T> struct MaskedLoadValue {
  const T *x;
  int64_t queries;
  AMPRT_HD double operator()(int64_t r, int64_t j, int64_t off) const {
    return maskedKey(r, j, queries) ? -__builtin_huge_val()
                                    : (double)load(x, off);
  }
};

/// exp(x - max[r]) in the compute type; 0 for masked keys.
template <typename T> struct ShiftedExpValue {
  const T *x;
  const double *max;
  int64_t queries;
  AMPRT_HD double operator()(int64_t r, int64_t j, int64_t off) const {
    using C = typename Compute<T>::type;
    if (maskedKey(r, j, queries))
      return 0.0;
    return (double)m_expNonPositive((C)((double)load(x, off) - max[r]));
  }
};

/// dy * y (softmax's gradient sums it over the row).
template <typename T> struct ProductValue {
  const T *a, *b;
  AMPRT_HD double operator()(int64_t, int64_t, int64_t off) const {
    return (double)load(a, off) * (double)load(b, off);
  }
};

/// 1 / sum: the row's one reciprocal.
struct ReciprocalFinish {
  double *out;
  AMPRT_HD void operator()(int64_t r, double sum) const { out[r] = 1.0 / sum; }
};

/// max + log(sum): the row's log-sum-exp.
struct LogSumExpFinish {
  double *out;
  const double *max;
  AMPRT_HD void operator()(int64_t r, double sum) const {
    out[r] = max[r] + log(sum);
  }
};

/// Element i of a softmax kind from its row's statistics: `max` and
/// `stat` = 1 / sum (Softmax), the log-sum-exp (LogSoftmax), or the row's
/// sum of dy * y (SoftmaxGrad) or of dy (LogSoftmaxGrad). Forward kinds
/// read `a` = x; gradients read `a` = dy and `b` = y.
template <typename T, SoftmaxKind K> struct SoftmaxApplyKernel {
  const T *a, *b;
  T *out;
  const double *max, *stat;
  Split s;
  int64_t queries;
  AMPRT_HD void operator()(int64_t i) const {
    using C = typename Compute<T>::type;
    int64_t j = i / s.inner % s.axis;
    int64_t r = i / (s.axis * s.inner) * s.inner + i % s.inner;
    double v = (double)load(a, i);
    if constexpr (K == SoftmaxKind::Softmax) {
      if (maskedKey(r, j, queries))
        store(out, i, C(0));
      else
        store(out, i, (C)((double)m_expNonPositive((C)(v - max[r])) * stat[r]));
    } else if constexpr (K == SoftmaxKind::LogSoftmax) {
      store(out, i, (C)(v - stat[r]));
    } else if constexpr (K == SoftmaxKind::SoftmaxGrad) {
      double y = (double)load(b, i);
      store(out, i, (C)(y * (v - stat[r])));
    } else {
      store(out, i, (C)(v - exp((double)load(b, i)) * stat[r]));
    }
  }
};

} // namespace amprt::device

#endif // AMPRT_DEVICE_SOFTMAXLEVELS_H
