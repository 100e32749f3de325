//===- Blocks.h - 16-bit data in f32 blocks ---------------------*- C++ -*-===//
//
// The CPU has no f16 or bf16 arithmetic. Converting element by element
// keeps loops from vectorising; converting a block of 16-bit operands to
// f32 with the vector conversions (Convert.h), computing on the f32 arrays
// and narrowing the results back runs the arithmetic at f32 speed. The
// values are those of the per-element code: widening is exact and
// narrowing rounds to nearest-even in both.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_BLOCKS_H
#define AMPRT_CPU_BLOCKS_H

#include "../common/amprt_half.h"
#include "Common.h"
#include "Convert.h"
#include "Parallel.h"
#include "Scratch.h"
#include <algorithm>
#include <array>
#include <type_traits>
#include <utility>
#include <vector>

namespace amprt::cpu {

/// Elements worth a thread in elementwise loops.
constexpr int64_t kElementGrain = 1 << 14;

/// Elements worth a thread in whole-tensor 16-bit <-> f32 conversions: from
/// 8K up they split over the cores (at 64K, the transformer's 28K-element
/// row tensors were converted on one core while the other waited; its f16
/// step 0.95x, bf16 0.96x with the split).
constexpr int64_t kConvertGrain = 1 << 13;

/// Elements per block when 16-bit operands are widened to f32.
constexpr int64_t kBlock = 256;

/// Elements of each operand in a block of staged rows (stagedRows): a
/// block's operands stay in L1 together.
constexpr int64_t kStagedRowElements = 2048;

template <typename T>
constexpr bool kIs16Bit =
    std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>;

/// A whole 16-bit tensor widened to f32 once, for kernels that read each
/// element several times (pooling windows): one vector conversion per
/// element instead of a scalar one per read.
template <typename T> Scratch<float> widenAll(const T *src, int64_t n) {
  Scratch<float> wide(n);
  parallelFor(n, kConvertGrain, [&](int64_t begin, int64_t end) {
    convert(src + begin, wide.data() + begin, end - begin);
  });
  return wide;
}

/// `wide` rounded (nearest-even) into the 16-bit tensor `dst`.
template <typename T> void narrowAll(const Scratch<float> &wide, T *dst) {
  parallelFor(wide.size(), kConvertGrain, [&](int64_t begin, int64_t end) {
    convert(wide.data() + begin, dst + begin, end - begin);
  });
}

template <typename T, typename F, typename... In, size_t... Is>
__attribute__((always_inline)) inline void
mapBlocks(int64_t begin, int64_t end, T *out, F &f, std::index_sequence<Is...>,
          const In *...in) {
  float buffers[sizeof...(In) + 1][kBlock];
  float *result = buffers[sizeof...(In)];
  for (int64_t i = begin; i < end; i += kBlock) {
    int64_t m = std::min(kBlock, end - i);
    (convert(in + i, buffers[Is], m), ...);
    for (int64_t j = 0; j < m; ++j)
      result[j] = f(buffers[Is][j]...);
    convert(result, out + i, m);
  }
}

template <typename T, typename F, typename... In>
__attribute__((always_inline)) inline void
mapLoop(int64_t begin, int64_t end, T *out, F &f, const In *...in) {
  for (int64_t i = begin; i < end; ++i)
    store(out, i, f(load(in, i)...));
}

/// The same loop compiled for AVX-512: 16 f32 lanes where the baseline
/// build has 4 (SSE2). The same IEEE operations lane by lane, and no fused
/// multiply-adds (-ffp-contract=off), so the same bits.
template <typename T, typename F, typename... In>
__attribute__((target("avx512f"))) void
mapLoopAvx512(int64_t begin, int64_t end, T *out, F &f, const In *...in) {
  mapLoop(begin, end, out, f, in...);
}

/// 16-bit blocks likewise: the f32 arithmetic between the conversions
/// 16 lanes wide.
template <typename T, typename F, typename... In>
__attribute__((target("avx512f"))) void
mapBlocksAvx512(int64_t begin, int64_t end, T *out, F &f, const In *...in) {
  mapBlocks(begin, end, out, f, std::index_sequence_for<In...>(), in...);
}
template <typename T, typename F, typename... In>
void mapBlocksBaseline(int64_t begin, int64_t end, T *out, F &f,
                       const In *...in) {
  mapBlocks(begin, end, out, f, std::index_sequence_for<In...>(), in...);
}

/// out[i] = f(in[i]...) for i in [begin, end) on this thread.
template <typename T, typename F, typename... In>
void mapSpan(int64_t begin, int64_t end, T *out, F f, const In *...in) {
  if constexpr (kIs16Bit<T>) {
    if (hasAvx512F())
      mapBlocksAvx512(begin, end, out, f, in...);
    else
      mapBlocksBaseline(begin, end, out, f, in...);
  } else if (hasAvx512F()) {
    mapLoopAvx512(begin, end, out, f, in...);
  } else {
    mapLoop(begin, end, out, f, in...);
  }
}

/// out[i] = f(in[i]...) for i in [0, n) on the cores, f computing in
/// Compute<T>. 16-bit operands are widened to f32 a block at a time by the
/// vector conversions (F16C for f16) and the results narrowed the same way,
/// so the arithmetic runs over f32 arrays the compiler vectorises instead
/// of converting element by element (bench/CpuOpCodeBench.cpp); the values
/// are the same, both conversions being exact or round-to-nearest-even.
template <typename T, typename F, typename... In>
void mapElements(int64_t n, T *out, F f, const In *...in) {
  static_assert((std::is_same_v<T, In> && ...), "one storage type");
  parallelFor(n, kElementGrain, [&](int64_t begin, int64_t end) {
    mapSpan(begin, end, out, f, in...);
  });
}

/// out[o][c] = f(c, in[o][c]...) over `outer` channels-last rows of `axis`
/// values, stored in out's compute type: plain loops over the channel, which
/// vectorise. 16-bit rows go a block of rows at a time through the vector
/// conversions (one conversion call per short row, or per element, was
/// most of a bf16 bias add and a third of a bf16 batch norm); the values f
/// sees and the rounding are the same.
template <typename T, typename F, typename... In, size_t... Is>
void mapChannelsLast(int64_t outer, int64_t axis, T *out, F f,
                     std::index_sequence<Is...>, const In *...in) {
  using C = typename Compute<T>::type;
  int64_t grain = std::max<int64_t>(1, kElementGrain / axis);
  if constexpr (kIs16Bit<T>) {
    if (axis <= kBlock) {
      int64_t perBlock = kBlock / axis;
      parallelForWide(outer, grain, [&](int64_t begin, int64_t end) {
        float wide[sizeof...(In)][kBlock], result[kBlock];
        for (int64_t o = begin; o < end; o += perBlock) {
          int64_t rows = std::min(perBlock, end - o);
          (convert(in + o * axis, wide[Is], rows * axis), ...);
          for (int64_t q = 0; q < rows; ++q)
            for (int64_t c = 0; c < axis; ++c) {
              int64_t k = q * axis + c;
              result[k] = (C)f(c, wide[Is][k]...);
            }
          convert(result, out + o * axis, rows * axis);
        }
      });
      return;
    }
  }
  parallelForWide(outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o)
      for (int64_t c = 0; c < axis; ++c)
        store(out + o * axis, c, (C)f(c, load(in + o * axis, c)...));
  });
}
template <typename T, typename F, typename... In>
void mapChannelsLast(int64_t outer, int64_t axis, T *out, F f,
                     const In *...in) {
  mapChannelsLast(outer, axis, out, f, std::index_sequence_for<In...>(), in...);
}

