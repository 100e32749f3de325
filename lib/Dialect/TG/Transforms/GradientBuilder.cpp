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
