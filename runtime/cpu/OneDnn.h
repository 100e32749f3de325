//===- OneDnn.h - Matmuls on oneDNN's native kernels ------------*- C++ -*-===//
//
// Debian's OpenBLAS has no bf16 GEMM and runs its Haswell sgemm on newer
// CPUs, so a bf16 product on it is widen + sgemm + narrow. oneDNN's matmul
// reads bf16 directly where the CPU has bf16 dot products (AVX512-BF16,
// AMX) and accumulates in f32, as cuBLAS does: on this project's Zen 4 it
// ran the example models' products 4-9x faster than the staged path, and
// its f32 kernels 2x faster than OpenBLAS's. Convolutions likewise run on
// its direct kernels instead of im2col + GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_ONEDNN_H
#define AMPRT_CPU_ONEDNN_H

#include "../common/Geometry.h"
#include "../common/Runtime.h"

namespace amprt::cpu {

/// Convolution output rows at most this many points wide are narrow:
/// oneDNN 2.6's kernels for plain NHWC activations (forward) and its direct
/// filter-gradient kernels run them far below the CPU's peak, so its
/// forward kernel picks its activations' layout for them and their filter
/// gradients go a product a window tap (ConvFilterTaps.h). On Zen 5 both
/// ran 4-wide rows 1.2-2.5x faster in bf16 and f32 and 7-wide ones as fast
/// or slower.
constexpr int64_t kNarrowOutputRow = 4;

/// c[i] = op(a[i]) op(b[i]) for i < count (row-major, contiguous, a, b
/// and c of one dtype), on oneDNN when it has a native (non-reference)
/// kernel for the dtype on this CPU. Returns false, having done nothing,
/// when it has none, when oneDNN is not built in, or when AMPRT_DNNL=0 asks
/// for the OpenBLAS path. No bias or activation goes into oneDNN's
/// epilogue: whether a kernel adds a bias before or after it splits the
/// sum is its own choice (the AVX2 convolution adds it first), so callers
/// add them in passes of their own, the bits of the separate calls.
bool dnnlMatmul(const amprt_tensor *a, const amprt_tensor *b, bool ta, bool tb,
                amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                int64_t count);

/// c's view = a's view x b's view, batched ([batch..., m, k] x [batch...,
/// k, n]), all of c's type, on oneDNN's kernel for those strides; false,
/// having done nothing, where it has no native one (f16, f64, no oneDNN)
/// or an operand is empty.
bool dnnlStridedMatmul(const amprt_tensor *a, const StridedView &av,
                       const amprt_tensor *b, const StridedView &bv,
                       amprt_tensor *c, const StridedView &cv);

/// Whether dnnlMatmul would run a product of operands of `dtype` in this
/// shape (creating and keeping its primitive if it is new).
bool dnnlMatmulRuns(amprt_dtype dtype, bool ta, bool tb, int64_t m, int64_t n,
                    int64_t k, int64_t count);

/// c = a^T b for a [k, m] and b [k, n] (row-major, contiguous) into c
/// [m, n] whose rows lie ldc elements apart (a block of a wider matrix),
/// all of `dtype`, on oneDNN as dnnlMatmul; false, having done nothing,
/// where that has no kernel.
bool dnnlProductTN(amprt_dtype dtype, int64_t m, int64_t n, int64_t k,
                   const void *a, const void *b, void *c, int64_t ldc);

/// Whether dnnlProductTN would run in this shape (creating and keeping its
/// primitive if it is new).
bool dnnlProductTNRuns(amprt_dtype dtype, int64_t m, int64_t n, int64_t k,
                       int64_t ldc);

/// Row-major sgemm, C = alpha op(A) op(B) + beta C, on oneDNN's f32 GEMM
/// (false when oneDNN is off, as above).
bool dnnlSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb,
               float beta, float *c, int64_t ldc);

/// One of the three convolutions (the operands as amprt_conv2d* take them,
/// NHWC/OHWI or NCHW/OIHW, all of one dtype) on oneDNN when it has a
/// native kernel for it; false, having done nothing, otherwise.
bool dnnlConv(ConvKind kind, const ConvGeometry &g, const amprt_tensor *first,
              const amprt_tensor *second, amprt_tensor *result);

/// The instruction set oneDNN's kernels run on, after its
/// ONEDNN_MAX_CPU_ISA cap ("avx2", "avx512_core_amx", ...; "" when oneDNN
/// is not built in or turned off).
const char *dnnlKernelIsa();

/// The kernel oneDNN ran for the last product or convolution it took, for
/// reports and tests ("" when none).
const char *dnnlLastKernel();

} // namespace amprt::cpu

#endif // AMPRT_CPU_ONEDNN_H
