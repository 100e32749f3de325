//===- TensorCorePadding.h - Padding upstream contractions -----*- C++ -*-===//
//
// TensorCoreShapeOpInterface::padTensorCoreDims for linalg's and TOSA's
// contractions: operands padded with zeros (tensor.pad, tosa.pad), the op
// rebuilt on them, results cut back (tensor.extract_slice, tosa.slice).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCOREPADDING_H
#define AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCOREPADDING_H

#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace amp {

/// A linalg op's Tensor Core dimension and the loops it is made of.
struct LinalgTensorCoreDim {
  TensorCoreDim dim;
  llvm::SmallVector<unsigned, 2> loops;
};

/// A contraction's M, N and K, a convolution's input and output channels,
/// nothing for other ops (LinalgTensorCoreShapes.cpp).
llvm::SmallVector<LinalgTensorCoreDim>
linalgTensorCoreDims(mlir::linalg::LinalgOp op);

/// `op` on operands padded so that its Tensor Core dimensions have `sizes`,
/// its results sliced back. Fails, building nothing, for a dimension made of
/// several loops, a padded loop an operand indexes other than plainly, a
/// padded reduction whose body is not a sum of products of zero-keeping
/// values, or buffers.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
padLinalgTensorCoreDims(mlir::linalg::LinalgOp op, mlir::OpBuilder &builder,
                        llvm::ArrayRef<int64_t> sizes);

/// tosa.matmul or a TOSA convolution on operands padded so that its Tensor
/// Core dimensions have `sizes`, its result sliced back. Fails, building
/// nothing, when the result's shape is not static.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
padTosaTensorCoreDims(mlir::Operation *op, mlir::OpBuilder &builder,
                      llvm::ArrayRef<int64_t> sizes);

} // namespace amp

#endif // AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCOREPADDING_H
