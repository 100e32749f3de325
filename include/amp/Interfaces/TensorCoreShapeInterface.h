//===- TensorCoreShapeInterface.h - What Tensor Cores need ------*- C++ -*-===//

#ifndef AMP_INTERFACES_TENSORCORESHAPEINTERFACE_H
#define AMP_INTERFACES_TENSORCORESHAPEINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace amp {

/// One dimension of a contraction that decides whether it runs on Tensor
/// Cores.
struct TensorCoreDim {
  /// "M", "N", "K", "input_channels" or "output_channels" (a downstream op
  /// may name its own).
  llvm::StringRef name;
  /// The size; mlir::ShapedType::kDynamic when it is not static.
  int64_t size;
  /// The operands that hold it (M: the left operand; K: both), so a pass
  /// can tell whether a parameter owns it.
  llvm::SmallVector<unsigned, 2> operands;
};

/// The product of `sizes`, or ShapedType::kDynamic when one is dynamic (a
/// dimension made of several loops, as linalg contractions may have).
int64_t productOfSizes(llvm::ArrayRef<int64_t> sizes);

} // namespace amp

#include "amp/Interfaces/TensorCoreShapeInterface.h.inc"

#endif // AMP_INTERFACES_TENSORCORESHAPEINTERFACE_H
