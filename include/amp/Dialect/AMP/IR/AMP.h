//===- AMP.h - The precision dialect and its ops ----------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMP_H
#define AMP_DIALECT_AMP_IR_AMP_H

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "amp/Dialect/AMP/IR/AMPOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "amp/Dialect/AMP/IR/AMPOps.h.inc"

namespace amp {
/// True when every value of `from` is exactly representable in `to`
/// (f16 -> f32, bf16 -> f32, f32 -> f64, ...), so a cast is lossless.
bool isExactFloatConversion(mlir::FloatType from, mlir::FloatType to);
} // namespace amp

#endif // AMP_DIALECT_AMP_IR_AMP_H
