//===- TGGradientRules.cpp - Reverse-mode rules of the tg ops -------------===//
//
// One rule per differentiable op, attached as its GradientOpInterface to
// every tg and amp op that has a `rule` overload (the op lists come from
// ODS, so the overload is all a new op needs here). Every
// rule emits the dedicated backward op where tg has one (relu_grad,
// conv2d_backward_input/filter, softmax_cross_entropy_grad, batch_norm_grad,
// bias_add_grad, ...) and elementwise tg ops otherwise. Backward ops take the
// location of the forward op they differentiate, so diagnostics and the AMP
// report point at the user's source.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Dialect/TG/Transforms/GradientBuilder.h"
#include "amp/Interfaces/AttachModels.h"
#include "amp/Interfaces/GradientOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include <cmath>

using namespace mlir;
namespace tg = amp::tg;

namespace amp {
namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The rules, one overload of `rule` per op. Each sees the builder and
/// location of its op, `dy` (the adjoint of its first result) and short
/// names for the ops rules build.
class Rules {
public:
  Rules(GradientBuilder &g, Operation *op)
      : g(g), b(g.builder()), loc(g.getLoc()),
        dy(op->getNumResults() ? g.adjoint(op->getResult(0)) : Value()) {}

  // Ops whose results carry no gradient.
  LogicalResult rule(tg::CompareOp) { return success(); }
  LogicalResult rule(tg::IsFiniteOp) { return success(); }
  LogicalResult rule(tg::GradSeedOp) { return success(); }
  // Unary.
  LogicalResult rule(tg::NegOp o) {
    accumulate(o.getX(), neg(dy));
    return success();
  }
  LogicalResult rule(tg::AbsOp o) {
    Value x = o.getX();
    Value zero = scalar(x.getType(), 0.0);
    Value signed_ =
        select(compare(tg::ComparisonDirection::LT, x, zero), neg(dy), dy);
    accumulate(x, select(compare(tg::ComparisonDirection::EQ, x, zero),
                         zerosLike(x), signed_));
    return success();
  }
  LogicalResult rule(tg::ExpOp o) {
    accumulate(o.getX(), mul(dy, o.getY()));
    return success();
  }
  LogicalResult rule(tg::LogOp o) {
    accumulate(o.getX(), div(dy, o.getX()));
    return success();
  }
  LogicalResult rule(tg::SqrtOp o) {
    // d sqrt(x) = 1 / (2 sqrt(x)).
    Value half = mul(dy, scalar(dy.getType(), 0.5));
    accumulate(o.getX(), div(half, o.getY()));
    return success();
  }
  LogicalResult rule(tg::RsqrtOp o) {
    // d x^-1/2 = -1/2 x^-3/2 = -1/2 y^3.
    Value y = o.getY();
    Value y3 = mul(mul(y, y), y);
    accumulate(o.getX(), mul(mul(dy, scalar(dy.getType(), -0.5)), y3));
    return success();
  }
  LogicalResult rule(tg::SquareOp o) {
    accumulate(o.getX(), mul(dy, mul(o.getX(), scalar(dy.getType(), 2.0))));
    return success();
  }
  LogicalResult rule(tg::ReciprocalOp o) {
    Value y = o.getY();
    accumulate(o.getX(), neg(mul(dy, mul(y, y))));
    return success();
  }
  LogicalResult rule(tg::TanhOp o) {
    accumulate(o.getX(), tg::TanhGradOp::create(b, loc, dy, o.getY()));
    return success();
  }
  LogicalResult rule(tg::SigmoidOp o) {
    accumulate(o.getX(), tg::SigmoidGradOp::create(b, loc, dy, o.getY()));
    return success();
  }
  LogicalResult rule(tg::ReluOp o) {
    // relu(x) > 0 exactly where x > 0 (NaN and -0 included), so the
    // gradient reads the output, which the next layer's gradient keeps
    // anyway: the input can die at the relu, as in PyTorch's
    // threshold_backward on the result.
    accumulate(o.getX(), tg::ReluGradOp::create(b, loc, dy, o.getY()));
    return success();
  }
  LogicalResult rule(tg::GeluOp o) {
    accumulate(o.getX(), tg::GeluGradOp::create(b, loc, dy, o.getX()));
    return success();
  }
  LogicalResult rule(tg::SiluOp o) {
    // y = x s(x): dy/dx = s + y (1 - s).
    Value s = tg::SigmoidOp::create(b, loc, o.getX());
    Value oneMinusS = tg::SubOp::create(b, loc, scalar(s.getType(), 1.0), s);
    Value d = tg::AddOp::create(b, loc, s, mul(o.getY(), oneMinusS));
    accumulate(o.getX(), mul(dy, d));
    return success();
  }
  LogicalResult rule(tg::ErfOp o) {
    // d erf(x) = 2/sqrt(pi) exp(-x^2).
    Value x = o.getX();
    Value e = tg::ExpOp::create(b, loc, neg(mul(x, x)));
    accumulate(x, mul(dy, mul(e, scalar(x.getType(), 2.0 / std::sqrt(M_PI)))));
    return success();
  }
  LogicalResult rule(tg::LeakyReluOp o) {
    accumulate(o.getX(), tg::LeakyReluGradOp::create(b, loc, dy, o.getX(),
                                                     o.getAlphaAttr()));
    return success();
  }
  // Binary, broadcasting.
  LogicalResult rule(tg::AddOp o) {
    accumulateUnbroadcast(o.getA(), dy);
    accumulateUnbroadcast(o.getB(), dy);
    return success();
  }
  LogicalResult rule(tg::SubOp o) {
    accumulateUnbroadcast(o.getA(), dy);
    if (isActive(o.getB()))
      accumulateUnbroadcast(o.getB(), neg(dy));
    return success();
  }
  LogicalResult rule(tg::MulOp o) {
    if (isActive(o.getA()))
      accumulateUnbroadcast(o.getA(), mul(dy, o.getB()));
    if (isActive(o.getB()))
      accumulateUnbroadcast(o.getB(), mul(dy, o.getA()));
    return success();
  }
  LogicalResult rule(tg::DivOp o) {
    if (isActive(o.getA()))
      accumulateUnbroadcast(o.getA(), div(dy, o.getB()));
    if (isActive(o.getB()))
      accumulateUnbroadcast(o.getB(), neg(div(mul(dy, o.getC()), o.getB())));
    return success();
  }
  LogicalResult rule(tg::PowOp o) {
    Value a = o.getA(), e = o.getB();
    if (isActive(a)) {
      // b * a^(b - 1).
      Value one = scalar(e.getType(), 1.0);
      Value p = tg::PowOp::create(b, loc, a, tg::SubOp::create(b, loc, e, one));
      accumulateUnbroadcast(a, mul(dy, mul(e, p)));
    }
    if (isActive(e)) {
      // y * log(a), defined as 0 where a <= 0 (as TensorFlow does).
      Value zero = scalar(a.getType(), 0.0);
      Value positive = compare(tg::ComparisonDirection::GT, a, zero);
      Value safe = select(positive, a, scalar(a.getType(), 1.0));
      Value logA = select(positive, tg::LogOp::create(b, loc, safe), zero);
      accumulateUnbroadcast(e, mul(dy, mul(o.getC(), logA)));
    }
    return success();
  }
  template <typename OpT> LogicalResult extremumRule(OpT o) {
    auto direction = isa<tg::MaximumOp>(o) ? tg::ComparisonDirection::GE
                                           : tg::ComparisonDirection::LE;
    Value aWins = compare(direction, o.getA(), o.getB());
    Value zero = scalar(dy.getType(), 0.0);
    if (isActive(o.getA()))
      accumulateUnbroadcast(o.getA(), select(aWins, dy, zero));
    if (isActive(o.getB()))
      accumulateUnbroadcast(o.getB(), select(aWins, zero, dy));
    return success();
  }
  LogicalResult rule(tg::MaximumOp o) { return extremumRule(o); }
  LogicalResult rule(tg::MinimumOp o) { return extremumRule(o); }
  LogicalResult rule(tg::SelectOp o) {
    Value zero = scalar(dy.getType(), 0.0);
    if (isActive(o.getA()))
      accumulateUnbroadcast(o.getA(), select(o.getCond(), dy, zero));
    if (isActive(o.getB()))
      accumulateUnbroadcast(o.getB(), select(o.getCond(), zero, dy));
    return success();
  }
  // Contractions: the transposes decide which product gives which
  // gradient.
  template <typename OpT> LogicalResult contractionRule(OpT o) {
    bool ta = o.getTransposeA(), tb = o.getTransposeB();
    Value a = o.getA(), bv = o.getB();
    auto flag = [&](bool v) { return b.getBoolAttr(v); };
    if (isActive(a)) {
      Value da = !ta ? OpT::create(b, loc, dy, bv, flag(false), flag(!tb))
                     : OpT::create(b, loc, bv, dy, flag(tb), flag(true));
      accumulate(a, da);
    }
    if (isActive(bv)) {
      Value db = !tb ? OpT::create(b, loc, a, dy, flag(!ta), flag(false))
                     : OpT::create(b, loc, dy, a, flag(true), flag(ta));
      accumulate(bv, db);
    }
    return success();
  }
  LogicalResult rule(tg::MatmulOp o) { return contractionRule(o); }
  LogicalResult rule(tg::BatchMatmulOp o) { return contractionRule(o); }
  LogicalResult rule(tg::Conv2DOp o) {
    if (isActive(o.getX()))
      accumulate(o.getX(), tg::Conv2DBackwardInputOp::create(
                               b, loc, o.getX().getType(), dy, o.getW(),
                               o.getStridesAttr(), o.getPaddingAttr(),
                               o.getDilationsAttr(), o.getLayoutAttr()));
    if (isActive(o.getW()))
      accumulate(o.getW(), tg::Conv2DBackwardFilterOp::create(
                               b, loc, o.getW().getType(), o.getX(), dy,
                               o.getStridesAttr(), o.getPaddingAttr(),
                               o.getDilationsAttr(), o.getLayoutAttr()));
    return success();
  }
  LogicalResult rule(tg::BiasAddOp o) {
    accumulate(o.getX(), dy);
    if (isActive(o.getB()))
      accumulate(o.getB(),
                 tg::BiasAddGradOp::create(b, loc, dy, o.getLayoutAttr()));
    return success();
  }
  LogicalResult rule(tg::MaxPool2DOp o) {
    accumulate(o.getX(),
               tg::MaxPool2DGradOp::create(
                   b, loc, dy, o.getX(), o.getY(), o.getWindowAttr(),
                   o.getStridesAttr(), o.getPaddingAttr(), o.getLayoutAttr()));
    return success();
  }
  LogicalResult rule(tg::AvgPool2DOp o) {
    accumulate(o.getX(),
               tg::AvgPool2DGradOp::create(
                   b, loc, o.getX().getType(), dy, o.getWindowAttr(),
                   o.getStridesAttr(), o.getPaddingAttr(), o.getLayoutAttr()));
    return success();
  }
  LogicalResult rule(tg::BatchNormOp o) {
    if (adjoint(o.getMean()) || adjoint(o.getInvStd()))
      return o.emitError("tg-autodiff: gradients through the batch "
                         "statistics of tg.batch_norm are not supported");
    auto grad = tg::BatchNormGradOp::create(
        b, loc, dy, o.getX(), o.getScale(), o.getMean(), o.getInvStd(),
        o.getEpsilonAttr(), o.getLayoutAttr());
    accumulate(o.getX(), grad.getDx());
    accumulate(o.getScale(), grad.getDscale());
    accumulate(o.getOffset(), grad.getDoffset());
    return success();
  }
  LogicalResult rule(tg::LayerNormOp o) {
    if (adjoint(o.getMean()) || adjoint(o.getInvStd()))
      return o.emitError("tg-autodiff: gradients through the statistics "
                         "of tg.layer_norm are not supported");
    auto grad = tg::LayerNormGradOp::create(b, loc, dy, o.getX(), o.getGamma(),
                                            o.getMean(), o.getInvStd(),
                                            o.getEpsilonAttr());
    accumulate(o.getX(), grad.getDx());
    accumulate(o.getGamma(), grad.getDgamma());
    accumulate(o.getBeta(), grad.getDbeta());
    return success();
  }
  LogicalResult rule(tg::SoftmaxOp o) {
    accumulate(o.getX(), tg::SoftmaxGradOp::create(b, loc, dy, o.getY(),
                                                   o.getAxisAttr()));
    return success();
  }
  LogicalResult rule(tg::LogSoftmaxOp o) {
    accumulate(o.getX(), tg::LogSoftmaxGradOp::create(b, loc, dy, o.getY(),
                                                      o.getAxisAttr()));
    return success();
  }
  LogicalResult rule(tg::SoftmaxCrossEntropyOp o) {
    if (isActive(o.getLabels()) &&
        isa<FloatType>(tensorType(o.getLabels()).getElementType()))
      return o.emitError("tg-autodiff: gradients with respect to the "
                         "labels of tg.softmax_cross_entropy are not "
                         "supported");
    accumulate(o.getLogits(), tg::SoftmaxCrossEntropyGradOp::create(
                                  b, loc, o.getLogits().getType(), dy,
                                  o.getLogits(), o.getLabels()));
    return success();
  }
  // Reductions: spread the gradient back over the reduced dimensions.
  template <typename OpT> LogicalResult reductionRule(OpT o) {
    auto xType = tensorType(o.getX());
    int64_t rank = xType.getRank();
    SmallVector<int64_t> kept(xType.getShape());
    int64_t count = 1;
    for (int64_t d : o.getDims()) {
      int64_t dim = d < 0 ? d + rank : d;
      count *= kept[dim];
      kept[dim] = 1;
    }
    auto keptType = RankedTensorType::get(kept, xType.getElementType());
    Value g = dy.getType() == keptType
                  ? dy
                  : tg::ReshapeOp::create(b, loc, keptType, dy).getResult();
    if (isa<tg::ReduceMeanOp>(o))
      g = mul(g, scalar(keptType, 1.0 / count));
    if (isa<tg::ReduceMaxOp>(o)) {
      // Ties share the gradient evenly.
      Value y = o.getY();
      Value yKept =
          y.getType() == keptType
              ? y
              : tg::ReshapeOp::create(b, loc, keptType, y).getResult();
      Value isMax = compare(tg::ComparisonDirection::EQ, o.getX(), yKept);
      Value mask = select(isMax, scalar(xType, 1.0), scalar(xType, 0.0));
      Value ties = tg::ReduceSumOp::create(b, loc, mask, o.getDimsAttr(),
                                           b.getBoolAttr(true));
      accumulate(o.getX(), mul(mask, div(g, ties)));
      return success();
    }
    accumulate(o.getX(), tg::BroadcastToOp::create(b, loc, xType, g));
    return success();
  }
  LogicalResult rule(tg::ReduceSumOp o) { return reductionRule(o); }
  LogicalResult rule(tg::ReduceMeanOp o) { return reductionRule(o); }
  LogicalResult rule(tg::ReduceMaxOp o) { return reductionRule(o); }
  // Shape ops.
  LogicalResult rule(tg::ReshapeOp o) {
    accumulate(o.getX(), tg::ReshapeOp::create(b, loc, o.getX().getType(), dy));
    return success();
  }
  LogicalResult rule(tg::BroadcastToOp o) {
    accumulate(o.getX(), unbroadcast(dy, o.getX().getType()));
    return success();
  }
  LogicalResult rule(tg::TransposeOp o) {
    ArrayRef<int64_t> perm = o.getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    accumulate(o.getX(), tg::TransposeOp::create(
                             b, loc, dy, b.getDenseI64ArrayAttr(inverse)));
    return success();
  }
  LogicalResult rule(tg::ConcatOp o) {
    auto type = tensorType(o.getY());
    int64_t rank = type.getRank();
    // I64Attr accessors return uint64_t: read the axis signed.
    int64_t axis = static_cast<int64_t>(o.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t offset = 0;
    for (Value x : o.getXs()) {
      auto xType = tensorType(x);
      if (isActive(x)) {
        SmallVector<int64_t> offsets;
        offsets.assign(rank, 0);
        offsets[axis] = offset;
        DenseI64ArrayAttr offsetsAttr = b.getDenseI64ArrayAttr(offsets);
        DenseI64ArrayAttr sizesAttr = b.getDenseI64ArrayAttr(xType.getShape());
        accumulate(x, tg::SliceOp::create(b, loc, dy, offsetsAttr, sizesAttr,
                                          DenseI64ArrayAttr()));
      }
      offset += xType.getDimSize(axis);
    }
    return success();
  }
  LogicalResult rule(tg::SliceOp o) {
    if (o.getStrides() &&
        llvm::any_of(*o.getStrides(), [](int64_t s) { return s != 1; }))
      return o.emitError("tg-autodiff: gradients of strided tg.slice are "
                         "not supported");
    auto xType = tensorType(o.getX());
    SmallVector<int64_t> low(o.getOffsets()), high;
    for (int64_t d = 0, e = xType.getRank(); d < e; ++d)
      high.push_back(xType.getDimSize(d) - low[d] - o.getSizes()[d]);
    accumulate(o.getX(),
               tg::PadOp::create(b, loc, dy, b.getDenseI64ArrayAttr(low),
                                 b.getDenseI64ArrayAttr(high),
                                 b.getF64FloatAttr(0.0)));
    return success();
  }
  LogicalResult rule(tg::PadOp o) {
    accumulate(o.getX(),
               tg::SliceOp::create(
                   b, loc, dy, o.getLowAttr(),
                   b.getDenseI64ArrayAttr(tensorType(o.getX()).getShape()),
                   DenseI64ArrayAttr()));
    return success();
  }
  // Embedding.
  LogicalResult rule(tg::GatherOp o) {
    accumulate(o.getTable(), tg::GatherGradOp::create(
                                 b, loc, dy, o.getIndices(),
                                 b.getI64IntegerAttr(
                                     tensorType(o.getTable()).getDimSize(0))));
    return success();
  }
  LogicalResult rule(tg::GatherGradOp o) {
    accumulate(o.getDy(), tg::GatherOp::create(b, loc, dy, o.getIndices()));
    return success();
  }
  // The gradient of a cast is a cast back.
  LogicalResult rule(CastOp o) {
    accumulate(o.getX(), CastOp::create(b, loc, o.getX().getType(), dy));
    return success();
  }

private:
  void accumulate(Value v, Value gradient) { g.accumulate(v, gradient); }
  void accumulateUnbroadcast(Value v, Value gradient) {
    g.accumulateUnbroadcast(v, gradient);
  }
  bool isActive(Value v) const { return g.isActive(v); }
  Value adjoint(Value v) const { return g.adjoint(v); }
  Value scalar(Type like, double value) { return g.scalar(like, value); }
  Value unbroadcast(Value gradient, Type target) {
    return g.unbroadcast(gradient, target);
  }
  Value zerosLike(Value v) { return g.zeros(v.getType()); }
  Value select(Value cond, Value a, Value c) {
    return tg::SelectOp::create(b, loc, cond, a, c);
  }
  Value compare(tg::ComparisonDirection direction, Value a, Value c) {
    return tg::CompareOp::create(b, loc, direction, a, c);
  }
  Value mul(Value a, Value c) { return tg::MulOp::create(b, loc, a, c); }
  Value div(Value a, Value c) { return tg::DivOp::create(b, loc, a, c); }
  Value neg(Value a) { return tg::NegOp::create(b, loc, a); }

  GradientBuilder &g;
  OpBuilder &b;
  Location loc;
  Value dy;
};

template <typename OpT>
struct RuleModel : GradientOpInterface::ExternalModel<RuleModel<OpT>, OpT> {
  LogicalResult emitGradient(Operation *op, GradientBuilder &g) const {
    return Rules(g, op).rule(cast<OpT>(op));
  }
};

/// Whether Rules has an overload for OpT.
template <typename OpT, typename = void> struct HasRule : std::false_type {};
template <typename OpT>
struct HasRule<OpT, std::void_t<decltype(std::declval<Rules &>().rule(
                        std::declval<OpT>()))>> : std::true_type {};

} // namespace

void tg::registerGradientRules(DialectRegistry &registry) {
  attachModelsToTGAndAMPOps<RuleModel, HasRule>(registry);
}

} // namespace amp
