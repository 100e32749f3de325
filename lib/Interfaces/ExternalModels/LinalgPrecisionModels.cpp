//===- LinalgPrecisionModels.cpp - linalg ops join the policy -------------===//
//
// One model for every structured linalg op, named or generic, classified by
// what its body computes rather than by its name, so the IR that torch-mlir,
// IREE and TOSA lowering emit (generics, fills, transposes, convolutions
// under any layout) is coloured like tg:
// - a contraction or convolution (a multiply-accumulate body with reduction
//   loops: matmul, batch_matmul, every conv_* and depthwise_conv_*, generic
//   contractions) is allow: its inputs move to low precision and it keeps
//   accumulating into its f32 init, the result keeping f32 (users in low
//   precision get one cast after it, others none);
// - any other op takes the worst class of the float ops of its body under
//   the active policy (an elementwise add is infer, a relu clear, an exp
//   deny), and reductions add their combiner: max and min are clear, sums
//   are deny (infer for bf16, and for pooling windows), products deny;
// - linalg.softmax is infer, as tg.softmax.
// Converting an op retypes its operands, block arguments and body; scalar
// inputs (a fill value) are converted in front of it and inits whose values
// the body never reads get a fresh tensor of the new type.
//
//===----------------------------------------------------------------------===//

#include "PayloadConversion.h"
#include "TensorCoreShapes.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using amp::PrecisionClass;

namespace {

/// A multiply-accumulate body over reduction loops: Tensor Core work.
bool isContraction(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return false;
  return linalg::detail::isContractionBody(
      *op.getBlock(), [](Operation *mul, Operation *add) {
        return isa<arith::MulFOp>(mul) && isa<arith::AddFOp>(add);
      });
}

/// The class a reduction's combiner adds: what the body does with the value
/// it accumulates into.
PrecisionClass reductionClass(linalg::LinalgOp op, FloatType lowType) {
  PrecisionClass worst = PrecisionClass::Clear;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    for (Operation *user : acc.getUsers()) {
      if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
              arith::MinNumFOp, linalg::YieldOp>(user))
        continue;
      // Sums overflow f16 over long reductions; a pooling window is short.
      if (isa<arith::AddFOp, arith::SubFOp>(user) &&
          (lowType.isBF16() ||
           isa<linalg::ConvolutionOpInterface>(op.getOperation())))
        worst = worst == PrecisionClass::Deny ? worst : PrecisionClass::Infer;
      else
        return PrecisionClass::Deny;
    }
  }
  return worst;
}

bool isFloatScalar(Type type) { return isa<FloatType>(type); }

