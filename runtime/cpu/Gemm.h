//===- Gemm.h - Row-major GEMM on OpenBLAS, and 16-bit staging --*- C++ -*-===//

#ifndef AMPRT_CPU_GEMM_H
#define AMPRT_CPU_GEMM_H

#include "../common/Runtime.h"
#include "Parallel.h"
#include "Convert.h"
#include <cblas.h>

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

/// C[m, n] = alpha * op(A) op(B) + beta * C, row-major, on the tuned BLAS,
/// split by rows (or columns, when there are fewer rows) across threads.
template <typename C>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, C alpha,
          const C *a, int64_t lda, const C *b, int64_t ldb, C beta, C *c,
          int64_t ldc) {
  useSingleThreadedBlas();
  constexpr int64_t kSerialFlops = int64_t(1) << 18;
  if (m * n * k < kSerialFlops) {
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
      } else if constexpr (std::is_same_v<T, half_t> &&
                           std::is_same_v<C, float>) {
        copy.resize(t->numel);
        parallelFor(t->numel, 1 << 15, [&](int64_t b, int64_t e) {
          convert(in + b, copy.data() + b, e - b);
        });
        ptr = copy.data();
      } else {
        copy.resize(t->numel);
        parallelFor(t->numel, 1 << 15, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            copy[i] = (C)load(in, i);
        });
        ptr = copy.data();
      }
    });
  }
  const C *data() const { return ptr; }

private:
  const C *ptr = nullptr;
  std::vector<C> copy;
};

/// Storage for a result computed in C and rounded into `t` by finish().
template <typename C> class Narrowed {
public:
  explicit Narrowed(amprt_tensor *t) : t(t) {
    if (!isCompute())
      copy.assign(t->numel, C(0));
  }
  C *data() { return isCompute() ? static_cast<C *>(t->data) : copy.data(); }
  void finish() {
    if (isCompute())
      return;
    AMPRT_FLOAT_DISPATCH(t->dtype, T, {
      T *out = static_cast<T *>(t->data);
      parallelFor(t->numel, 1 << 15, [&](int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, half_t> && std::is_same_v<C, float>) {
          convert(copy.data() + b, out + b, e - b);
        } else {
          for (int64_t i = b; i < e; ++i)
            store(out, i, (typename Compute<T>::type)copy[i]);
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
  std::vector<C> copy;
};

} // namespace amprt::cpu

#endif // AMPRT_CPU_GEMM_H
