//===- Fp8Operands.h - FP8 operands for allow-list contractions -*- C++ -*-===//
//
// The last step of --amp-auto-mixed-precision with precision=fp8: the
// function has been converted to bf16, and each contraction operand is now
// quantized to FP8 and dequantized back, with a per-tensor scale.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_FP8OPERANDS_H
#define AMP_LIB_TRANSFORMS_FP8OPERANDS_H

#include "PrecisionColoring.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include <string>
#include <vector>

namespace amp {

struct Fp8Options {
  /// E5M2 for gradients, E4M3 for the rest (else E4M3 everywhere).
  bool hybrid = true;
  /// Delayed scaling from an amax history carried step to step, where the
  /// function is a training step; otherwise (or when false) current scaling.
  bool delayed = true;
  int64_t historyLength = 1024;
  int64_t margin = 0;
  /// Write the chains in linalg / tensor / arith ops instead of amp's (IR
  /// from other front ends; always current scaling).
  bool upstreamOps = false;
};

/// The FP8 options as the passes spell them (fp8-format, fp8-scaling,
/// amax-history-len, fp8-margin), checked once for every pass that takes
/// them; diagnostics at `loc` name `pass`.
mlir::FailureOr<Fp8Options>
parseFp8Options(mlir::Location loc, llvm::StringRef pass,
                Fp8Format format, Fp8Scaling scaling,
                int64_t historyLength, int64_t margin);

/// One operand that now reads FP8, for remarks and the report.
struct Fp8Operand {
  mlir::Operation *user;
  unsigned operand;
  std::string format;  // f8E4M3FN or f8E5M2
  std::string scaling; // delayed or current
  std::string reason;
  /// Delayed scaling: the function argument holding the amax history.
  int historyArgument = -1;
};

/// The ops downstream of `function`'s tg.grad_seed ops: the backward pass,
/// whose values loss scaling multiplies and whose contraction operands are
/// gradients.
llvm::DenseSet<mlir::Operation *>
backwardOps(mlir::FunctionOpInterface function);

/// The FP8 format of a contraction operand: E5M2 for a gradient in the
/// hybrid format (its range), E4M3 otherwise.
mlir::Type fp8Format(mlir::MLIRContext *ctx, bool gradient, bool hybrid);

/// `value` (bf16) quantized to FP8 `format` with `scale` and dequantized
/// back: what the contraction reads.
mlir::Value quantizeDequantize(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Value value, mlir::Value scale,
                               mlir::Type format);

/// Quantizes the FP8 operands of `function` (already converted by the
/// rewriter): every precision operand of an allow-class op that computes
/// in bf16. `signatureFixed`: a caller depends on the signature, so no
/// history argument may be added. Appends what it did to `operands`.
mlir::LogicalResult insertFp8Operands(mlir::FunctionOpInterface function,
                                      const ColoringGraph &graph,
                                      const Fp8Options &options,
                                      bool signatureFixed,
                                      std::vector<Fp8Operand> &operands);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_FP8OPERANDS_H