/// out[r][i] = f(a[r][i], b[i]) over `rows` rows of `inner` elements, rows
/// split over the cores; 16-bit data in blocks as in mapElements. Short
/// 16-bit rows (a channels-last bias: 16 or 32 channels) widen `b` once and
/// go through mapChannelsLast.
template <typename T, typename F>
void mapRows(int64_t rows, int64_t inner, T *out, F f, const T *a, const T *b) {
  int64_t grain = std::max<int64_t>(1, kElementGrain / inner);
  if constexpr (kIs16Bit<T>) {
    if (inner > 0 && 2 * inner <= kBlock) {
      float wideB[kBlock];
      convert(b, wideB, inner);
      mapChannelsLast(
          rows, inner, out, [&](int64_t c, float x) { return f(x, wideB[c]); },
          a);
      return;
    }
  }
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      mapSpan(0, inner, out + r * inner, f, a + r * inner, b);
  });
}

/// f(c, values[i * n + k]..., sums): element k of each of the widened
/// inputs laid out one after another, n elements each.
template <typename F, size_t... Is>
__attribute__((always_inline)) inline void
callWithInputs(F &f, int64_t c, const float *values, int64_t n, int64_t k,
               double *sums, std::index_sequence<Is...>) {
  f(c, values[int64_t(Is) * n + k]..., sums);
}

