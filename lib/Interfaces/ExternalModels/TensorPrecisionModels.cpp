//===- TensorPrecisionModels.cpp - tensor shape ops join the policy -------===//
//
// Data movement is precision-agnostic: these ops are clear and retype in
// place. Ops whose regions or scalar operands carry the element type
// (tensor.pad, tensor.extract, tensor.splat) are left out and stay f32.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void amp::registerTensorPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachClassModels<PrecisionClass::Clear, tensor::ReshapeOp,
                      tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                      tensor::ExtractSliceOp, tensor::InsertSliceOp,
                      tensor::ConcatOp, tensor::CastOp, tensor::EmptyOp>(ctx);
  });
}