template <typename OpT>
struct StructuredOpModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<StructuredOpModel<OpT>,
                                                     OpT> {
  /// Without a policy, body ops answer with their own interfaces; a body
  /// op nothing knows makes the op deny.
  PrecisionClass getPrecisionClass(Operation *op, FloatType lowType) const {
    auto interfaceClass =
        [lowType](Operation *nested) -> std::optional<PrecisionClass> {
      if (auto iface = dyn_cast<amp::PrecisionPolicyOpInterface>(nested))
        return iface.getPrecisionClass(lowType);
      return std::nullopt;
    };
    return getPrecisionClassUnder(op, lowType, interfaceClass)
        .value_or(PrecisionClass::Deny);
  }

  std::optional<PrecisionClass>
  getPrecisionClassUnder(Operation *op, FloatType lowType,
                         amp::OpClassFn classOf) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (isContraction(linalgOp))
      return PrecisionClass::Allow;
    if (op->getNumRegions() != 1 || op->getRegion(0).empty())
      return std::nullopt;
    std::optional<PrecisionClass> cls =
        amp::classifyPayload(*linalgOp.getBlock(), classOf);
    if (!cls || linalgOp.getNumReductionLoops() == 0)
      return cls;
    PrecisionClass combiner = reductionClass(linalgOp, lowType);
    if (combiner == PrecisionClass::Deny || *cls == PrecisionClass::Deny)
      return PrecisionClass::Deny;
    if (combiner == PrecisionClass::Infer || *cls == PrecisionClass::Infer)
      return PrecisionClass::Infer;
    return PrecisionClass::Clear;
  }

  /// A contraction's inputs; every other op's float tensors, except inits
  /// whose values the body never reads (they only give the result's shape).
  bool isPrecisionOperand(Operation *op, unsigned index) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    OpOperand &operand = op->getOpOperand(index);
    if (!amp::isFloatTensor(operand.get().getType()))
      return false;
    if (linalgOp.isDpsInput(&operand))
      return true;
    return !isContraction(linalgOp) &&
           linalgOp.payloadUsesValueFromOperand(&operand);
  }

  bool isPrecisionResult(Operation *op, unsigned index) const {
    return amp::isFloatTensor(op->getResult(index).getType());
  }

  bool keepsResultWide(Operation *op, unsigned) const {
    return isContraction(cast<linalg::LinalgOp>(op));
  }

  bool supportsPrecision(Operation *op, FloatType) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureTensorSemantics())
      return false;
    // Scalar inputs (a fill value) are converted in front of the op.
    for (OpOperand &operand : op->getOpOperands()) {
      Type type = operand.get().getType();
      if (isa<FloatType>(getElementTypeOrSelf(type)) &&
          !isa<RankedTensorType>(type) &&
          !(isFloatScalar(type) && linalgOp.isDpsInput(&operand)))
        return false;
    }
    return true;
  }

  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType lowType) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    Block *body = linalgOp.getBlock();
    Type f32 = rewriter.getF32Type();
    if (isContraction(linalgOp)) {
      // Widen the low inputs in the body: the op accumulates in f32.
      rewriter.setInsertionPointToStart(body);
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        BlockArgument arg = linalgOp.getMatchingBlockArgument(input);
        Type element = getElementTypeOrSelf(input->get().getType());
        if (element == arg.getType())
          continue;
        Type wide = arg.getType();
        arg.setType(element);
        auto widened = arith::ExtFOp::create(rewriter, op->getLoc(), wide, arg);
        rewriter.replaceAllUsesExcept(arg, widened, widened);
      }
      return success();
    }

    rewriter.setInsertionPoint(op);
    for (OpOperand *input : linalgOp.getDpsInputOperands()) {
      if (input->get().getType() != f32)
        continue;
      // A scalar input: a constant folds, anything else is narrowed.
      FloatAttr constant;
      Value low;
      if (matchPattern(input->get(), m_Constant(&constant))) {
        APFloat converted = constant.getValue();
        bool losesInfo = false;
        converted.convert(lowType.getFloatSemantics(),
                          APFloat::rmNearestTiesToEven, &losesInfo);
        low = arith::ConstantOp::create(rewriter, op->getLoc(),
                                        FloatAttr::get(lowType, converted));
      } else {
        low = arith::TruncFOp::create(rewriter, op->getLoc(), lowType,
                                      input->get());
      }
      input->set(low);
    }
    // Inits the body never reads take a fresh tensor of the result's type.
    for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
      auto tensor = dyn_cast<RankedTensorType>(init.get().getType());
      Type resultType =
          op->getResult(linalgOp.getTiedOpResult(&init).getResultNumber())
              .getType();
      if (!tensor || tensor == resultType)
        continue;
      Type element = getElementTypeOrSelf(resultType);
      if (auto empty = init.get().getDefiningOp<tensor::EmptyOp>()) {
        init.set(tensor::EmptyOp::create(rewriter, op->getLoc(),
                                         tensor.clone(element),
                                         empty.getDynamicSizes()));
        continue;
      }
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, op->getLoc(), init.get());
      init.set(tensor::EmptyOp::create(rewriter, op->getLoc(), sizes, element));
    }
    SmallVector<bool> lowResults;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = linalgOp.getMatchingBlockArgument(&operand);
      Type element = getElementTypeOrSelf(operand.get().getType());
      if (arg.getType() == f32 && element == lowType)
        arg.setType(lowType);
      if (linalgOp.isDpsInit(&operand))
        lowResults.push_back(arg.getType() == lowType);
    }
    amp::convertPayload(*body, lowType, lowResults, rewriter);
    return success();
  }
};

template <typename... Ops> void attachStructured(MLIRContext *ctx) {
  (Ops::template attachInterface<StructuredOpModel<Ops>>(*ctx), ...);
}

} // namespace

void amp::registerLinalgPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    ctx->loadDialect<arith::ArithDialect, tensor::TensorDialect>();
    attachStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    attachClassModels<PrecisionClass::Infer, linalg::SoftmaxOp>(ctx);
    attachLinalgTensorCoreShapes(ctx);
  });
}
