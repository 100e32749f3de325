//===- TGTensorCoreShapes.cpp - tg contractions' Tensor Core dims ---------===//
//
// TensorCoreShapeOpInterface for tg's matrix products and convolutions,
// attached as external models when the dialect loads.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"

using namespace mlir;

namespace amp::tg {

namespace {

/// M, N and K of `c = op(a) x op(b)` over the last two dimensions (a
/// batched product's leading dimensions are its batch).
template <typename ProductOp>
SmallVector<TensorCoreDim> productDims(ProductOp op) {
  ArrayRef<int64_t> a = op.getA().getType().getShape(),
                    b = op.getB().getType().getShape();
  size_t rank = a.size();
  int64_t m = op.getTransposeA() ? a[rank - 1] : a[rank - 2];
  int64_t k = op.getTransposeA() ? a[rank - 2] : a[rank - 1];
  int64_t n = op.getTransposeB() ? b[rank - 2] : b[rank - 1];
  return {{"M", m, {0}}, {"N", n, {1}}, {"K", k, {0, 1}}};
}

/// The input and output channels of a convolution whose filter (OHWI for
/// NHWC, OIHW for NCHW) has type `filter`, held by the operands `inputs`
/// and `outputs` (the filter is an operand, or the result of
/// conv2d_backward_filter).
SmallVector<TensorCoreDim> channelDims(Type filter, Layout layout,
                                       SmallVector<unsigned, 2> inputs,
                                       SmallVector<unsigned, 2> outputs) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(filter).getShape();
  unsigned in = layout == Layout::NHWC ? 3 : 1;
  return {{"input_channels", shape[in], inputs},
          {"output_channels", shape[0], outputs}};
}

SmallVector<TensorCoreDim> dimsOf(MatmulOp op) { return productDims(op); }
SmallVector<TensorCoreDim> dimsOf(BatchMatmulOp op) { return productDims(op); }
// Operands: x (0) and w (1).
SmallVector<TensorCoreDim> dimsOf(Conv2DOp op) {
  return channelDims(op.getW().getType(), op.getLayout(), {0, 1}, {1});
}
// Operands: dy (0) and w (1).
SmallVector<TensorCoreDim> dimsOf(Conv2DBackwardInputOp op) {
  return channelDims(op.getW().getType(), op.getLayout(), {1}, {0, 1});
}
// Operands: x (0) and dy (1).
SmallVector<TensorCoreDim> dimsOf(Conv2DBackwardFilterOp op) {
  return channelDims(op.getDw().getType(), op.getLayout(), {0}, {1});
}

template <typename OpT>
struct TGTensorCoreShape
    : TensorCoreShapeOpInterface::ExternalModel<TGTensorCoreShape<OpT>, OpT> {
  SmallVector<TensorCoreDim> getTensorCoreDims(Operation *op) const {
    return dimsOf(cast<OpT>(op));
  }
  FailureOr<SmallVector<Value>>
  padTensorCoreDims(Operation *op, OpBuilder &builder,
                    ArrayRef<int64_t> sizes) const {
    return tg::padTensorCoreDims(op, builder, sizes);
  }
};

template <typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<TGTensorCoreShape<Ops>>(*ctx), ...);
}

} // namespace

void attachTensorCoreShapes(MLIRContext *ctx) {
  attach<MatmulOp, BatchMatmulOp, Conv2DOp, Conv2DBackwardInputOp,
         Conv2DBackwardFilterOp>(ctx);
}

} // namespace amp::tg
