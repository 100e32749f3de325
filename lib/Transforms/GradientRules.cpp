//===- GradientRules.cpp - Reverse-mode rules for the tg ops --------------===//
//
// Every rule emits the dedicated backward op where tg has one (relu_grad,
// conv2d_backward_input/filter, softmax_cross_entropy_grad, batch_norm_grad,
// bias_add_grad, ...) and elementwise tg ops otherwise. Backward ops take the
// location of the forward op they differentiate, so diagnostics and the AMP
// report point at the user's source.
//
//===----------------------------------------------------------------------===//

#include "GradientRules.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>

using namespace mlir;
namespace tg = amp::tg;

namespace amp {

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

void GradientBuilder::accumulate(Value value, Value gradient) {
  if (!gradient || !isActive(value))
    return;
  Value &slot = adjoints[value];
  slot =
      slot ? tg::AddOp::create(b, loc, slot, gradient).getResult() : gradient;
}

Value GradientBuilder::zeros(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  Attribute zero = b.getZeroAttr(tensor.getElementType());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(tensor, zero));
}

Value GradientBuilder::scalar(Type like, double value) {
  auto element = cast<FloatType>(cast<RankedTensorType>(like).getElementType());
  auto type = RankedTensorType::get({}, element);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getFloatAttr(element, value).getValue()));
}

Value GradientBuilder::unbroadcast(Value gradient, Type target) {
  auto from = tensorType(gradient);
  auto to = cast<RankedTensorType>(target);
  if (from == to)
    return gradient;
  ArrayRef<int64_t> fs = from.getShape(), ts = to.getShape();
  int64_t lead = fs.size() - ts.size();
  // A rank-1 operand matching the last dimension is a bias: the dedicated op
  // keeps the reduction inside the allow span.
  if (ts.size() == 1 && fs.size() >= 2 && ts[0] == fs.back() && ts[0] != 1)
    return tg::BiasAddGradOp::create(b, loc, gradient, tg::Layout::NHWC);
  SmallVector<int64_t> dims;
  for (int64_t i = 0, e = fs.size(); i < e; ++i)
    if (i < lead || (ts[i - lead] == 1 && fs[i] != 1))
      dims.push_back(i);
  Value reduced = gradient;
  if (!dims.empty())
    reduced = tg::ReduceSumOp::create(
        b, loc, gradient, b.getDenseI64ArrayAttr(dims), b.getBoolAttr(false));
  if (reduced.getType() != to)
    reduced = tg::ReshapeOp::create(b, loc, to, reduced);
  return reduced;
}

void GradientBuilder::accumulateUnbroadcast(Value operand, Value gradient) {
  if (isActive(operand))
    accumulate(operand, unbroadcast(gradient, operand.getType()));
}