/// channelSums over 16-bit data whose f(c, v..., acc) takes the element's
/// value in each input: each thread widens its block of rows into f32
/// scratch with the vector conversions and sums from there, in
/// channelSums' order, so the sums are those of the widened tensors without
/// writing all of them (a scalar conversion per element was 1.7x as slow as
/// summing f32 data).
template <bool Wide = false, typename F, typename T, typename... More>
std::vector<double> channelSumsWidened(const Split &s, int64_t width, F f,
                                       const T *data, const More *...more) {
  static_assert((std::is_same_v<T, More> && ...), "one storage type");
  constexpr int64_t inputs = 1 + sizeof...(More);
  int64_t row = std::max<int64_t>(1, s.axis * s.inner);
  // Rows widened a few at a time, so the f32 copies stay in L1 between
  // the conversion and the sums; the ranges continue one block's sums.
  int64_t stride = std::max<int64_t>(1, kStagedRowElements / row);
  return sumRowBlocks<Wide>(
      s, s.axis * width, [&](int64_t first, int64_t last, double *acc) {
        int64_t n = std::min(stride, last - first) * row;
        Scratch<float> wide(inputs * n);
        const T *sources[inputs] = {data, more...};
        for (int64_t from = first; from < last; from += stride) {
          int64_t to = std::min(last, from + stride), m = (to - from) * row;
          for (int64_t i = 0; i < inputs; ++i)
            convert(sources[i] + from * row, wide.data() + i * n, m);
          const float *values = wide.data();
          int64_t offset = from * row;
          auto term = [&](int64_t c, int64_t k, double *sums) {
            callWithInputs(f, c, values, n, k - offset, sums,
                           std::make_index_sequence<inputs>());
          };
          sumRows(s, width, from, to, term, acc);
        }
      });
}

/// Rows [begin, end) of 16-bit tensors with `length`-element rows through
/// an f32 row kernel on the calling thread, a block of rows at a time: the
/// block's rows of every input are widened into scratch with the vector
/// conversions, kernel(first, count, wideIn, wideOut) runs on them and the
/// outputs' rows are narrowed back. The values are those of the kernel run
/// on whole f32 copies of the tensors (widening is exact; each result
/// rounds once, f32 -> 16 bits).
template <typename T, size_t In, size_t Out, typename Kernel>
void stagedRowRange(int64_t begin, int64_t end, int64_t length,
                    const std::array<const T *, In> &in,
                    const std::array<T *, Out> &out, const Kernel &kernel) {
  static_assert(kIs16Bit<T>, "f32 kernels over 16-bit storage");
  if (begin >= end || length <= 0)
    return;
  int64_t blockRows = std::max<int64_t>(1, kStagedRowElements / length);
  int64_t span = std::min(blockRows, end - begin) * length;
  Scratch<float> wide(int64_t(In + Out) * span);
  std::array<const float *, In> wideIn;
  std::array<float *, Out> wideOut;
  for (size_t i = 0; i < In; ++i)
    wideIn[i] = wide.data() + i * span;
  for (size_t o = 0; o < Out; ++o)
    wideOut[o] = wide.data() + (In + o) * span;
  for (int64_t first = begin; first < end; first += blockRows) {
    int64_t count = std::min(blockRows, end - first), n = count * length;
    for (size_t i = 0; i < In; ++i)
      convert(in[i] + first * length, wide.data() + i * span, n);
    kernel(first, count, wideIn, wideOut);
    for (size_t o = 0; o < Out; ++o)
      convert(static_cast<const float *>(wideOut[o]), out[o] + first * length,
              n);
  }
}

/// stagedRowRange over rows [0, rows), split across the cores: for the
/// transformer's rows, one pass over the 16-bit data where whole f32
/// copies took three parallel regions more per op.
template <typename T, size_t In, size_t Out, typename Kernel>
void stagedRows(int64_t rows, int64_t length, int64_t grain,
                const std::array<const T *, In> &in,
                const std::array<T *, Out> &out, Kernel kernel) {
  if (rows <= 0 || length <= 0)
    return;
  parallelForWide(rows, grain, [&](int64_t begin, int64_t end) {
    stagedRowRange<T, In, Out>(begin, end, length, in, out, kernel);
  });
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_BLOCKS_H
