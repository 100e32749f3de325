//===- TensorCoreShapes.h - Upstream Tensor Core dims -----------*- C++ -*-===//
//
// TensorCoreShapeOpInterface for linalg's and TOSA's contractions, attached
// beside their precision models (register*PrecisionModels).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCORESHAPES_H
#define AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCORESHAPES_H

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace amp {

/// Every linalg structured op: a contraction's M, N and K (each the product
/// of its loops), a convolution's input and output channels, nothing for
/// other ops (depthwise convolutions among them).
void attachLinalgTensorCoreShapes(mlir::MLIRContext *context);

/// tosa.matmul and the convolutions with input and output channels.
void attachTosaTensorCoreShapes(mlir::MLIRContext *context);

} // namespace amp

#endif // AMP_LIB_INTERFACES_EXTERNALMODELS_TENSORCORESHAPES_H
