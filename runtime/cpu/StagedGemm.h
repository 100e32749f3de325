//===- StagedGemm.h - 16-bit products in f32, staged per thread -*- C++ -*-===//
//
// f16 products (and bf16 ones where oneDNN has no bf16 kernel) run as f32
// GEMMs on widened operands and round their result back. Widening whole
// operands across the cores and then multiplying across the cores makes
// every core read the lines the other one just wrote, and rewrite them on
// the next call: on this 2-core machine the f16 32x784 by 784x128 product
// took 2.4-6x its f32 time, almost all of it stalled on the widening
// stores. Here each thread widens only the slices its block of the result
// reads, into its own scratch, multiplies them on its own core and rounds
// its block straight into the result, so the staging never leaves the
// core that wrote it.
//
// An f16 product of few rows and a long sum (the MLP's first layer) is
// split by slices of the sum rather than by columns: each core stages
// whole rows of B, the rows the optimizer's update on that core is likely
// to have written, and the partial products are added in slice order.
//
// An operand may also be f32 where the result is 16-bit (amprt_matmul's
// rounded operands): it is rounded to the result's type on the way into
// the staging, the same bits a cast tensor would have held.
//
// The epilogue (StagedEpilogue) adds the bias and applies an activation to
// each block while it is still in the thread's f32 staging, rounding where
// the separate amprt_bias_add and amprt_unary calls round.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_STAGEDGEMM_H
#define AMPRT_CPU_STAGEDGEMM_H

#include "../common/DeviceBackend.h"
#include "Blocks.h"
#include "Elementwise.h"
#include "Gemm.h"
#include <algorithm>
#include <optional>
#include <type_traits>

