//===- TensorCoreShapeInterface.cpp - What Tensor Cores need --------------===//

#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"

namespace amp {

int64_t productOfSizes(llvm::ArrayRef<int64_t> sizes) {
  int64_t product = 1;
  for (int64_t size : sizes)
    if (mlir::ShapedType::isDynamic(size) ||
        __builtin_mul_overflow(product, size, &product))
      return mlir::ShapedType::kDynamic;
  return product;
}

} // namespace amp

#include "amp/Interfaces/TensorCoreShapeInterface.cpp.inc"
