//===- PayloadConversion.cpp - Scalar bodies that change precision --------===//

#include "PayloadConversion.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace amp {

static bool hasFloatValue(Operation *op) {
  auto isFloat = [](Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); };
  return llvm::any_of(op->getOperandTypes(), isFloat) ||
         llvm::any_of(op->getResultTypes(), isFloat);
}

/// Clear < infer < deny: how much an op keeps a body away from low precision.
static int severity(PrecisionClass cls) {
  switch (cls) {
  case PrecisionClass::Allow:
  case PrecisionClass::Clear:
    return 0;
  case PrecisionClass::Infer:
    return 1;
  case PrecisionClass::Deny:
    return 2;
  }
  llvm_unreachable("unknown precision class");
}

std::optional<PrecisionClass> classifyPayload(Block &body, OpClassFn classOf) {
  PrecisionClass worst = PrecisionClass::Clear;
  for (Operation &op : body.without_terminator()) {
    if (!hasFloatValue(&op) || isa<CastOpInterface>(op))
      continue;
    std::optional<PrecisionClass> cls = classOf(&op);
    if (!cls)
      return std::nullopt;
    if (severity(*cls) > severity(worst))
      worst = *cls;
  }
  return worst;
}

/// Whether retyping every f32 operand and result of `op` to `lowType`
/// leaves a valid op computing the same function in `lowType`.
static bool isRetypable(Operation &op, FloatType lowType) {
  if (!hasFloatValue(&op))
    return op.getNumRegions() == 0;
  if (op.getNumRegions() != 0)
    return false;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = dyn_cast<FloatAttr>(constant.getValue());
    if (!value)
      return !isa<FloatType>(constant.getType());
    APFloat converted = value.getValue();
    bool losesInfo = false;
    converted.convert(lowType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                      &losesInfo);
    return converted.isInfinity() == value.getValue().isInfinity();
  }
  // Conversions between float types would change their meaning.
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::BitcastOp>(op))
    return false;
  return isa<arith::ArithDialect, math::MathDialect>(op.getDialect());
}

void convertPayload(Block &body, FloatType lowType, ArrayRef<bool> lowResults,
                    RewriterBase &rewriter) {
  Type f32 = Float32Type::get(lowType.getContext());
  Operation *terminator = body.getTerminator();
  bool retypable = llvm::all_of(body.without_terminator(), [&](Operation &op) {
    return isRetypable(op, lowType);
  });
  // A yielded f32 value must land in a low result.
  for (OpOperand &yielded : terminator->getOpOperands())
    if (yielded.get().getType() == f32 &&
        !(yielded.getOperandNumber() < lowResults.size() &&
          lowResults[yielded.getOperandNumber()]))
      retypable = false;

  Location loc = body.getParentOp()->getLoc();
  if (!retypable) {
    // Compute in f32 between a widening on entry and a narrowing on exit.
    rewriter.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments()) {
      if (arg.getType() != lowType || arg.use_empty())
        continue;
      auto wide = arith::ExtFOp::create(rewriter, loc, f32, arg);
      rewriter.replaceAllUsesExcept(arg, wide, wide);
    }
    rewriter.setInsertionPoint(terminator);
    for (OpOperand &yielded : terminator->getOpOperands()) {
      unsigned k = yielded.getOperandNumber();
      if (k < lowResults.size() && lowResults[k] &&
          yielded.get().getType() == f32)
        yielded.set(
            arith::TruncFOp::create(rewriter, loc, lowType, yielded.get()));
    }
    return;
  }

  // f32 values that reach the body from outside it (captured scalars,
  // arguments that kept f32) are converted once on entry.
  llvm::SetVector<Value> entering;
  for (BlockArgument arg : body.getArguments())
    if (arg.getType() == f32)
      entering.insert(arg);
  for (Operation &op : body)
    for (Value operand : op.getOperands())
      if (operand.getType() == f32 && operand.getParentBlock() != &body)
        entering.insert(operand);
  rewriter.setInsertionPointToStart(&body);
  for (Value value : entering) {
    Value low;
    FloatAttr constant;
    if (matchPattern(value, m_Constant(&constant))) {
      APFloat converted = constant.getValue();
      bool losesInfo = false;
      converted.convert(lowType.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &losesInfo);
      low = arith::ConstantOp::create(rewriter, loc,
                                      FloatAttr::get(lowType, converted));
    } else {
      low = arith::TruncFOp::create(rewriter, loc, lowType, value);
    }
    rewriter.replaceUsesWithIf(value, low, [&](OpOperand &use) {
      return use.getOwner()->getBlock() == &body &&
             use.getOwner() != low.getDefiningOp();
    });
  }
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    auto constant = dyn_cast<arith::ConstantOp>(op);
    if (constant && constant.getType() == f32) {
      APFloat converted = cast<FloatAttr>(constant.getValue()).getValue();
      bool losesInfo = false;
      converted.convert(lowType.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &losesInfo);
      rewriter.setInsertionPoint(constant);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          constant, FloatAttr::get(lowType, converted));
      continue;
    }
    for (OpResult result : op.getResults())
      if (result.getType() == f32)
        result.setType(lowType);
  }
}

} // namespace amp
