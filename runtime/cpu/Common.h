//===- Common.h - Shared helpers of the CPU backend's ops -------*- C++ -*-===//

#ifndef AMPRT_CPU_COMMON_H
#define AMPRT_CPU_COMMON_H

#include "../api/Dispatch.h"
#include "../common/Geometry.h"
#include "../common/Runtime.h"
#include "Parallel.h"
#include <algorithm>
#include <type_traits>
#include <vector>

namespace amprt::cpu {

/// Element `i` of a float tensor, in double.
inline double get(const amprt_tensor *t, int64_t i) {
  double v = 0;
  AMPRT_FLOAT_DISPATCH(t->dtype, T,
                       v = (double)load(static_cast<const T *>(t->data), i));
  return v;
}
/// Stores `v` (rounded to the tensor's type) at element `i`.
inline void set(amprt_tensor *t, int64_t i, double v) {
  AMPRT_FLOAT_DISPATCH(
      t->dtype, T,
      store(static_cast<T *>(t->data), i, (typename Compute<T>::type)v));
}
/// Element `i` of an i32/i64 tensor.
inline int64_t getIndex(const amprt_tensor *t, int64_t i) {
  return t->dtype == AMPRT_I32 ? static_cast<const int32_t *>(t->data)[i]
                               : static_cast<const int64_t *>(t->data)[i];
}

/// Per-channel sums over a Split, in double: f(c, k, acc) adds element k's
/// contributions to acc[c], acc[axis + c], ... (`width` sums per channel).
/// Fixed-size blocks of outer rows go to the threads and their partial sums
/// are added in block order, so the result does not depend on the thread
/// count; memory is read in order whatever the layout.
template <bool Wide = false, typename F>
std::vector<double> channelSums(const Split &s, int64_t width, F f) {
  int64_t row = std::max<int64_t>(1, s.axis * s.inner);
  int64_t blockRows = std::max<int64_t>(1, (1 << 15) / row);
  int64_t blocks = (s.outer + blockRows - 1) / blockRows;
  int64_t stride = s.axis * width;
  std::vector<double> partial(blocks * stride, 0.0);
  auto sumBlocks = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      double *acc = partial.data() + b * stride;
      int64_t last = std::min(s.outer, (b + 1) * blockRows);
      if (s.inner == 1) { // channels last: a row is one value per channel
        for (int64_t o = b * blockRows; o < last; ++o)
          for (int64_t c = 0; c < s.axis; ++c)
            f(c, o * s.axis + c, acc);
        continue;
      }
      for (int64_t o = b * blockRows; o < last; ++o)
        for (int64_t c = 0; c < s.axis; ++c)
          for (int64_t i = 0, k = (o * s.axis + c) * s.inner; i < s.inner;
               ++i, ++k)
            f(c, k, acc);
    }
  };
  if constexpr (Wide)
    parallelForWide(blocks, 1, sumBlocks);
  else
    parallelFor(blocks, 1, sumBlocks);
  std::vector<double> sums(stride, 0.0);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t j = 0; j < stride; ++j)
      sums[j] += partial[b * stride + j];
  return sums;
}
/// Calls f(channel, flat index) for independent elements in memory order,
/// split over `outer` by threads.
template <typename F> void parallelForInOrder(const Split &s, F f) {
  int64_t row = s.axis * s.inner;
  parallelForWide(s.outer,
                  std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(row, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t o = begin; o < end; ++o)
                      for (int64_t c = 0; c < s.axis; ++c)
                        for (int64_t i = 0, k = (o * s.axis + c) * s.inner;
                             i < s.inner; ++i, ++k)
                          f(c, k);
                  });
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_COMMON_H
