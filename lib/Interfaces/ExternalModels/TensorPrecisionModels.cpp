//===- TensorPrecisionModels.cpp - tensor shape ops join the policy -------===//
//
// Data movement is precision-agnostic: these ops are clear and retype in
// place. tensor.pad is clear too, its padding value converted with it.
// Shape queries (tensor.dim, tensor.rank) read no element: clear, so they
// follow their operand instead of asking for a cast.
// tensor.empty holds no data and takes no part: a user that needs it in
// another type gets its own empty tensor. Ops that turn tensors into
// scalars or back (tensor.extract, tensor.splat) keep f32.
//
//===----------------------------------------------------------------------===//

#include "PayloadConversion.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace {

struct PadModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<PadModel, tensor::PadOp> {
  amp::PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return amp::PrecisionClass::Clear;
  }
  bool supportsPrecision(Operation *op, FloatType) const {
    return amp::hasOnlyRankedFloatTensors(op);
  }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType lowType) const {
    amp::convertPayload(cast<tensor::PadOp>(op).getRegion().front(), lowType,
                        /*lowResults=*/{true}, rewriter);
    return success();
  }
};

} // namespace

void amp::registerTensorPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachClassModels<
        PrecisionClass::Clear, tensor::ReshapeOp, tensor::ExpandShapeOp,
        tensor::CollapseShapeOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
        tensor::ConcatOp, tensor::CastOp, tensor::DimOp, tensor::RankOp>(ctx);
    tensor::PadOp::attachInterface<PadModel>(*ctx);
  });
}
