//===- StridedCopy.h - Data movement as one planned copy --------*- C++ -*-===//
//
// Transpose, broadcast, slice, pad and concat are each a strided copy:
// element i of an iteration shape is read at one set of strides and
// written at another. A GPU thread per element with 64-bit index
// arithmetic over every dimension made these copies memory-bound in name
// only (a pad of a 7168x1020 f16 activation took 54 us on an H200 that
// moves its 29 MB in under 10). The plan below fixes that before launch:
// dimensions that are contiguous on both sides merge, neighbouring
// elements move as one wider element (up to 16 bytes) where alignment
// allows, and offsets are computed in 32 bits where they fit.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_STRIDEDCOPY_H
#define AMPRT_DEVICE_STRIDEDCOPY_H

#include "Kernels.h"
#include <cstdint>

namespace amprt::device {

/// Sixteen bytes copied as one (a 128-bit load and store on a GPU).
struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

/// A copy of `n` elements of `bytes` bytes: element i is read at
/// srcBase + from.offset(i) and written at dstBase + to.offset(i), in
/// elements. `from` and `to` have the same shape.
struct CopyPlan {
  Index from, to;
  int64_t srcBase = 0, dstBase = 0, n = 0;
  int bytes = 1;
};

/// Drops dimensions of size one and merges each dimension into the one
/// outside it where both sides step over it contiguously; the elements
/// and their order are unchanged.
inline void collapse(CopyPlan &p) {
  Index from, to;
  for (int d = 0; d < p.from.rank; ++d) {
    int64_t size = p.from.shape[d];
    if (size == 1)
      continue;
    int last = from.rank - 1;
    if (last >= 0 && from.stride[last] == p.from.stride[d] * size &&
        to.stride[last] == p.to.stride[d] * size) {
      from.shape[last] *= size;
      to.shape[last] *= size;
      from.stride[last] = p.from.stride[d];
      to.stride[last] = p.to.stride[d];
      continue;
    }
    from.shape[from.rank] = to.shape[to.rank] = size;
    from.stride[from.rank++] = p.from.stride[d];
    to.stride[to.rank++] = p.to.stride[d];
  }
  p.from = from;
  p.to = to;
}

/// Whether `k` neighbouring elements can move as one: the innermost
/// dimension is contiguous on both sides and a multiple of k long, and
/// every other stride, both bases and both addresses are multiples of k
/// elements.
inline bool widensBy(const CopyPlan &p, int64_t k, const void *src,
                     const void *dst) {
  int last = p.from.rank - 1;
  if (last < 0 || p.from.stride[last] != 1 || p.to.stride[last] != 1 ||
      p.from.shape[last] % k != 0 || p.srcBase % k != 0 || p.dstBase % k != 0)
    return false;
  for (int d = 0; d < last; ++d)
    if (p.from.stride[d] % k != 0 || p.to.stride[d] % k != 0)
      return false;
  uintptr_t align = (uintptr_t)(k * p.bytes);
  return (uintptr_t)src % align == 0 && (uintptr_t)dst % align == 0;
}

/// Moves the widest group of neighbouring elements (at most 16 bytes)
/// that widensBy allows as one element.
inline void widen(CopyPlan &p, const void *src, const void *dst) {
  for (int64_t k = 16 / p.bytes; k > 1; k /= 2) {
    if (!widensBy(p, k, src, dst))
      continue;
    int last = p.from.rank - 1;
    p.from.shape[last] /= k;
    p.to.shape[last] /= k;
    for (int d = 0; d < last; ++d) {
      p.from.stride[d] /= k;
      p.to.stride[d] /= k;
    }
    p.srcBase /= k;
    p.dstBase /= k;
    p.n /= k;
    p.bytes *= (int)k;
    return;
  }
}

/// The largest offset `index` reaches from `base`, where no stride is
/// negative.
inline int64_t lastOffset(const Index &index, int64_t base) {
  int64_t last = base;
  for (int d = 0; d < index.rank; ++d)
    last += (index.shape[d] - 1) * index.stride[d];
  return last;
}

/// Whether no stride is negative and every index and offset of the plan
/// fits in 32 bits.
inline bool fitsIn32Bits(const CopyPlan &p) {
  for (int d = 0; d < p.from.rank; ++d)
    if (p.from.stride[d] < 0 || p.to.stride[d] < 0)
      return false;
  constexpr int64_t kMax = INT32_MAX;
  return p.n <= kMax && lastOffset(p.from, p.srcBase) <= kMax &&
         lastOffset(p.to, p.dstBase) <= kMax;
}

/// dst[dstBase + to(i)] = src[srcBase + from(i)], offsets computed in
/// `I` (uint32_t where they fit: a GPU divides 32-bit integers several
/// times faster than 64-bit ones).
template <typename E, typename I> struct StridedCopyKernel {
  const E *src;
  E *dst;
  Index from, to;
  int64_t srcBase, dstBase;
  AMPRT_HD void operator()(int64_t i) const {
    dst[dstBase + offsetIn(to, (I)i)] = src[srcBase + offsetIn(from, (I)i)];
  }
  /// Index::offset in I.
  AMPRT_HD static I offsetIn(const Index &index, I linear) {
    I off = 0;
    for (int d = index.rank - 1; d > 0; --d) {
      I size = (I)index.shape[d];
      off += (linear % size) * (I)index.stride[d];
      linear /= size;
    }
    return index.rank > 0 ? off + linear * (I)index.stride[0] : 0;
  }
};

/// Runs f(E()) with an unsigned integer type of `bytes` bytes (1, 2, 4;
/// 8 otherwise).
template <typename F> void withUnsignedOfSize(size_t bytes, F f) {
  switch (bytes) {
  case 1:
    return f(uint8_t());
  case 2:
    return f(uint16_t());
  case 4:
    return f(uint32_t());
  default:
    return f(uint64_t());
  }
}

/// Runs f(E()) with a copy element of `bytes` bytes: Bytes16 for 16, an
/// unsigned integer type otherwise.
template <typename F> void withCopyElement(int bytes, F f) {
  if (bytes == 16)
    return f(Bytes16());
  withUnsignedOfSize((size_t)bytes, f);
}

/// Plans and launches the copy of `plan.n` elements of `plan.bytes`
/// bytes from `src` to `dst`.
template <typename Exec>
amprt_status runCopy(Exec &e, CopyPlan plan, const void *src, void *dst) {
  if (plan.n == 0)
    return AMPRT_OK;
  collapse(plan);
  widen(plan, src, dst);
  amprt_status status = AMPRT_OK;
  withCopyElement(plan.bytes, [&](auto tag) {
    using E = decltype(tag);
    auto launch = [&](auto indexTag) {
      using I = decltype(indexTag);
      status =
          e.launch(StridedCopyKernel<E, I>{static_cast<const E *>(src),
                                           static_cast<E *>(dst), plan.from,
                                           plan.to, plan.srcBase, plan.dstBase},
                   plan.n);
    };
    if (fitsIn32Bits(plan))
      launch(uint32_t());
    else
      launch(int64_t());
  });
  return status;
}

} // namespace amprt::device

#endif // AMPRT_DEVICE_STRIDEDCOPY_H
