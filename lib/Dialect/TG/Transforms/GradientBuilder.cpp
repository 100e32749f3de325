//===- GradientBuilder.cpp - Adjoints while a backward pass is built ------===//
//
// The state --tg-autodiff threads through the rules: adjoints by value, the
// active set, and the helpers that undo broadcasting. Each op's rule comes
// from its GradientOpInterface.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/Transforms/GradientBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/GradientOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
namespace tg = amp::tg;

namespace amp {

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

namespace {
/// A tg.pad of zeros that pads one axis only: the padded value covers
/// [begin, end) of that axis of the result and nothing else is nonzero.
struct ZeroPadSpan {
  tg::PadOp pad;
  int64_t axis = -1, begin = 0, end = 0;
};

std::optional<ZeroPadSpan> zeroPadSpan(Value v) {
  auto pad = v.getDefiningOp<tg::PadOp>();
  if (!pad || pad.getValue().convertToDouble() != 0.0)
    return std::nullopt;
  ZeroPadSpan span{pad};
  for (auto [d, lowHigh] :
       llvm::enumerate(llvm::zip(pad.getLow(), pad.getHigh()))) {
    auto [low, high] = lowHigh;
    if (low == 0 && high == 0)
      continue;
    if (span.axis >= 0)
      return std::nullopt; // a second padded axis
    span.axis = d;
    span.begin = low;
    span.end = tensorType(pad.getY()).getDimSize(d) - high;
  }
  if (span.axis < 0)
    return std::nullopt;
  return span;
}

/// The operands a concat along `axis` of `v` contributes: a concat's own
/// operands when it joins on that axis (so chains flatten), else `v`.
void appendJoined(Value v, int64_t axis, SmallVectorImpl<Value> &parts) {
  if (auto concat = v.getDefiningOp<tg::ConcatOp>()) {
    int64_t rank = tensorType(v).getRank();
    int64_t own = static_cast<int64_t>(concat.getAxis());
    if ((own < 0 ? own + rank : own) == axis) {
      llvm::append_range(parts, concat.getXs());
      return;
    }
  }
  parts.push_back(v);
}
} // namespace

Value GradientBuilder::joinZeroPads(Value first, Value second) {
  std::optional<ZeroPadSpan> x = zeroPadSpan(first), y = zeroPadSpan(second);
  if (!x || !y || x->axis != y->axis || first.getType() != second.getType())
    return {};
  if (y->end == x->begin)
    std::swap(x, y);
  if (x->end != y->begin)
    return {}; // not adjacent: the sum has zeros between or overlaps
  int64_t axis = x->axis;
  SmallVector<Value> parts;
  appendJoined(x->pad.getX(), axis, parts);
  appendJoined(y->pad.getX(), axis, parts);
  joinedPads.insert(x->pad);
  joinedPads.insert(y->pad);
  Value joined = tg::ConcatOp::create(b, loc, parts, b.getI64IntegerAttr(axis));
  auto type = tensorType(first);
  if (x->begin == 0 && y->end == type.getDimSize(axis))
    return joined;
  SmallVector<int64_t> low(type.getRank(), 0), high(type.getRank(), 0);
  low[axis] = x->begin;
  high[axis] = type.getDimSize(axis) - y->end;
  return tg::PadOp::create(b, loc, joined, b.getDenseI64ArrayAttr(low),
                           b.getDenseI64ArrayAttr(high),
                           b.getF64FloatAttr(0.0));
}

void GradientBuilder::accumulate(Value value, Value gradient) {
  if (!gradient || !isActive(value))
    return;
  Value &slot = adjoints[value];
  if (!slot) {
    slot = gradient;
  } else if (Value joined = joinZeroPads(slot, gradient)) {
    slot = joined;
  } else {
    slot = tg::AddOp::create(b, loc, slot, gradient).getResult();
  }
}

void GradientBuilder::eraseUnusedJoins() {
  // A pad (or a concat it padded) may feed the next join: erase users
  // before what they read.
  for (Operation *op : llvm::reverse(joinedPads)) {
    if (!op->use_empty())
      continue;
    Operation *inner = op->getOperand(0).getDefiningOp();
    op->erase();
    if (inner && isa<tg::ConcatOp>(inner) && inner->use_empty())
      inner->erase();
  }
  joinedPads.clear();
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

namespace {
/// Gives every op a gradient rule emits its forward op's `amp.precision`:
/// an op pinned to f32 (by hand, or by amp-run --validate-annotate) keeps
/// its backward in f32 too.
struct InheritPrecision : OpBuilder::Listener {
  InheritPrecision(Attribute precision, OpBuilder::Listener *next)
      : precision(precision), next(next) {}
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (!op->hasTrait<OpTrait::ConstantLike>() &&
        !op->hasAttr(AMPDialect::kPrecisionAttrName))
      op->setAttr(AMPDialect::kPrecisionAttrName, precision);
    if (next)
      next->notifyOperationInserted(op, previous);
  }
  Attribute precision;
  OpBuilder::Listener *next;
};
} // namespace

LogicalResult GradientBuilder::differentiate(Operation *op) {
  Location savedLoc = loc;
  loc = op->getLoc();
  llvm::scope_exit restore([&] { loc = savedLoc; });
  OpBuilder::InsertionGuard guard(b);
  std::optional<InheritPrecision> inherit;
  OpBuilder::Listener *savedListener = b.getListener();
  if (Attribute precision = op->getAttr(AMPDialect::kPrecisionAttrName)) {
    inherit.emplace(precision, savedListener);
    b.setListener(&*inherit);
  }
  llvm::scope_exit restoreListener([&] { b.setListener(savedListener); });
  if (auto rule = dyn_cast<GradientOpInterface>(op))
    return rule.emitGradient(*this);
  // Constants depend on nothing: no gradient flows through them.
  if (op->hasTrait<OpTrait::ConstantLike>())
    return success();
  InFlightDiagnostic error =
      op->emitError() << "tg-autodiff: no gradient rule for '" << op->getName()
                      << "' on the path from a tg.gradients loss to its wrt "
                         "values";
  // Attaching a rule is advice for another dialect's author; tg's and amp's
  // ops without one are not differentiable.
  if (isa<tg::TGDialect, AMPDialect>(op->getDialect()))
    return error << " (it is not differentiable: keep it off that path)";
  return error << " (attach amp::GradientOpInterface to give it one)";
}

} // namespace amp
