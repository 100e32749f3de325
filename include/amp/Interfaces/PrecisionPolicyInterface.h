//===- PrecisionPolicyInterface.h - How an op joins AMP ---------*- C++ -*-===//

#ifndef AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H
#define AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H

#include "amp/Interfaces/PrecisionPolicyTrait.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace amp {

/// True for a ranked tensor (static or dynamic shape, rank 0 included) of
/// f16, bf16, f32 or f64.
bool isFloatTensor(mlir::Type type);
/// True for a ranked tensor of f32: a value the precision pass may lower.
bool isF32Tensor(mlir::Type type);

/// True when every operand and result of `op` whose element type is a float
/// is a ranked tensor (ops with scalar, unranked, vector or memref floats
/// cannot be retyped by the pass).
bool hasOnlyRankedFloatTensors(mlir::Operation *op);

/// The class of a nested op under the active policy (user lists, names
/// registered at run time, then its interface), or std::nullopt when nothing
/// knows it.
using OpClassFn =
    llvm::function_ref<std::optional<PrecisionClass>(mlir::Operation *)>;

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
void registerTosaPrecisionModels(mlir::DialectRegistry &registry);
/// All of the above.
void registerAllPrecisionModels(mlir::DialectRegistry &registry);

} // namespace amp

#include "amp/Interfaces/PrecisionPolicyInterface.h.inc"

#endif // AMP_INTERFACES_PRECISIONPOLICYINTERFACE_H
