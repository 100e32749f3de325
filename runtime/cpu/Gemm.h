//===- Gemm.h - Row-major GEMM on OpenBLAS, and 16-bit staging --*- C++ -*-===//

#ifndef AMPRT_CPU_GEMM_H
#define AMPRT_CPU_GEMM_H

#include "../common/Runtime.h"
#include "Blocks.h"
#include "OneDnn.h"
#include "Parallel.h"
#include "Scratch.h"
#include <cblas.h>
#include <type_traits>

namespace amprt::cpu {

inline void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                     float alpha, const float *a, int64_t lda, const float *b,
                     int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
              beta, c, ldc);
}
inline void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                     double alpha, const double *a, int64_t lda,
                     const double *b, int64_t ldb, double beta, double *c,
                     int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
              beta, c, ldc);
}

/// OpenBLAS's pthreads and the runtime's OpenMP threads both spin while
/// they wait, and on a small machine they take each other's cores: the CNN
/// step ran 1.4-1.9x slower with OpenBLAS threaded (docs/performance.md).
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
      blasGemm(ta, tb, end - begin, n, k, alpha,
               a + (ta ? begin : begin * lda), lda, b, ldb, beta,
               c + begin * ldc, ldc);
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
