//===- TosaTensorCoreShapes.cpp - TOSA's Tensor Core dims -----------------===//
//
// tosa.matmul multiplies [N, H, C] by [N, C, W] (N is the batch): M = H,
// K = C, N = W. The convolutions' weights are [OC, ..., IC] (conv2d,
// conv3d, transpose_conv2d). A depthwise convolution contracts no
// channels, so it gives none.
//
//===----------------------------------------------------------------------===//

#include "TensorCorePadding.h"
#include "TensorCoreShapes.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

struct MatMulShape
    : amp::TensorCoreShapeOpInterface::ExternalModel<MatMulShape,
                                                     tosa::MatMulOp> {
  SmallVector<amp::TensorCoreDim> getTensorCoreDims(Operation *op) const {
    auto matmul = cast<tosa::MatMulOp>(op);
    ArrayRef<int64_t> a = shapeOf(matmul.getA()), b = shapeOf(matmul.getB());
    if (a.size() != 3 || b.size() != 3)
      return {};
    return {{"M", a[1], {0}}, {"N", b[2], {1}}, {"K", a[2], {0, 1}}};
  }
  FailureOr<SmallVector<Value>>
  padTensorCoreDims(Operation *op, OpBuilder &builder,
                    ArrayRef<int64_t> sizes) const {
    return amp::padTosaTensorCoreDims(op, builder, sizes);
  }
};

template <typename OpT>
struct ConvShape
    : amp::TensorCoreShapeOpInterface::ExternalModel<ConvShape<OpT>, OpT> {
  SmallVector<amp::TensorCoreDim> getTensorCoreDims(Operation *op) const {
    auto conv = cast<OpT>(op);
    ArrayRef<int64_t> weight = shapeOf(conv.getWeight());
    if (weight.empty())
      return {};
    unsigned input = conv.getInputMutable().getOperandNumber(),
             filter = conv.getWeightMutable().getOperandNumber();
    return {{"input_channels", weight.back(), {input, filter}},
            {"output_channels", weight.front(), {filter}}};
  }
  FailureOr<SmallVector<Value>>
  padTensorCoreDims(Operation *op, OpBuilder &builder,
                    ArrayRef<int64_t> sizes) const {
    return amp::padTosaTensorCoreDims(op, builder, sizes);
  }
};

} // namespace

void amp::attachTosaTensorCoreShapes(MLIRContext *ctx) {
  tosa::MatMulOp::attachInterface<MatMulShape>(*ctx);
  tosa::Conv2DOp::attachInterface<ConvShape<tosa::Conv2DOp>>(*ctx);
  tosa::Conv3DOp::attachInterface<ConvShape<tosa::Conv3DOp>>(*ctx);
  tosa::TransposeConv2DOp::attachInterface<ConvShape<tosa::TransposeConv2DOp>>(
      *ctx);
}
