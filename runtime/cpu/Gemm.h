//===- Gemm.h - Row-major GEMM on OpenBLAS, and 16-bit staging --*- C++ -*-===//

#ifndef AMPRT_CPU_GEMM_H
#define AMPRT_CPU_GEMM_H

#include "../common/Runtime.h"
#include "Blocks.h"
#include "OneDnn.h"
#include "Parallel.h"
#include "Scratch.h"
#include <algorithm>
#include <type_traits>
#ifdef AMPRT_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace amprt::cpu {

/// Whether products run on OpenBLAS: built with it, and AMPRT_BLAS=0 (the
/// built-in loops, as a build without OpenBLAS runs them) not set.
bool openBlasEnabled();

/// Row-major C = alpha op(A) op(B) + beta C in plain loops, for builds
/// without OpenBLAS (the runtime-only build of machines that have none).
/// Each element is one sum over the terms in order, so its bits do not
/// depend on how callers split the rows or columns.
template <typename C>
void loopGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, C alpha,
              const C *a, int64_t lda, const C *b, int64_t ldb, C beta, C *c,
              int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    C *row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      C sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += (ta ? a[p * lda + i] : a[i * lda + p]) *
               (tb ? b[j * ldb + p] : b[p * ldb + j]);
      row[j] = beta == C(0) ? alpha * sum : alpha * sum + beta * row[j];
    }
  }
}

template <typename C>
void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, C alpha,
              const C *a, int64_t lda, const C *b, int64_t ldb, C beta, C *c,
              int64_t ldc) {
#ifdef AMPRT_HAVE_OPENBLAS
  if (openBlasEnabled()) {
    auto order = CblasRowMajor;
    auto opA = ta ? CblasTrans : CblasNoTrans,
         opB = tb ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<C, float>)
      cblas_sgemm(order, opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c,
                  ldc);
    else
      cblas_dgemm(order, opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c,
                  ldc);
    return;
  }
#endif
  loopGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/// OpenBLAS's pthreads and the runtime's OpenMP threads both spin while
/// they wait, and on a small machine they take each other's cores: the CNN
/// step ran 1.45-1.65x slower with OpenBLAS threaded (measured on a 2-core
/// EPYC: 45-51 ms against 31 ms, runs alternated).
/// So OpenBLAS runs on one thread and gemm() splits big products across
/// the runtime's own OpenMP threads.
void useSingleThreadedBlas();

/// Products of fewer multiply-adds than this run on one thread.
constexpr int64_t kSerialGemmFlops = int64_t(1) << 18;

