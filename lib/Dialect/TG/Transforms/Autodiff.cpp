//===- Autodiff.cpp - --tg-autodiff ---------------------------------------===//
//
// Finds, for each tg.gradients, the forward ops on a path from a wrt value
// to the loss (ancestors of the loss that descend from a wrt value), then
// emits their gradient rules in reverse program order right before the
// tg.gradients op, and replaces it with the accumulated adjoints.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Dialect/TG/Transforms/GradientBuilder.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

namespace amp {
#define GEN_PASS_DEF_TGAUTODIFFPASS
#include "amp/Dialect/TG/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// Values the loss is computed from, within the block of `op`. An op with
/// regions depends on what its regions capture too, so differentiating
/// through it reaches it (and fails there, naming it) instead of silently
/// missing the dependence.
llvm::DenseSet<Value> lossAncestors(tg::GradientsOp op) {
  Block *block = op->getBlock();
  llvm::DenseSet<Value> seen;
  SmallVector<Value> stack{op.getLoss()};
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      continue;
    for (Value operand : def->getOperands())
      stack.push_back(operand);
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!def->isAncestor(operand.getParentBlock()->getParentOp()))
          stack.push_back(operand);
    });
  }
  return seen;
}

/// Values computed from any of `roots`, within `block`; a use inside a
/// nested region counts as a use by the op of `block` that holds it.
llvm::DenseSet<Value> descendants(ValueRange roots, Block *block) {
  llvm::DenseSet<Value> seen;
  SmallVector<Value> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (Operation *holder = block->findAncestorOpInBlock(*user))
        for (Value result : holder->getResults())
          stack.push_back(result);
  }
  return seen;
}

LogicalResult expand(tg::GradientsOp op) {
  llvm::DenseSet<Value> ancestors = lossAncestors(op);
  llvm::DenseSet<Value> fromWrt = descendants(op.getWrt(), op->getBlock());
  llvm::DenseSet<Value> active;
  for (Value v : ancestors)
    if (fromWrt.contains(v))
      active.insert(v);

  OpBuilder builder(op);
  GradientBuilder gradients(builder, op.getLoc());
  gradients.setActive(active);
  if (active.contains(op.getLoss())) {
    Value seed = tg::GradSeedOp::create(builder, op.getLoc(), op.getLoss());
    gradients.accumulate(op.getLoss(), seed);
    // Reverse program order: every use of a value is handled before it.
    for (Operation *fwd = op->getPrevNode(); fwd; fwd = fwd->getPrevNode()) {
      if (fwd == seed.getDefiningOp())
        continue;
      bool hasAdjoint = llvm::any_of(fwd->getResults(), [&](Value r) {
        return gradients.adjoint(r) != nullptr;
      });
      if (!hasAdjoint)
        continue;
      if (failed(gradients.differentiate(fwd)))
        return failure();
    }
  }

  SmallVector<Value> results;
  for (auto [index, wrt] : llvm::enumerate(op.getWrt())) {
    Value adjoint = gradients.adjoint(wrt);
    if (!adjoint) {
      op.emitWarning() << "tg-autodiff: the loss does not depend on wrt "
                          "operand #"
                       << index << "; its gradient is zeros";
      adjoint = gradients.zeros(wrt.getType());
    }
    results.push_back(adjoint);
  }
  op->replaceAllUsesWith(results);
  op->erase();
  gradients.eraseUnusedJoins();
  return success();
}

struct TGAutodiffPass : amp::impl::TGAutodiffPassBase<TGAutodiffPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    TGAutodiffPassBase::getDependentDialects(registry);
    amp::tg::registerGradientRules(registry);
  }
  void runOnOperation() override {
    SmallVector<tg::GradientsOp> ops;
    getOperation().walk([&](tg::GradientsOp op) { ops.push_back(op); });
    for (tg::GradientsOp op : ops)
      if (failed(expand(op)))
        return signalPassFailure();
  }
};

} // namespace
