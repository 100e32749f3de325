//===- PrecisionPolicyInterface.h - How an op joins AMP ---------*- C++ -*-===//

#ifndef AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H
#define AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"

#include "amp/Interfaces/PrecisionPolicyEnums.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace amp {

/// True for a ranked tensor (or a scalar) of f16, bf16, f32 or f64.
bool isFloatTensor(mlir::Type type);

/// f16 or bf16 from "f16" / "bf16"; null otherwise.
mlir::FloatType parseLowPrecisionType(mlir::MLIRContext *context,
                                      llvm::StringRef name);

/// External models that make upstream ops join the policy. Each is safe to
/// call more than once and only takes effect when its dialect loads.
void registerArithPrecisionModels(mlir::DialectRegistry &registry);
void registerMathPrecisionModels(mlir::DialectRegistry &registry);
void registerLinalgPrecisionModels(mlir::DialectRegistry &registry);
void registerTensorPrecisionModels(mlir::DialectRegistry &registry);
void registerFuncPrecisionModels(mlir::DialectRegistry &registry);
/// All of the above.
void registerAllPrecisionModels(mlir::DialectRegistry &registry);

} // namespace amp

#include "amp/Interfaces/PrecisionPolicyInterface.h.inc"

#endif // AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H
