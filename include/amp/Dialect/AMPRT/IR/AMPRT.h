//===- AMPRT.h - Ops that are one runtime call ------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMPRT_IR_AMPRT_H
#define AMP_DIALECT_AMPRT_IR_AMPRT_H

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "amp/Dialect/AMPRT/IR/AMPRTOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "amp/Dialect/AMPRT/IR/AMPRTOps.h.inc"

namespace amp {
/// How many operands the runtime function of `step` takes: 2 for the
/// binary codes (from AMPRT_CHAIN_ADD), 1 for the unary ones.
unsigned elementwiseOperands(ElementwiseStep step);

namespace rt {
/// The step `op`, of any dialect, runs as in an amprt.elementwise_chain:
/// the runtime function its lowering names
/// (RuntimeLoweringOpInterface::getElementwiseStep), when it has that
/// function's operands, all of its result's float type (no broadcasting).
std::optional<ElementwiseStep> chainStepOf(mlir::Operation *op);

/// The activation `op` computes when a product's epilogue can apply it:
/// its AMPRT_ACTIVATION_* code (amprt_activation.def) and slope (leaky
/// relu's alpha, 0 otherwise), from the function its lowering names.
std::optional<ElementwiseStep> epilogueActivationOf(mlir::Operation *op);

/// Whether `op` already runs inside a fused op's region (a fusion pattern
/// leaves it there).
bool runsInFusedOp(mlir::Operation *op);

/// Whether `op` is a product an amprt.product_epilogue runs: tg.matmul or
/// the forward tg.conv2d.
bool isEpilogueProduct(mlir::Operation *op);

/// Whether `use` reads its value as a product operand that rounds f32 to
/// f16 as it stages it (amprt_matmul): tg.matmul's or tg.batch_matmul's
/// `a` or `b`, directly or as the product of an amprt.product_epilogue.
bool roundsAsProductOperand(mlir::OpOperand &use);

/// Whether `biasAdd` adds along `product`'s channels, in its element type
/// (a conv's layout; a matmul's result is rank 2), as the epilogue does.
bool addsAlongProductChannels(tg::BiasAddOp biasAdd, mlir::Operation *product);
} // namespace rt
} // namespace amp

#endif // AMP_DIALECT_AMPRT_IR_AMPRT_H
