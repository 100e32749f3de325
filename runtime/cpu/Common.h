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

/// Per-channel sums over a Split, in double, by blocks of outer rows:
/// block(first, last, acc) adds rows [first, last) into acc (`stride`
/// sums). Fixed-size blocks go to the threads and their partial sums are
/// added in block order, so the result does not depend on the thread
/// count.
template <bool Wide = false, typename Block>
std::vector<double> sumRowBlocks(const Split &s, int64_t stride, Block block) {
  int64_t row = std::max<int64_t>(1, s.axis * s.inner);
  int64_t blockRows = std::max<int64_t>(1, (1 << 15) / row);
  int64_t blocks = (s.outer + blockRows - 1) / blockRows;
  std::vector<double> partial(blocks * stride, 0.0);
  auto sumBlocks = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b)
      block(b * blockRows, std::min(s.outer, (b + 1) * blockRows),
            partial.data() + b * stride);
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

/// Visits the elements of outer rows [first, last) in memory order:
/// f(c, k) for element k of channel c.
template <typename F>
__attribute__((always_inline)) inline void
forEachInRows(const Split &s, int64_t first, int64_t last, F &&f) {
  if (s.inner == 1) { // channels last: a row is one value per channel
    for (int64_t o = first; o < last; ++o)
      for (int64_t c = 0; c < s.axis; ++c)
        f(c, o * s.axis + c);
    return;
  }
  for (int64_t o = first; o < last; ++o)
    for (int64_t c = 0; c < s.axis; ++c)
      for (int64_t i = 0, k = (o * s.axis + c) * s.inner; i < s.inner; ++i, ++k)
        f(c, k);
}

/// Channels-last rows [first, last) of Axis channels summed into acc (a
/// block's partial sums, zero at its start) through a local array of a size
/// known at compile time: the sums stay in registers for the whole range
/// instead of a load and a store per element (each channel's chain of adds
/// then waits on the adds, not on the store forwarding). The local array
/// starts from acc and ends in it, so a block summed in several ranges adds
/// the same numbers in the same order as in one.
template <int64_t Axis, int64_t Width, typename F>
__attribute__((always_inline)) inline void
sumChannelsLast(int64_t first, int64_t last, F &f, double *acc) {
  double local[Axis * Width];
  for (int64_t j = 0; j < Axis * Width; ++j)
    local[j] = acc[j];
  for (int64_t o = first; o < last; ++o)
    for (int64_t c = 0; c < Axis; ++c)
      f(c, o * Axis + c, local);
  for (int64_t j = 0; j < Axis * Width; ++j)
    acc[j] = local[j];
}

/// Rows [first, last) of a block summed into acc by f(c, k, acc) (`width`
/// sums per channel) in memory order: the register path for the CNNs'
/// channels-last rows of 16 or 32 channels, one or two sums each; the
/// generic visit otherwise.
template <typename F>
__attribute__((always_inline)) inline void
sumRows(const Split &s, int64_t width, int64_t first, int64_t last, F &f,
        double *acc) {
  if (s.inner == 1 && (width == 1 || width == 2) &&
      (s.axis == 16 || s.axis == 32)) {
    if (width == 1)
      return s.axis == 16 ? sumChannelsLast<16, 1>(first, last, f, acc)
                          : sumChannelsLast<32, 1>(first, last, f, acc);
    return s.axis == 16 ? sumChannelsLast<16, 2>(first, last, f, acc)
                        : sumChannelsLast<32, 2>(first, last, f, acc);
  }
  forEachInRows(s, first, last, [&](int64_t c, int64_t k) { f(c, k, acc); });
}

/// Per-channel sums over a Split, in double: f(c, k, acc) adds element k's
/// contributions to acc[c], acc[axis + c], ... (`width` sums per channel),
/// memory read in order whatever the layout (sumRowBlocks).
template <bool Wide = false, typename F>
std::vector<double> channelSums(const Split &s, int64_t width, F f) {
  return sumRowBlocks<Wide>(s, s.axis * width,
                            [&](int64_t first, int64_t last, double *acc) {
                              sumRows(s, width, first, last, f, acc);
                            });
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