/// C[m, n] = alpha * op(A) op(B) + beta * C, row-major: f32 on oneDNN when
/// it is built in, else (and f64) on the tuned BLAS, split by rows (or
/// columns, when there are fewer rows) across threads.
template <typename C>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, C alpha,
          const C *a, int64_t lda, const C *b, int64_t ldb, C beta, C *c,
          int64_t ldc) {
  // oneDNN's f32 GEMM threads itself (OpenMP, the runtime's own threads).
  if constexpr (std::is_same_v<C, float>)
    if (dnnlSgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
      return;
  useSingleThreadedBlas();
  if (m * n * k < kSerialGemmFlops) {
    blasGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Row i of op(A) is row i of A, or column i when A is transposed.
  if (m >= n) {
    parallelFor(m, 16, [&](int64_t begin, int64_t end) {
      blasGemm(ta, tb, end - begin, n, k, alpha, a + (ta ? begin : begin * lda),
               lda, b, ldb, beta, c + begin * ldc, ldc);
    });
    return;
  }
  parallelFor(n, 16, [&](int64_t begin, int64_t end) {
    blasGemm(ta, tb, m, end - begin, k, alpha, a, lda,
             b + (tb ? begin * ldb : begin), ldb, beta, c + begin, ldc);
  });
}

/// Whether storage type T and compute type C have bulk `convert` loops
/// both ways (16-bit and f32), bit-identical to the element-wise load/store.
template <typename T, typename C>
constexpr bool kBulkConvert = kIs16Bit<T> &&std::is_same_v<C, float>;

/// A tensor's values in its compute type (f32, or f64 for f64): the data
/// itself when it already is, else a widened copy (16-bit inputs accumulate
/// in f32).
template <typename C> class Widened {
public:
  explicit Widened(const amprt_tensor *t) {
    AMPRT_FLOAT_DISPATCH(t->dtype, T, {
      const T *in = static_cast<const T *>(t->data);
      if constexpr (std::is_same_v<T, C>) {
        ptr = in;
      } else {
        copy.allocate(t->numel);
        C *out = copy.data();
        parallelFor(t->numel, 1 << 15, [&](int64_t b, int64_t e) {
          if constexpr (kBulkConvert<T, C>) {
            convert(in + b, out + b, e - b);
          } else {
            for (int64_t i = b; i < e; ++i)
              out[i] = (C)load(in, i);
          }
        });
        ptr = out;
      }
    });
  }
  const C *data() const { return ptr; }

private:
  const C *ptr = nullptr;
  Scratch<C> copy; // uninitialised: written in full before it is read
};

/// A bias of type T (16-bit, widened, or f32) repeated in f32 over as many
/// rows as fit in a few KB, so that biasing a run of whole rows is one
/// straight vector loop (per-row calls over 16 channels cost more than the
/// separate bias pass they replaced, and ran at a third of memory speed).
template <typename T> class TiledBias {
public:
  TiledBias(const T *bias, int64_t width)
      : width(width), rows(std::max<int64_t>(
                          1, kTiledElements / std::max<int64_t>(1, width))),
        values(rows * width) {
    if constexpr (std::is_same_v<T, float>)
      std::copy(bias, bias + width, values.data());
    else
      convert(bias, values.data(), width);
    for (int64_t r = 1; r < rows; ++r)
      std::copy(values.data(), values.data() + width,
                values.data() + r * width);
  }

  /// out[i] = in[i] + the bias of i's column (i % width, counting from
  /// column `first`), for i < n, in f32: amprt_bias_add's addition (in may
  /// be out). Runs of whole rows start at column 0; a partial row
  /// (n <= width - first) may start anywhere.
  void sum(const float *in, float *out, int64_t n, int64_t first = 0) const {
    const float *b = values.data() + first;
    int64_t tile = rows * width - first;
    for (int64_t i = 0; i < n; i += tile) {
      int64_t len = std::min(tile, n - i);
      for (int64_t j = 0; j < len; ++j)
        out[i + j] = in[i + j] + b[j];
    }
  }

  /// out[i] = acc[i] rounded to T, plus the bias of i's column, rounded to
  /// T again, for i < n (16-bit T): what a 16-bit product or convolution
  /// followed by amprt_bias_add store, two roundings and the same f32
  /// addition, without the pass over the 16-bit result in between. acc is
  /// overwritten.
  void apply(float *acc, T *out, int64_t n, int64_t first = 0) const {
    add(acc, n, first);
    convert(acc, out, n);
  }

  /// apply() without the store: acc[i] becomes the f32 sum of the rounded
  /// product and the bias, which the caller rounds.
  void add(float *acc, int64_t n, int64_t first = 0) const {
    roundThrough(T(), acc, acc, n);
    sum(acc, acc, n, first);
  }

private:
  static constexpr int64_t kTiledElements = 2048;
  int64_t width, rows;
  Scratch<float> values;
};

/// Storage for a result computed in C and rounded into `t` by finish().
/// The callers write every element before finish().
template <typename C> class Narrowed {
public:
  explicit Narrowed(amprt_tensor *t) : t(t) {
    if (!isCompute())
      copy.allocate(t->numel);
  }
  C *data() { return isCompute() ? static_cast<C *>(t->data) : copy.data(); }
  void finish() {
    if (isCompute())
      return;
    AMPRT_FLOAT_DISPATCH(t->dtype, T, {
      T *out = static_cast<T *>(t->data);
      const C *in = copy.data();
      parallelFor(t->numel, 1 << 15, [&](int64_t b, int64_t e) {
        if constexpr (kBulkConvert<T, C>) {
          convert(in + b, out + b, e - b);
        } else {
          for (int64_t i = b; i < e; ++i)
            store(out, i, (typename Compute<T>::type)in[i]);
        }
      });
    });
  }

  /// finish() for a result whose last dimension is `bias`'s (t's type):
  /// each element as finish() rounds it, plus the bias, rounded again, in
  /// one pass instead of finish() and amprt_bias_add's.
  void finishWithBias(const amprt_tensor *bias) {
    int64_t width = bias->numel, rows = width ? t->numel / width : 0;
    int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / (width + 1));
    AMPRT_FLOAT_DISPATCH(t->dtype, T, {
      T *out = static_cast<T *>(t->data);
      const T *b = static_cast<const T *>(bias->data);
      if constexpr (kBulkConvert<T, C>) {
        TiledBias<T> tiled(b, width);
        parallelFor(rows, grain, [&](int64_t r0, int64_t r1) {
          tiled.apply(copy.data() + r0 * width, out + r0 * width,
                      (r1 - r0) * width);
        });
      } else {
        // t holds C itself (f32 and f64 results): amprt_bias_add's
        // addition in place.
        using TC = typename Compute<T>::type;
        const C *acc = data();
        parallelFor(rows, grain, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t j = 0; j < width; ++j)
              store(out, r * width + j,
                    (TC)((TC)acc[r * width + j] + (TC)load(b, j)));
        });
      }
    });
  }

private:
  bool isCompute() const {
    return (std::is_same_v<C, float> && t->dtype == AMPRT_F32) ||
           (std::is_same_v<C, double> && t->dtype == AMPRT_F64);
  }
  amprt_tensor *t;
  Scratch<C> copy; // uninitialised: written in full before it is read
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_GEMM_H
