//===- ChainFusion.cpp - Elementwise trees as one pass --------------------===//
//
// Trees of chain steps whose intermediates each have one reader, in the
// tree, run as one amprt.elementwise_chain at the root's place: one pass
// over the tensors, the intermediates never stored (torch-mlir's decomposed
// gelu is five ops). A chain is grown from its root back through operands;
// an op is a root when the chain grown from the op that reads it does not
// take it in. Growth decides as it would on the unfused block: a chain
// already made where a step of this one would be (its root would be taken
// in) means this growth fails, as it did when that chain was made. So the
// chains that form are those of the unfused block, whatever order a driver
// offers ops in.
//
//===----------------------------------------------------------------------===//

#include "FusionPattern.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amprt/amprt.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace amp;

namespace {

bool isStep(Operation *op, Block *block) {
  return op && op->getBlock() == block && rt::chainStepOf(op).has_value();
}

/// The step that reads `op`'s result, when that is its one reader.
Operation *soleStepReading(Operation *op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  Operation *user = *result.user_begin();
  return isStep(user, op->getBlock()) ? user : nullptr;
}

/// A chain's steps in block order and the values they read from outside.
struct Chain {
  SmallVector<Operation *> steps;
  llvm::SetVector<Value> inputs;
};

/// The chain rooted at `root`: its operands' steps that only it reads,
/// breadth first, up to AMPRT_CHAIN_MAX_STEPS; none when that is one step
/// or reads more than AMPRT_CHAIN_MAX_INPUTS inputs, or when it reaches a
/// chain made before (whose root it would have taken in: on the unfused
/// block it read too many inputs, which is why that chain was made).
std::optional<Chain> growChain(Operation *root) {
  llvm::SetVector<Operation *> members;
  members.insert(root);
  for (unsigned i = 0; i < members.size(); ++i)
    for (Value v : members[i]->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !v.hasOneUse() || members.contains(def) ||
          members.size() >= AMPRT_CHAIN_MAX_STEPS ||
          def->getBlock() != root->getBlock())
        continue;
      if (isa<rt::ElementwiseChainOp>(def))
        return std::nullopt;
      if (isStep(def, root->getBlock()))
        members.insert(def);
    }
  if (members.size() < 2)
    return std::nullopt;
  Chain chain;
  chain.steps.assign(members.begin(), members.end());
  llvm::sort(chain.steps,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Operation *step : chain.steps)
    for (Value v : step->getOperands())
      if (!members.contains(v.getDefiningOp()))
        chain.inputs.insert(v);
  if (chain.inputs.size() > AMPRT_CHAIN_MAX_INPUTS)
    return std::nullopt;
  return chain;
}

bool takesIn(const std::optional<Chain> &chain, Operation *op) {
  return chain && llvm::is_contained(chain->steps, op);
}

/// The root of the chain that runs `step`: follow its sole readers up to
/// the last, then come back down, each op a root of its own where the
/// chain of the root above does not take it in.
Operation *chainRootOf(Operation *step) {
  SmallVector<Operation *> readers = {step};
  while (Operation *reader = soleStepReading(readers.back()))
    readers.push_back(reader);
  Operation *root = readers.back();
  std::optional<Chain> chain = growChain(root);
  for (Operation *op : llvm::reverse(ArrayRef(readers).drop_back()))
    if (!takesIn(chain, op)) {
      root = op;
      chain = growChain(root);
    }
  return root;
}

/// Builds the amprt.elementwise_chain of `chain` at its root's place and
/// erases its steps.
void buildChain(PatternRewriter &rewriter, const Chain &chain) {
  Operation *root = chain.steps.back();
  SmallVector<Value> inputs(chain.inputs.begin(), chain.inputs.end());
  rewriter.setInsertionPoint(root);
  auto fused =
      rt::ElementwiseChainOp::create(rewriter, fusedLoc(chain.steps),
                                     TypeRange(root->getResultTypes()), inputs);
  IRMapping map =
      cloneIntoRegion(rewriter, fused.getBody(), inputs, chain.steps);
  rt::YieldOp::create(rewriter, root->getLoc(),
                      ValueRange{map.lookup(root->getResult(0))});
  rewriter.replaceOp(root, fused);
  for (Operation *step : llvm::reverse(ArrayRef(chain.steps).drop_back()))
    rewriter.eraseOp(step);
}

struct ElementwiseChain : AnyOpFusionPattern {
  using AnyOpFusionPattern::AnyOpFusionPattern;
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (rt::runsInFusedOp(op) || !isStep(op, op->getBlock()) ||
        chainRootOf(op) != op)
      return failure();
    std::optional<Chain> chain = growChain(op);
    if (!chain || !allowed(chain->steps))
      return failure();
    buildChain(rewriter, *chain);
    return success();
  }
};

} // namespace

void amp::populateElementwiseChainPatterns(RewritePatternSet &patterns,
                                           RuntimeFusionControlFn control) {
  addFusionPattern<ElementwiseChain>(patterns, std::move(control));
}