LogicalResult GradientBuilder::differentiate(Operation *op) {
  Location savedLoc = loc;
  loc = op->getLoc();
  llvm::scope_exit restore([&] { loc = savedLoc; });
  Value dy = op->getNumResults() ? adjoint(op->getResult(0)) : Value();
  auto zerosLike = [&](Value v) { return zeros(v.getType()); };
  auto select = [&](Value cond, Value a, Value c) -> Value {
    return tg::SelectOp::create(b, loc, cond, a, c);
  };
  auto compare = [&](tg::ComparisonDirection direction, Value a,
                     Value c) -> Value {
    return tg::CompareOp::create(b, loc, direction, a, c);
  };
  auto mul = [&](Value a, Value c) -> Value {
    return tg::MulOp::create(b, loc, a, c);
  };
  auto div = [&](Value a, Value c) -> Value {
    return tg::DivOp::create(b, loc, a, c);
  };
  auto neg = [&](Value a) -> Value { return tg::NegOp::create(b, loc, a); };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // Ops whose results carry no gradient.
      .Case<tg::CompareOp, tg::IsFiniteOp, tg::GradSeedOp, arith::ConstantOp>(
          [](auto) { return success(); })
      // Unary.
      .Case([&](tg::NegOp o) {
        accumulate(o.getX(), neg(dy));
        return success();
      })
      .Case([&](tg::AbsOp o) {
        Value x = o.getX();
        Value zero = scalar(x.getType(), 0.0);
        Value signed_ =
            select(compare(tg::ComparisonDirection::LT, x, zero), neg(dy), dy);
        accumulate(x, select(compare(tg::ComparisonDirection::EQ, x, zero),
                             zerosLike(x), signed_));
        return success();
      })
      .Case([&](tg::ExpOp o) {
        accumulate(o.getX(), mul(dy, o.getY()));
        return success();
      })
      .Case([&](tg::LogOp o) {
        accumulate(o.getX(), div(dy, o.getX()));
        return success();
      })
      .Case([&](tg::SqrtOp o) {
        // d sqrt(x) = 1 / (2 sqrt(x)).
        Value half = mul(dy, scalar(dy.getType(), 0.5));
        accumulate(o.getX(), div(half, o.getY()));
        return success();
      })
      .Case([&](tg::RsqrtOp o) {
        // d x^-1/2 = -1/2 x^-3/2 = -1/2 y^3.
        Value y = o.getY();
        Value y3 = mul(mul(y, y), y);
        accumulate(o.getX(), mul(mul(dy, scalar(dy.getType(), -0.5)), y3));
        return success();
      })
      .Case([&](tg::SquareOp o) {
        accumulate(o.getX(), mul(dy, mul(o.getX(), scalar(dy.getType(), 2.0))));
        return success();
      })
      .Case([&](tg::ReciprocalOp o) {
        Value y = o.getY();
        accumulate(o.getX(), neg(mul(dy, mul(y, y))));
        return success();
      })
      .Case([&](tg::TanhOp o) {
        accumulate(o.getX(), tg::TanhGradOp::create(b, loc, dy, o.getY()));
        return success();
      })
      .Case([&](tg::SigmoidOp o) {
        accumulate(o.getX(), tg::SigmoidGradOp::create(b, loc, dy, o.getY()));
        return success();
      })
      .Case([&](tg::ReluOp o) {
        accumulate(o.getX(), tg::ReluGradOp::create(b, loc, dy, o.getX()));
        return success();
      })
      .Case([&](tg::GeluOp o) {
        accumulate(o.getX(), tg::GeluGradOp::create(b, loc, dy, o.getX()));
        return success();
      })
      .Case([&](tg::ErfOp o) {
        // d erf(x) = 2/sqrt(pi) exp(-x^2).
        Value x = o.getX();
        Value e = tg::ExpOp::create(b, loc, neg(mul(x, x)));
        accumulate(x,
                   mul(dy, mul(e, scalar(x.getType(), 2.0 / std::sqrt(M_PI)))));
        return success();
      })
      .Case([&](tg::LeakyReluOp o) {
        accumulate(o.getX(), tg::LeakyReluGradOp::create(b, loc, dy, o.getX(),
                                                         o.getAlphaAttr()));
        return success();
      })
      // Binary, broadcasting.
      .Case([&](tg::AddOp o) {
        accumulateUnbroadcast(o.getA(), dy);
        accumulateUnbroadcast(o.getB(), dy);
        return success();
      })
      .Case([&](tg::SubOp o) {
        accumulateUnbroadcast(o.getA(), dy);
        if (isActive(o.getB()))
          accumulateUnbroadcast(o.getB(), neg(dy));
        return success();
      })
      .Case([&](tg::MulOp o) {
        if (isActive(o.getA()))
          accumulateUnbroadcast(o.getA(), mul(dy, o.getB()));
        if (isActive(o.getB()))
          accumulateUnbroadcast(o.getB(), mul(dy, o.getA()));
        return success();
      })
      .Case([&](tg::DivOp o) {
        if (isActive(o.getA()))
          accumulateUnbroadcast(o.getA(), div(dy, o.getB()));
        if (isActive(o.getB()))
          accumulateUnbroadcast(o.getB(),
                                neg(div(mul(dy, o.getC()), o.getB())));
        return success();
      })
      .Case([&](tg::PowOp o) {
        Value a = o.getA(), e = o.getB();
        if (isActive(a)) {
          // b * a^(b - 1).
          Value one = scalar(e.getType(), 1.0);
          Value p =
              tg::PowOp::create(b, loc, a, tg::SubOp::create(b, loc, e, one));
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
      })
      .Case<tg::MaximumOp, tg::MinimumOp>([&](auto o) {
        auto direction = isa<tg::MaximumOp>(o) ? tg::ComparisonDirection::GE
                                               : tg::ComparisonDirection::LE;
        Value aWins = compare(direction, o.getA(), o.getB());
        Value zero = scalar(dy.getType(), 0.0);
        if (isActive(o.getA()))
          accumulateUnbroadcast(o.getA(), select(aWins, dy, zero));
        if (isActive(o.getB()))
          accumulateUnbroadcast(o.getB(), select(aWins, zero, dy));
        return success();
      })
      .Case([&](tg::SelectOp o) {
        Value zero = scalar(dy.getType(), 0.0);
        if (isActive(o.getA()))
          accumulateUnbroadcast(o.getA(), select(o.getCond(), dy, zero));
        if (isActive(o.getB()))
          accumulateUnbroadcast(o.getB(), select(o.getCond(), zero, dy));
        return success();
      })
      // Contractions: the transposes decide which product gives which
      // gradient.
      .Case<tg::MatmulOp, tg::BatchMatmulOp>([&](auto o) {
        using OpT = decltype(o);
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
      })
      .Case([&](tg::Conv2DOp o) {
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
      })
      .Case([&](tg::BiasAddOp o) {
        accumulate(o.getX(), dy);
        if (isActive(o.getB()))
          accumulate(o.getB(),
                     tg::BiasAddGradOp::create(b, loc, dy, o.getLayoutAttr()));
        return success();
      })
      .Case([&](tg::MaxPool2DOp o) {
        accumulate(o.getX(), tg::MaxPool2DGradOp::create(
                                 b, loc, dy, o.getX(), o.getY(),
                                 o.getWindowAttr(), o.getStridesAttr(),
                                 o.getPaddingAttr(), o.getLayoutAttr()));
        return success();
      })
      .Case([&](tg::AvgPool2DOp o) {
        accumulate(o.getX(), tg::AvgPool2DGradOp::create(
                                 b, loc, o.getX().getType(), dy,
                                 o.getWindowAttr(), o.getStridesAttr(),
                                 o.getPaddingAttr(), o.getLayoutAttr()));
        return success();
      })
      .Case([&](tg::BatchNormOp o) -> LogicalResult {
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
      })
      .Case([&](tg::LayerNormOp o) -> LogicalResult {
        if (adjoint(o.getMean()) || adjoint(o.getInvStd()))
          return o.emitError("tg-autodiff: gradients through the statistics "
                             "of tg.layer_norm are not supported");
        auto grad = tg::LayerNormGradOp::create(
            b, loc, dy, o.getX(), o.getGamma(), o.getMean(), o.getInvStd(),
            o.getEpsilonAttr());
        accumulate(o.getX(), grad.getDx());
        accumulate(o.getGamma(), grad.getDgamma());
        accumulate(o.getBeta(), grad.getDbeta());
        return success();
      })
      .Case([&](tg::SoftmaxOp o) {
        accumulate(o.getX(), tg::SoftmaxGradOp::create(b, loc, dy, o.getY(),
                                                       o.getAxisAttr()));
        return success();
      })
      .Case([&](tg::LogSoftmaxOp o) {
        accumulate(o.getX(), tg::LogSoftmaxGradOp::create(b, loc, dy, o.getY(),
                                                          o.getAxisAttr()));
        return success();
      })
      .Case([&](tg::SoftmaxCrossEntropyOp o) -> LogicalResult {
        if (isActive(o.getLabels()) &&
            isa<FloatType>(tensorType(o.getLabels()).getElementType()))
          return o.emitError("tg-autodiff: gradients with respect to the "
                             "labels of tg.softmax_cross_entropy are not "
                             "supported");
        accumulate(o.getLogits(), tg::SoftmaxCrossEntropyGradOp::create(
                                      b, loc, o.getLogits().getType(), dy,
                                      o.getLogits(), o.getLabels()));
        return success();
      })
      // Reductions: spread the gradient back over the reduced dimensions.
      .Case<tg::ReduceSumOp, tg::ReduceMeanOp, tg::ReduceMaxOp>([&](auto o) {
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
      })
      // Shape ops.
      .Case([&](tg::ReshapeOp o) {
        accumulate(o.getX(),
                   tg::ReshapeOp::create(b, loc, o.getX().getType(), dy));
        return success();
      })
      .Case([&](tg::BroadcastToOp o) {
        accumulate(o.getX(), unbroadcast(dy, o.getX().getType()));
        return success();
      })
      .Case([&](tg::TransposeOp o) {
        ArrayRef<int64_t> perm = o.getPerm();
        SmallVector<int64_t> inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        accumulate(o.getX(), tg::TransposeOp::create(
                                 b, loc, dy, b.getDenseI64ArrayAttr(inverse)));
        return success();
      })
      .Case([&](tg::ConcatOp o) {
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
            DenseI64ArrayAttr sizesAttr =
                b.getDenseI64ArrayAttr(xType.getShape());
            accumulate(x, tg::SliceOp::create(b, loc, dy, offsetsAttr,
                                              sizesAttr, DenseI64ArrayAttr()));
          }
          offset += xType.getDimSize(axis);
        }
        return success();
      })
      .Case([&](tg::SliceOp o) -> LogicalResult {
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
      })
      .Case([&](tg::PadOp o) {
        accumulate(o.getX(),
                   tg::SliceOp::create(
                       b, loc, dy, o.getLowAttr(),
                       b.getDenseI64ArrayAttr(tensorType(o.getX()).getShape()),
                       DenseI64ArrayAttr()));
        return success();
      })
      // Embedding.
      .Case([&](tg::GatherOp o) {
        accumulate(
            o.getTable(),
            tg::GatherGradOp::create(
                b, loc, dy, o.getIndices(),
                b.getI64IntegerAttr(tensorType(o.getTable()).getDimSize(0))));
        return success();
      })
      .Case([&](tg::GatherGradOp o) {
        accumulate(o.getDy(), tg::GatherOp::create(b, loc, dy, o.getIndices()));
        return success();
      })
      // The gradient of a cast is a cast back.
      .Case([&](CastOp o) {
        accumulate(o.getX(), CastOp::create(b, loc, o.getX().getType(), dy));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError()
               << "tg-autodiff: no gradient rule for '" << other->getName()
               << "' on the path from a tg.gradients loss to its wrt values";
      });
}

} // namespace amp
