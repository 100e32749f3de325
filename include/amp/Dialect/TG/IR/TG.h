//===- TG.h - The training-graph dialect and its ops ------------*- C++ -*-===//

#ifndef AMP_DIALECT_TG_IR_TG_H
#define AMP_DIALECT_TG_IR_TG_H

#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/Dialect/TG/IR/TGTraits.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "amp/Dialect/TG/IR/TGOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "amp/Dialect/TG/IR/TGOps.h.inc"

namespace amp::tg {
/// Parses `T` or `T1, T2` (one type when both operands share it).
mlir::ParseResult parseTypePair(mlir::OpAsmParser &parser, mlir::Type &lhs,
                                mlir::Type &rhs);
void printTypePair(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                   mlir::Type lhs, mlir::Type rhs);

/// The tg.role of argument / result `index` of a verified function, if it
/// has one (what hosts bind values by).
std::optional<Role> getArgumentRole(mlir::FunctionOpInterface func,
                                    unsigned index);
std::optional<Role> getResultRole(mlir::FunctionOpInterface func,
                                  unsigned index);
/// The attribute dictionary of an argument or result a pass adds to a step:
/// {tg.role = role}, with tg.init_value = `initValue` when it is given (the
/// first value of step state).
mlir::DictionaryAttr roleAttributes(mlir::MLIRContext *context, Role role,
                                    mlir::Attribute initValue = {});
/// The tg.init_value of argument `index`, as a double, if it has one.
std::optional<double> getInitValue(mlir::FunctionOpInterface func,
                                   unsigned index);

/// tg.sgd_update, tg.momentum_update or tg.adam_update; operand 1 of each
/// is the gradient.
inline bool isOptimizerUpdate(mlir::Operation *op) {
  return mlir::isa<SgdUpdateOp, MomentumUpdateOp, AdamUpdateOp>(op);
}
inline mlir::OpOperand &optimizerGradient(mlir::Operation *op) {
  return op->getOpOperand(1);
}

/// Attaches TensorCoreShapeOpInterface to tg's matrix products and
/// convolutions (called when the dialect loads).
void attachTensorCoreShapes(mlir::MLIRContext *context);
/// TensorCoreShapeOpInterface::padTensorCoreDims for a tg product or
/// convolution (TGTensorCorePadding.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
padTensorCoreDims(mlir::Operation *op, mlir::OpBuilder &builder,
                  llvm::ArrayRef<int64_t> sizes);
} // namespace amp::tg

#endif // AMP_DIALECT_TG_IR_TG_H
