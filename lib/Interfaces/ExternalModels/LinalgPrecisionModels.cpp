//===- LinalgPrecisionModels.cpp - linalg ops join the policy -------------===//
//
// Named contractions and convolutions on tensors are allow: their inputs
// move to low precision while the init operand and the result keep f32, so
// the op accumulates in f32 as Tensor Cores do. The body is updated by
// widening the low-precision block arguments at the top of the block.
// linalg.generic is deny: its body is arbitrary code the pass cannot judge.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace {

template <typename OpT>
struct ContractionModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<ContractionModel<OpT>,
                                                     OpT> {
  amp::PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return amp::PrecisionClass::Allow;
  }
  bool isPrecisionOperand(Operation *op, unsigned index) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    return index < static_cast<unsigned>(linalgOp.getNumDpsInputs()) &&
           amp::isFloatTensor(op->getOperand(index).getType());
  }
  bool isPrecisionResult(Operation *, unsigned) const { return false; }
  bool supportsPrecision(Operation *op, FloatType) const {
    return cast<linalg::LinalgOp>(op).hasPureTensorSemantics();
  }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    Block *body = linalgOp.getBlock();
    rewriter.setInsertionPointToStart(body);
    for (OpOperand *input : linalgOp.getDpsInputOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(input->get().getType());
      BlockArgument arg = body->getArgument(input->getOperandNumber());
      if (!tensor || tensor.getElementType() == arg.getType())
        continue;
      Type wide = arg.getType();
      if (!isa<FloatType>(wide))
        return op->emitError("cannot convert a non-float linalg body");
      arg.setType(tensor.getElementType());
      auto widened = arith::ExtFOp::create(rewriter, op->getLoc(), wide, arg);
      rewriter.replaceAllUsesExcept(arg, widened, widened);
    }
    return success();
  }
};

struct GenericModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<GenericModel,
                                                     linalg::GenericOp> {
  amp::PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return amp::PrecisionClass::Deny;
  }
  bool supportsPrecision(Operation *, FloatType) const { return false; }
};

template <typename... Ops> void attachContractions(MLIRContext *ctx) {
  (Ops::template attachInterface<ContractionModel<Ops>>(*ctx), ...);
}

} // namespace

void amp::registerLinalgPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    ctx->loadDialect<arith::ArithDialect>();
    attachContractions<linalg::MatmulOp, linalg::BatchMatmulOp,
                       linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
                       linalg::Conv2DNchwFchwOp, linalg::Conv2DOp>(ctx);
    linalg::GenericOp::attachInterface<GenericModel>(*ctx);
  });
}
