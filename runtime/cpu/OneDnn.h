//===- DnnlMatmul.h - Matmuls on oneDNN's native kernels ---------*- C++
//-*-===//
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

/// c[i] = op(a[i]) op(b[i]) (+ bias, n values added to every row, when
/// not null) for i < count (row-major, contiguous, a, b, c and bias of one
/// dtype), on oneDNN when it has a native (non-reference) kernel for the
/// dtype on this CPU. The bias is added to the f32 accumulator before the
/// result is stored. Returns false, having done nothing, when it has none,
/// when oneDNN is not built in, or when AMPRT_DNNL=0 asks for the OpenBLAS
/// path.
bool dnnlMatmul(const amprt_tensor *a, const amprt_tensor *b, bool ta, bool tb,
                const amprt_tensor *bias, amprt_tensor *c, int64_t m, int64_t n,
                int64_t k, int64_t count);

/// Row-major sgemm, C = alpha op(A) op(B) + beta C, on oneDNN's f32 GEMM
/// (false when oneDNN is off, as above).
bool dnnlSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb,
               float beta, float *c, int64_t ldc);

/// One of the three convolutions (the operands as amprt_conv2d* take them,
/// NHWC/OHWI or NCHW/OIHW, all of one dtype; a forward one may add a bias
/// of o values in its epilogue) on oneDNN when it has a native kernel for
/// it; false, having done nothing, otherwise.
bool dnnlConv(ConvKind kind, const ConvGeometry &g, const amprt_tensor *first,
              const amprt_tensor *second, const amprt_tensor *bias,
              amprt_tensor *result);

/// The kernel oneDNN ran for the last product or convolution it took, for
/// reports and tests ("" when none).
const char *dnnlLastKernel();

} // namespace amprt::cpu

#endif // AMPRT_CPU_ONEDNN_H
