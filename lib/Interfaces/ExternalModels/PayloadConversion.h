//===- PayloadConversion.h - Scalar bodies that change type -----*- C++ -*-===//
//
// The scalar payload of a structured op (a linalg body) after the op's
// operands moved to a low-precision type: its classification (the worst
// class of the float ops it holds) and its conversion (every f32 scalar in
// it retyped, or, where an op cannot be retyped, widened on entry and
// narrowed on exit).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_INTERFACES_EXTERNALMODELS_PAYLOADCONVERSION_H
#define AMP_LIB_INTERFACES_EXTERNALMODELS_PAYLOADCONVERSION_H

#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "mlir/IR/Block.h"

namespace amp {

/// The worst class (deny over infer over clear) of the ops in `body` that
/// compute on floats, asking `classOf`; conversions between types count as
/// clear, and a body without float math is clear. std::nullopt when a float
/// op of the body has no class.
std::optional<PrecisionClass> classifyPayload(mlir::Block &body,
                                              OpClassFn classOf);

/// Retypes `body` after the types of its arguments changed from f32 to
/// `lowType` (the caller has set them): every f32 scalar computed in the
/// body becomes `lowType` and f32 values captured from outside are
/// converted on entry. Where some op cannot be retyped (a constant out of
/// range, an op with regions, an op outside arith and math), the body keeps
/// computing in f32 instead: low arguments are widened on entry, and the
/// yielded values of `lowResults` are narrowed before the terminator.
void convertPayload(mlir::Block &body, mlir::FloatType lowType,
                    llvm::ArrayRef<bool> lowResults,
                    mlir::RewriterBase &rewriter);

} // namespace amp

#endif // AMP_LIB_INTERFACES_EXTERNALMODELS_PAYLOADCONVERSION_H
