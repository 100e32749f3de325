//===- Fp8UpstreamOps.h - FP8 chains in upstream ops only -------*- C++ -*-===//
//
// For IR that holds no tg or amp op (torch-mlir, IREE, TOSA front ends),
// precision=fp8 writes its quantize / dequantize chains in linalg, tensor
// and arith ops, so the compiler that gave the IR lowers it with its own
// pipeline (upstream lowers FP8 conversions with convert-arith-to-apfloat).
// Same arithmetic as amp's ops and runtime (amprt_fp8.h): a power-of-two
// scale, the product formed in f32, saturation at the format's largest
// finite value, round to nearest-even.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_FP8UPSTREAMOPS_H
#define AMP_LIB_TRANSFORMS_FP8UPSTREAMOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace amp {

/// max |x| over every element of the ranked float tensor `x`, as an f32
/// scalar (NaN if an element is NaN): a linalg.reduce.
mlir::Value buildUpstreamAmax(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x);

/// amp.fp8_scale's rule on one f32 scalar amax: the largest power of two s
/// with amax * s <= fp8Max / 2^margin, in 2^-126 .. 2^126, and 1 unless
/// amax is positive and finite. Integer arithmetic on the exponent and
/// fraction bits, so it is exact and agrees with the runtime.
mlir::Value buildUpstreamScale(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value amax, double fp8Max, int64_t margin);

/// x * scale rounded to `fp8Type`'s element type, saturating (a
/// linalg.generic).
mlir::Value buildUpstreamQuantize(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value x, mlir::Value scale,
                                  mlir::RankedTensorType fp8Type,
                                  double fp8Max);

/// q * (1 / scale) in f32, rounded to `type`'s element type.
mlir::Value buildUpstreamDequantize(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value q, mlir::Value scale,
                                    mlir::RankedTensorType type);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_FP8UPSTREAMOPS_H
