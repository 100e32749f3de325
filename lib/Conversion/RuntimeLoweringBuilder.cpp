//===- RuntimeLoweringBuilder.cpp - Runtime calls while a step is lowered -===//

#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

SmallVector<Value> amp::RuntimeLoweringBuilder::newResults(Operation *op) {
  SmallVector<Value> out;
  for (Value r : op->getResults()) {
    Value tensor = newTensor(r.getType());
    handles[r] = tensor;
    out.push_back(tensor);
  }
  return out;
}

Value amp::RuntimeLoweringBuilder::elementwiseResult(Operation *op) {
  return resultOver(op->getResult(0), op->getOperands());
}

Value amp::RuntimeLoweringBuilder::resultOver(Value result,
                                              ValueRange operands) {
  if (inPlace)
    for (Value operand : operands)
      if (dying.contains(operand) && !taken.contains(operand) &&
          operand.getType() == result.getType()) {
        taken.insert(operand);
        ++inPlaceResults;
        return handles[result] = handle(operand);
      }
  return handles[result] = newTensor(result.getType());
}

Value amp::RuntimeLoweringBuilder::newTensor(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  int32_t code = *runtimeDtypeCode(tensor.getElementType());
  return call(AMPRT_ENTRY(amprt_tensor_new),
              {ctx, constI32(code), constI32(tensor.getRank()),
               i64Array(tensor.getShape())});
}

Value amp::RuntimeLoweringBuilder::constI32(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

Value amp::RuntimeLoweringBuilder::nullPointer() {
  return LLVM::ZeroOp::create(b, loc,
                              LLVM::LLVMPointerType::get(b.getContext()));
}

Value amp::RuntimeLoweringBuilder::constI64(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

Value amp::RuntimeLoweringBuilder::constF64(double value) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
}

/// An array of `count` values of `element` type on the stack (one slot at
/// least, so an empty array is still a valid pointer); `value(i)` makes
/// element i.
template <typename ValueFn>
static Value stackArray(OpBuilder &b, Location loc, Type element, size_t count,
                        ValueFn value) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value slots = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(std::max<size_t>(count, 1)));
  Value array = LLVM::AllocaOp::create(b, loc, ptr, element, slots);
  for (size_t i = 0; i < count; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, element, array,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, value(i), slot);
  }
  return array;
}

Value amp::RuntimeLoweringBuilder::i64Array(ArrayRef<int64_t> values) {
  return stackArray(b, loc, b.getI64Type(), values.size(),
                    [&](size_t i) { return constI64(values[i]); });
}

Value amp::RuntimeLoweringBuilder::f64Array(ArrayRef<double> values) {
  return stackArray(b, loc, b.getF64Type(), values.size(),
                    [&](size_t i) { return constF64(values[i]); });
}

Value amp::RuntimeLoweringBuilder::ptrArray(ValueRange values) {
  return stackArray(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                    values.size(), [&](size_t i) { return values[i]; });
}

Value amp::RuntimeLoweringBuilder::call(StringRef name, FunctionType type,
                                        ValueRange args) {
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
  }
  auto op = func::CallOp::create(b, loc, name, type.getResults(), args);
  return op->getNumResults() ? op->getResult(0) : Value();
}

void amp::RuntimeLoweringBuilder::callChecked(StringRef name, FunctionType type,
                                              ValueRange args) {
  recordStatus(call(name, type, args));
}

void amp::RuntimeLoweringBuilder::recordStatus(Value status) {
  call(AMPRT_ENTRY(amprt_record_status), {ctx, status});
}

LogicalResult amp::lowerElementwiseStep(RuntimeLoweringBuilder &lowering,
                                        Operation *op, ElementwiseStep step) {
  Value ctx = lowering.context();
  auto operand = [&](unsigned i) {
    return lowering.handle(op->getOperand(i));
  };
  auto takes = [&](unsigned n) { return op->getNumOperands() == n; };
  // The result first (it may take a dying operand's storage), then the
  // call's arguments in order.
  switch (step.code) {
#define AMPRT_UNARY(name, Kind, CODE)                                          \
  case AMPRT_CHAIN_##CODE: {                                                   \
    if (!takes(1))                                                             \
      break;                                                                   \
    Value y = lowering.elementwiseResult(op);                                  \
    lowering.callChecked(AMPRT_ENTRY(amprt_##name), {ctx, operand(0), y});     \
    return success();                                                          \
  }
#define AMPRT_UNARY_ALPHA(name, Kind, CODE)                                    \
  case AMPRT_CHAIN_##CODE: {                                                   \
    if (!takes(1))                                                             \
      break;                                                                   \
    Value y = lowering.elementwiseResult(op);                                  \
    lowering.callChecked(AMPRT_ENTRY(amprt_##name),                            \
                         {ctx, operand(0), lowering.constF64(step.alpha), y}); \
    return success();                                                          \
  }
#include "amprt/amprt_unary.def"
#define AMPRT_BINARY(name, Kind, CODE)                                         \
  case AMPRT_CHAIN_##CODE: {                                                   \
    if (!takes(2))                                                             \
      break;                                                                   \
    Value c = lowering.elementwiseResult(op);                                  \
    lowering.callChecked(AMPRT_ENTRY(amprt_##name),                            \
                         {ctx, operand(0), operand(1), c});                    \
    return success();                                                          \
  }
#include "amprt/amprt_binary.def"
  default:
    return op->emitError("elementwise step code ")
           << step.code << " is no unary or binary runtime function";
  }
  return op->emitError("the runtime function of elementwise step code ")
         << step.code << " takes " << elementwiseOperands(step)
         << " operands, not " << op->getNumOperands();
}
