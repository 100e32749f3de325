//===- PrecisionPolicyInterface.cpp - How an op joins AMP -----------------===//

#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

#include "amp/Interfaces/PrecisionPolicyEnums.cpp.inc"
#include "amp/Interfaces/PrecisionPolicyInterface.cpp.inc"

bool amp::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
                       tensor.getElementType());
}

bool amp::isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool amp::hasOnlyRankedFloatTensors(Operation *op) {
  auto retypable = [](Type type) {
    return !isa<FloatType>(getElementTypeOrSelf(type)) ||
           isa<RankedTensorType>(type);
  };
  return llvm::all_of(op->getOperandTypes(), retypable) &&
         llvm::all_of(op->getResultTypes(), retypable);
}

FloatType amp::parseLowPrecisionType(MLIRContext *context, StringRef name) {
  if (name == "f16")
    return Float16Type::get(context);
  if (name == "bf16")
    return BFloat16Type::get(context);
  return {};
}
