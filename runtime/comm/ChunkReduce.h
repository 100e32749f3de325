//===- ChunkReduce.h - The all-reduce's arithmetic --------------*- C++ -*-===//
//
// amprt_all_reduce splits the packed elements into one chunk per rank; the
// owner of a chunk reduces every rank's copy of it, in rank order, and sends
// the result to all. Here is that arithmetic, apart from any transport, so
// a unit test checks it against a plain loop without starting processes.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMM_CHUNKREDUCE_H
#define AMPRT_COMM_CHUNKREDUCE_H

#include "../common/amprt_half.h"
#include "amprt/amprt.h"
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace amprt::comm {

/// First element of chunk `part` of `n` elements split over `parts` ranks
/// (sizes differ by at most one; the first n % parts chunks are longer).
inline int64_t chunkBegin(int64_t n, int parts, int part) {
  int64_t base = n / parts, extra = n % parts;
  return base * part + std::min<int64_t>(part, extra);
}
inline int64_t chunkLength(int64_t n, int parts, int part) {
  return chunkBegin(n, parts, part + 1) - chunkBegin(n, parts, part);
}

/// Whether `reduction` is defined on `dtype`: sum and mean on floats, min
/// and max on every type (on i1 they are `and` and `or`).
inline bool reductionApplies(amprt_reduction reduction, amprt_dtype dtype) {
  bool isFloat = dtype == AMPRT_F32 || dtype == AMPRT_F16 ||
                 dtype == AMPRT_BF16 || dtype == AMPRT_F64;
  switch (reduction) {
  case AMPRT_REDUCE_SUM:
  case AMPRT_REDUCE_MEAN:
    return isFloat;
  case AMPRT_REDUCE_MIN:
  case AMPRT_REDUCE_MAX:
    return true;
  default:
    return false;
  }
}

namespace detail {
template <typename Acc, typename Load, typename Store>
void reduceWith(amprt_reduction reduction, int parts, int64_t length, Load load,
                Store store) {
  for (int64_t i = 0; i < length; ++i) {
    Acc acc = load(0, i);
    for (int r = 1; r < parts; ++r) {
      Acc v = load(r, i);
      switch (reduction) {
      case AMPRT_REDUCE_SUM:
      case AMPRT_REDUCE_MEAN:
        acc = acc + v;
        break;
      case AMPRT_REDUCE_MIN:
        // NaN wins, as a found-inf must not be hidden by a finite rank.
        acc = (v < acc || v != v) ? v : acc;
        break;
      default:
        acc = (v > acc || v != v) ? v : acc;
        break;
      }
    }
    if (reduction == AMPRT_REDUCE_MEAN)
      acc = acc / static_cast<Acc>(parts);
    store(i, acc);
  }
}
} // namespace detail

/// out[i] = reduction over r of in[r * length + i], r = 0, 1, ... in order;
/// 16-bit floats accumulate in f32 and round once. `in` holds `parts`
/// copies of a chunk of `length` elements of `dtype`, back to back.
inline void reduceChunk(amprt_dtype dtype, amprt_reduction reduction,
                        const void *in, int parts, int64_t length, void *out) {
  auto typed = [&](auto tag, auto accTag) {
    using T = decltype(tag);
    using Acc = decltype(accTag);
    const T *src = static_cast<const T *>(in);
    T *dst = static_cast<T *>(out);
    detail::reduceWith<Acc>(
        reduction, parts, length,
        [&](int r, int64_t i) -> Acc { return (Acc)src[r * length + i]; },
        [&](int64_t i, Acc v) { dst[i] = (T)v; });
  };
  auto half = [&](auto tag) {
    using T = decltype(tag);
    const T *src = static_cast<const T *>(in);
    T *dst = static_cast<T *>(out);
    detail::reduceWith<float>(
        reduction, parts, length,
        [&](int r, int64_t i) { return load(src, r * length + i); },
        [&](int64_t i, float v) { store(dst, i, v); });
  };
  switch (dtype) {
  case AMPRT_F32:
    return typed(float(), float());
  case AMPRT_F64:
    return typed(double(), double());
  case AMPRT_F16:
    return half(half_t());
  case AMPRT_BF16:
    return half(bf16_t());
  case AMPRT_I32:
    return typed(int32_t(), int64_t());
  case AMPRT_I64:
    return typed(int64_t(), int64_t());
  case AMPRT_I1:
    return typed(uint8_t(), uint8_t());
  default:
    return;
  }
}

} // namespace amprt::comm

#endif // AMPRT_COMM_CHUNKREDUCE_H
