//===- Fp8Gemm.h - FP8 operands staged for a TN GEMM ------------*- C++ -*-===//
//
// amprt_scaled_matmul on a device multiplies the FP8 tensors themselves
// (cuBLASLt's FP8 GEMMs on sm_89 and sm_90) instead of dequantizing them
// first. Those GEMMs take one layout, "TN": both operands k-contiguous,
// a as [batch, m, k] and b as [batch, n, k], with k and n multiples of 16.
// This stages any call in that layout -- an operand whose flag differs is
// transposed into scratch, one byte per element -- and puts the factors
// that dequantize each operand (1 / scale) in device memory, where the
// GEMM reads them. A product it does not take (fp8GemmRefusal says why)
// runs the dequantizing path of the C API instead.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_FP8GEMM_H
#define AMPRT_DEVICE_FP8GEMM_H

#include "DeviceOps.h"
#include <climits>
#include <memory>

namespace amprt::device {

/// Where the factors 1 / scale that dequantize two FP8 operands lie in
/// their scratch: a's first, b's kFactorStride floats on, each 256-byte
/// aligned as a tensor of its own would be (the GEMM reads each through
/// its own scale pointer).
constexpr int64_t kFactorStride = 256 / sizeof(float);

/// The factors (exact for the power-of-two scales amprt_fp8_scale
/// chooses), as amprt_dequantize computes them.
struct Fp8FactorsKernel {
  const float *scaleA, *scaleB;
  float *factors; // factor of a at 0, of b at kFactorStride
  AMPRT_HD void operator()(int64_t) const {
    factors[0] = 1.0f / *scaleA;
    factors[kFactorStride] = 1.0f / *scaleB;
  }
};

/// Why a TN FP8 GEMM does not take this product, or null when it does: it
/// needs 16-byte rows (k and n multiples of 16), not both operands E5M2
/// (no such kernel), and sizes within the 32-bit integers GEMM libraries
/// take.
inline const char *fp8GemmRefusal(const amprt_tensor *a, const amprt_tensor *b,
                                  int64_t m, int64_t n, int64_t k,
                                  int64_t batch) {
  auto fits = [](int64_t v) { return v > 0 && v <= INT_MAX; };
  if (a->dtype == AMPRT_F8E5M2 && b->dtype == AMPRT_F8E5M2)
    return "both operands are E5M2, which no FP8 GEMM multiplies";
  if (k % 16 != 0 || n % 16 != 0)
    return "k and n must be multiples of 16 for an FP8 GEMM";
  if (!fits(m) || !fits(n) || !fits(k) || !fits(batch))
    return "a size is past the 32-bit integers GEMM libraries take";
  return nullptr;
}

/// The operands of one scaled product in the TN layout, and their factors.
template <typename Exec> class Fp8Operands {
public:
  explicit Fp8Operands(Exec &e) : e(e) {}

  /// Stages a (transposed when `ta`) as [batch, m, k] and b (transposed
  /// unless `tb`) as [batch, n, k].
  amprt_status stage(const amprt_tensor *a, const amprt_tensor *scaleA,
                     const amprt_tensor *b, const amprt_tensor *scaleB, bool ta,
                     bool tb, int64_t m, int64_t n, int64_t k, int64_t batch) {
    AMPRT_CHECK(kContiguous(a, ta, m, k, batch, aCopy, aData));
    AMPRT_CHECK(kContiguous(b, !tb, n, k, batch, bCopy, bData));
    factorCopy =
        std::make_unique<Scratch<Exec>>(e, (kFactorStride + 1) * sizeof(float));
    AMPRT_CHECK(factorCopy->status("amprt_scaled_matmul"));
    return e.launch(Fp8FactorsKernel{static_cast<const float *>(scaleA->data),
                                     static_cast<const float *>(scaleB->data),
                                     factorCopy->template as<float>()},
                    1);
  }

  const void *a() const { return aData; }
  const void *b() const { return bData; }
  /// The factors of a and of b, on the device.
  const float *aFactor() const { return factorCopy->template as<float>(); }
  const float *bFactor() const { return aFactor() + kFactorStride; }

private:
  /// `x` as [batch, rows, k]: itself, or its last two dimensions swapped
  /// into scratch when it is stored [batch, k, rows].
  amprt_status kContiguous(const amprt_tensor *x, bool stored, int64_t rows,
                           int64_t k, int64_t batch,
                           std::unique_ptr<Scratch<Exec>> &copy,
                           const void *&data) {
    data = x->data;
    if (!stored)
      return AMPRT_OK;
    copy = std::make_unique<Scratch<Exec>>(e, (size_t)(batch * rows * k));
    AMPRT_CHECK(copy->status("amprt_scaled_matmul"));
    amprt_tensor from = view(x->dtype, {batch, k, rows}, x->data);
    amprt_tensor to =
        view(x->dtype, {batch, rows, k}, copy->template as<uint8_t>());
    const int64_t swapLastTwo[] = {0, 2, 1};
    data = to.data;
    return transpose(e, &from, swapLastTwo, &to);
  }

  static amprt_tensor view(amprt_dtype dtype, Shape shape, void *data) {
    amprt_tensor t;
    t.dtype = dtype;
    t.numel = shape[0] * shape[1] * shape[2];
    t.bytes = (size_t)t.numel;
    t.shape = std::move(shape);
    t.data = data;
    t.ownsData = false;
    return t;
  }

  Exec &e;
  std::unique_ptr<Scratch<Exec>> aCopy, bCopy, factorCopy;
  const void *aData = nullptr, *bData = nullptr;
};

} // namespace amprt::device

#endif // AMPRT_DEVICE_FP8GEMM_H
