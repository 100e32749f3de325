//===- PrecisionPolicyInterface.cpp - How an op joins AMP -----------------===//

#include "amp/Interfaces/PrecisionPolicyInterface.h"

using namespace mlir;

#include "amp/Interfaces/PrecisionPolicyEnums.cpp.inc"
#include "amp/Interfaces/PrecisionPolicyInterface.cpp.inc"

bool amp::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
                       tensor.getElementType());
}

FloatType amp::parseLowPrecisionType(MLIRContext *context, StringRef name) {
  if (name == "f16")
    return Float16Type::get(context);
  if (name == "bf16")
    return BFloat16Type::get(context);
  return {};
}
