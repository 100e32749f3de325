//===- AttentionRows.h - A block's score rows, 16 lanes at a time -*- C++
//-*-===//
//
// The softmax of a block's score rows and its gradient over f32 vectors of
// 16 lanes (GCC's vector extension: one zmm under AVX-512, two ymm under
// AVX2, four xmm in the baseline build; the head loops that use them are
// compiled for the CPU that runs them). The row maxima and sums keep 16
// partial results: written one lane at a time (no -ffast-math, so the
// compiler may not reorder a sum) they were most of a fused head's time.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_ATTENTIONROWS_H
#define AMPRT_CPU_ATTENTIONROWS_H

#include "../common/amprt_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

// 64-byte vectors are returned by value only between always-inlined
// helpers, inside functions compiled for one target; the ABI note GCC
// gives for them does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace amprt::cpu::heads {

typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

[[gnu::always_inline]] inline V16 loadV(const float *p) {
  V16 v;
  memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline void storeV(float *p, V16 v) {
  memcpy(p, &v, sizeof v);
}

[[gnu::always_inline]] inline V16 splat(float x) { return V16{} + x; }

/// All lanes set where j0 + lane < limit.
[[gnu::always_inline]] inline I16 lanesBelow(int64_t j0, int64_t limit) {
  const I16 lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  int64_t left = std::min<int64_t>(limit - j0, 16);
  return lane < (int32_t)left;
}

/// a where mask's lane is set, else b, in bitwise operations: GCC splits
/// a ?: whose condition is not itself a comparison into one branch a lane.
[[gnu::always_inline]] inline V16 select(I16 mask, V16 a, V16 b) {
  return (V16)(((I16)a & mask) | ((I16)b & ~mask));
}

/// m_expNonPositive (amprt_elementary.h) on each lane: its own lines, so its
/// bits.
struct V16BitsCast {
  [[gnu::always_inline]] static I16 bits(V16 x) { return (I16)x; }
  [[gnu::always_inline]] static V16 fromBits(I16 b) { return (V16)b; }
};
[[gnu::always_inline]] inline V16 expNonPositive(V16 x) {
  return expNonPositiveLanes<V16, V16BitsCast>(x);
}

/// op folded over v's lanes as a tree (halves, quarters, ...): four
/// dependent steps where a lane at a time took fifteen.
template <typename Op>
[[gnu::always_inline]] inline float foldLanes(V16 v, Op op) {
  typedef float V8 __attribute__((vector_size(32)));
  typedef float V4 __attribute__((vector_size(16)));
  V8 lo8, hi8;
  memcpy(&lo8, &v, sizeof lo8);
  memcpy(&hi8, reinterpret_cast<const char *>(&v) + sizeof lo8, sizeof hi8);
  V8 v8 = op(lo8, hi8);
  V4 lo4, hi4;
  memcpy(&lo4, &v8, sizeof lo4);
  memcpy(&hi4, reinterpret_cast<const char *>(&v8) + sizeof lo4, sizeof hi4);
  V4 v4 = op(lo4, hi4);
  return op(op(v4[0], v4[2]), op(v4[1], v4[3]));
}

[[gnu::always_inline]] inline float maxOf(V16 v) {
  return foldLanes(v, [](auto a, auto b) { return a > b ? a : b; });
}

[[gnu::always_inline]] inline float sumOf(V16 v) {
  return foldLanes(v, [](auto a, auto b) { return a + b; });
}

/// row[0, width) = the softmax of scale * row[0, seen), 0 past it; width
/// is a multiple of 16 at least seen. A NaN score makes its row NaN. The
/// scores are scaled as each pass reads them (a multiply by 1 is exact).
inline void softmaxRow(float *row, int64_t seen, int64_t width, float scale) {
  V16 m = splat(-INFINITY);
  for (int64_t j = 0; j < width; j += 16) {
    V16 x =
        select(lanesBelow(j, seen), loadV(row + j) * scale, splat(-INFINITY));
    m = x > m ? x : m;
  }
  float top = maxOf(m);
  V16 sum = {};
  for (int64_t j = 0; j < width; j += 16) {
    V16 e = expNonPositive(loadV(row + j) * scale - top);
    e = select(lanesBelow(j, seen), e, V16{});
    storeV(row + j, e);
    sum += e;
  }
  // The lanes past `seen` stay 0 when inv is not finite (a NaN or
  // infinite score): 0 * NaN would carry the row's NaN into dv for keys
  // the row does not see.
  float inv = 1.f / sumOf(sum);
  for (int64_t j = 0; j < width; j += 16)
    storeV(row + j, select(lanesBelow(j, seen), loadV(row + j) * inv, V16{}));
}

/// g = scale p (g - sum_j p g) over [0, width): the gradient of the
/// unscaled scores (g entering as the probabilities' gradient, p as
/// softmaxRow left it); 0 where p is 0 and g and the row's sum of p g are
/// finite.
inline void softmaxGradRow(const float *p, float *g, int64_t width,
                           float scale) {
  V16 dot = {};
  for (int64_t j = 0; j < width; j += 16)
    dot += loadV(p + j) * loadV(g + j);
  float d = sumOf(dot);
  for (int64_t j = 0; j < width; j += 16)
    storeV(g + j, loadV(p + j) * (loadV(g + j) - d) * scale);
}

} // namespace amprt::cpu::heads

#endif // AMPRT_CPU_ATTENTIONROWS_H
