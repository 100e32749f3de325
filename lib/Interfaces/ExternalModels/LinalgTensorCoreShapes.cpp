//===- LinalgTensorCoreShapes.cpp - linalg's Tensor Core dims -------------===//
//
// A linalg op's Tensor Core dimensions come from its indexing maps, so
// named ops and generics alike are covered: linalg::inferConvolutionDims
// for convolutions, linalg::inferContractionDims for the rest. A dimension
// made of several loops (a contraction over two reduction loops) is their
// product, as the GEMM it becomes sees it.
//
//===----------------------------------------------------------------------===//

#include "TensorCorePadding.h"
#include "TensorCoreShapes.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace {

/// A dimension made of `loops`: its size, and the inputs whose indexing
/// maps use one of them.
amp::LinalgTensorCoreDim dimOf(linalg::LinalgOp op, StringRef name,
                               ArrayRef<unsigned> loops,
                               ArrayRef<int64_t> ranges) {
  amp::LinalgTensorCoreDim found{{name, 0, {}},
                                 SmallVector<unsigned, 2>(loops)};
  amp::TensorCoreDim &dim = found.dim;
  SmallVector<int64_t> sizes;
  for (unsigned loop : loops)
    sizes.push_back(ranges[loop]);
  dim.size = amp::productOfSizes(sizes);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::any_of(loops,
                     [&](unsigned loop) { return map.isFunctionOfDim(loop); }))
      dim.operands.push_back(input->getOperandNumber());
  }
  return found;
}

} // namespace

SmallVector<amp::LinalgTensorCoreDim>
amp::linalgTensorCoreDims(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (linalg::isaConvolutionOpInterface(op)) {
    FailureOr<linalg::ConvolutionDimensions> conv =
        linalg::inferConvolutionDims(op);
    if (failed(conv) || conv->inputChannel.empty() ||
        conv->outputChannel.empty())
      return {};
    return {dimOf(op, "input_channels", conv->inputChannel, ranges),
            dimOf(op, "output_channels", conv->outputChannel, ranges)};
  }
  FailureOr<linalg::ContractionDimensions> product =
      linalg::inferContractionDims(op);
  if (failed(product))
    return {};
  return {dimOf(op, "M", product->m, ranges),
          dimOf(op, "N", product->n, ranges),
          dimOf(op, "K", product->k, ranges)};
}

namespace {

template <typename OpT>
struct LinalgTensorCoreShape
    : amp::TensorCoreShapeOpInterface::ExternalModel<LinalgTensorCoreShape<OpT>,
                                                     OpT> {
  SmallVector<amp::TensorCoreDim> getTensorCoreDims(Operation *op) const {
    SmallVector<amp::TensorCoreDim> dims;
    for (const amp::LinalgTensorCoreDim &found :
         amp::linalgTensorCoreDims(cast<linalg::LinalgOp>(op)))
      dims.push_back(found.dim);
    return dims;
  }
  FailureOr<SmallVector<Value>>
  padTensorCoreDims(Operation *op, OpBuilder &builder,
                    ArrayRef<int64_t> sizes) const {
    return amp::padLinalgTensorCoreDims(cast<linalg::LinalgOp>(op), builder,
                                        sizes);
  }
};

template <typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<LinalgTensorCoreShape<Ops>>(*ctx), ...);
}

} // namespace

void amp::attachLinalgTensorCoreShapes(MLIRContext *ctx) {
  attach<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
      >(ctx);
}