namespace amprt::cpu {

/// Staged blocks of fewer multiply-adds than this run on OpenBLAS's
/// single-thread sgemm rather than oneDNN's: inside a training step
/// dnnl_sgemm took 10x its microbenchmark time on such blocks (the
/// transformer's embedding, the CNN's dense layer; docs/performance.md).
constexpr int64_t kSmallStagedFlops = int64_t(1) << 20;

/// A staged product of at most this many rows and a sum of at least
/// 2 * kSliceOfSum terms runs slices of the sum of kSliceOfSum or more
/// terms on the cores (at most kMaxSlicesOfSum), not blocks of columns.
/// (bf16 stages only where oneDNN has no bf16 kernel, so no primitive's
/// sum order is to be matched: it slices as f16 does.)
constexpr int64_t kSliceOfSum = 384, kMaxSlicesOfSum = 4, kSlicedRows = 64;

/// The number of slices of a staged product's sum (1: not sliced).
inline int64_t slicesOfSum(int64_t m, int64_t k) {
  if (m > kSlicedRows)
    return 1;
  return std::clamp<int64_t>(k / kSliceOfSum, 1, kMaxSlicesOfSum);
}

/// dst[0, n) = src[0, n) as values of the 16-bit type T, in f32: widened,
/// or (f32 sources) rounded to T and widened back.
template <typename T, typename S>
void stageRun(const S *src, float *dst, int64_t n) {
  if constexpr (std::is_same_v<S, T>) {
    convert(src, dst, n);
  } else {
    static_assert(std::is_same_v<S, float>, "rounded operands are f32");
    roundThrough(T(), src, dst, n);
  }
}

/// dst[r * cols + j] = src[(r0 + r) * ld + c0 + j], staged as T, for a
/// rows x cols window of a row-major matrix.
template <typename T, typename S>
void stageWindow(const S *src, int64_t ld, int64_t r0, int64_t rows, int64_t c0,
                 int64_t cols, float *dst) {
  if (cols == ld) // whole rows: one run
    return stageRun<T>(src + r0 * ld, dst, rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    stageRun<T>(src + (r0 + r) * ld + c0, dst + r * cols, cols);
}

/// Rows [r0, r0 + rows) of op(A) over terms [p0, p0 + kk) of the sum, as
/// T, for A of m x k (op(A)) stored row-major: stored rows, or stored
/// columns when transposed (kept transposed, [kk, rows]).
template <typename T, typename S>
void stageOpA(const S *a, bool ta, int64_t m, int64_t k, int64_t r0,
              int64_t rows, int64_t p0, int64_t kk, float *dst) {
  if (ta)
    stageWindow<T>(a, m, p0, kk, r0, rows, dst);
  else
    stageWindow<T>(a, k, r0, rows, p0, kk, dst);
}

/// Terms [p0, p0 + kk) of the sum by columns [c0, c0 + cols) of op(B), as
/// T, for op(B) of k x n stored row-major: stored columns, or stored rows
/// when transposed ([cols, kk]).
template <typename T, typename S>
void stageOpB(const S *b, bool tb, int64_t k, int64_t n, int64_t p0, int64_t kk,
              int64_t c0, int64_t cols, float *dst) {
  if (tb)
    stageWindow<T>(b, k, c0, cols, p0, kk, dst);
  else
    stageWindow<T>(b, n, p0, kk, c0, cols, dst);
}

/// wc[rows, cols] = op(wa) op(wb) over the f32 staging of a 16-bit
/// product, packed (op(wa) is rows x k, op(wb) k x cols).
inline void stagedGemm(bool ta, bool tb, int64_t rows, int64_t cols, int64_t k,
                       const float *wa, const float *wb, float *wc) {
  if (rows * cols * k < kSmallStagedFlops)
    blasGemm(ta, tb, rows, cols, k, 1.0f, wa, ta ? rows : k, wb, tb ? k : cols,
             0.0f, wc, cols);
  else
    gemm(ta, tb, rows, cols, k, 1.0f, wa, ta ? rows : k, wb, tb ? k : cols,
         0.0f, wc, cols);
}

/// Stores f32 blocks of a staged product into C (and `pre`): the product
/// rounded to TC, plus the bias of each column rounded again, as
/// amprt_bias_add adds it to the stored product; then, with an activation,
/// that value into `pre` when there is one and the activation of it
/// (computed in f32, as amprt_unary computes a 16-bit tensor) into C.
template <typename TC> class StagedEpilogue {
public:
  StagedEpilogue(TC *c, int64_t n, const TC *bias,
                 const device::Activation &act)
      : c(c), act(act),
        pre(act.on && act.pre ? static_cast<TC *>(act.pre->data) : nullptr) {
    if (bias && n > 0)
      tiledBias.emplace(bias, n);
  }

  /// Elements [at, at + len) of C from acc (overwritten), whose first
  /// element is in column `first`: runs of whole rows start at column 0,
  /// a part of one row may start anywhere.
  void store(float *acc, int64_t at, int64_t len, int64_t first = 0) const {
    if (tiledBias)
      tiledBias->add(acc, len, first);
    if (act.on) {
      roundThrough(TC(), acc, acc, len);
      if (pre)
        convert(acc, pre + at, len);
      // In the AVX-512 clone where there is one, as amprt_unary's loop runs
      // (gelu is about 90 operations per 16 lanes: in the baseline build
      // the fused transformer f16 step took 1.17x the unfused one).
      auto activate = [&](int64_t begin, int64_t end) {
        withUnary(act.kind, [&](auto op) {
          float alpha = (float)act.alpha;
          for (int64_t i = begin; i < end; ++i)
            acc[i] = applyUnary<float>(op.value, acc[i], alpha);
        });
      };
      if (hasAvx512F())
        detail::runBodyAvx512(activate, 0, len);
      else
        activate(0, len);
    }
    convert(acc, c + at, len);
  }

private:
  TC *c;
  const device::Activation &act;
  TC *pre;
  std::optional<TiledBias<TC>> tiledBias;
};

/// C[count, m, n] = op(A) op(B) for a 16-bit C, accumulated in f32; A and B
/// are C's type or f32. A is [count, m, k] ([count, k, m] when `ta`), B
/// [count, k, n] ([count, n, k] when `tb`), all row-major and contiguous.
/// A non-null `bias` (n values of C's type) is added to each row, and `act`
/// applied, by StagedEpilogue while the rows are still in the thread's f32
/// staging.
template <typename TC, typename TA, typename TB>
void stagedMatmul(const TA *a, const TB *b, TC *c, bool ta, bool tb, int64_t m,
                  int64_t n, int64_t k, int64_t count, const TC *bias = nullptr,
                  const device::Activation &act = {}) {
  StagedEpilogue<TC> epilogue(c, n, bias, act);
  // C[batch][r0:r1, c0:c1] on the calling thread, staged in wa, wb, wc
  // (at least rows * k, k * cols and rows * cols floats).
  auto stagedBlock = [&](int64_t batch, int64_t r0, int64_t r1, int64_t c0,
                         int64_t c1, float *wa, float *wb, float *wc) {
    int64_t rows = r1 - r0, cols = c1 - c0;
    const TA *ab = a + batch * m * k;
    const TB *bb = b + batch * k * n;
    stageOpA<TC>(ab, ta, m, k, r0, rows, 0, k, wa);
    stageOpB<TC>(bb, tb, k, n, 0, k, c0, cols, wb);
    stagedGemm(ta, tb, rows, cols, k, wa, wb, wc);
    int64_t at = batch * m * n + r0 * n;
    if (cols == n)
      return epilogue.store(wc, at, rows * cols);
    for (int64_t r = 0; r < rows; ++r)
      epilogue.store(wc + r * cols, at + r * n + c0, cols, c0);
  };
  auto block = [&](int64_t batch, int64_t r0, int64_t r1, int64_t c0,
                   int64_t c1) {
    int64_t rows = r1 - r0, cols = c1 - c0;
    Scratch<float> wa(rows * k), wb(k * cols), wc(rows * cols);
    stagedBlock(batch, r0, r1, c0, c1, wa.data(), wb.data(), wc.data());
  };
  if (m == 0 || n == 0 || count == 0)
    return;
  useSingleThreadedBlas();
  if (k == 0) { // an empty sum: zeros, without asking a GEMM about it
    Scratch<float> zeros(n);
    for (int64_t r = 0; r < count * m; ++r) {
      std::fill(zeros.data(), zeros.data() + n, 0.0f);
      epilogue.store(zeros.data(), r * n, n);
    }
    return;
  }
  if (count > 1) {
    // One staging per thread for all its batch members (three scratch
    // lookups per member were a tenth of an attention product's time).
    parallelFor(count, 1, [&](int64_t begin, int64_t end) {
      Scratch<float> wa(m * k), wb(k * n), wc(m * n);
      for (int64_t i = begin; i < end; ++i)
        stagedBlock(i, 0, m, 0, n, wa.data(), wb.data(), wc.data());
    });
    return;
  }
  // Small products stay on one thread.
  if (m * n * k < kSerialGemmFlops)
    return block(0, 0, m, 0, n);
  if (int64_t slices = slicesOfSum(m, k); slices > 1) {
    // A few rows and a long sum: slices of the sum on the cores, each
    // staging whole rows of B where it is stored [k, n], then the partial
    // products added in slice order and rounded once. Split by columns
    // (the MLP's 32x784 by 784x128), each core read a strided half of
    // every row of B, half of them lines the other core had just written
    // (the optimizer's update): 87 us in the step against f32's 41. The
    // slices depend on k alone, so the bits do not depend on the threads.
    int64_t span = (k + slices - 1) / slices;
    Scratch<float> partial(slices * m * n);
    parallelFor(slices, 1, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        int64_t p0 = s * span, kk = std::min(k, p0 + span) - p0;
        Scratch<float> wa(m * kk), wb(kk * n);
        stageOpA<TC>(a, ta, m, k, 0, m, p0, kk, wa.data());
        stageOpB<TC>(b, tb, k, n, p0, kk, 0, n, wb.data());
        stagedGemm(ta, tb, m, n, kk, wa.data(), wb.data(),
                   partial.data() + s * m * n);
      }
    });
    float *sum = partial.data();
    for (int64_t s = 1; s < slices; ++s) {
      const float *next = partial.data() + s * m * n;
      for (int64_t i = 0; i < m * n; ++i)
        sum[i] += next[i];
    }
    return epilogue.store(sum, 0, m * n);
  }
  // As gemm() splits an f32 product: by rows, or by columns when there
  // are fewer rows.
  if (m >= n)
    parallelFor(m, 16, [&](int64_t r0, int64_t r1) { block(0, r0, r1, 0, n); });
  else
    parallelFor(n, 16, [&](int64_t c0, int64_t c1) { block(0, 0, m, c0, c1); });
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_STAGEDGEMM_H
