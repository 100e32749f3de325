//===- EpilogueFusion.cpp - Products with their bias and activation -------===//
//
// A tg.matmul or forward tg.conv2d runs with the bias add and the
// activation after it as one amprt.product_epilogue, at the place of the
// last of them (its bias may be made after the product: a cast of the f32
// master bias for one).
//
//===----------------------------------------------------------------------===//

#include "FusionPattern.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"

using namespace mlir;
using namespace amp;

namespace {

/// The tg.bias_add that can run in `product`'s epilogue: the only reader
/// of its result, adding along its channels. Null otherwise.
tg::BiasAddOp epilogueBiasAdd(Operation *product) {
  Value result = product->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  auto biasAdd = dyn_cast<tg::BiasAddOp>(*result.user_begin());
  if (!biasAdd || biasAdd.getX() != result ||
      biasAdd->getBlock() != product->getBlock() ||
      !rt::addsAlongProductChannels(biasAdd, product))
    return nullptr;
  return biasAdd;
}

/// The first epilogue activation that reads `pre`, when nothing else reads
/// `pre` before it runs. Null otherwise.
Operation *epilogueActivation(Value pre, Block *block) {
  Operation *first = nullptr;
  for (Operation *user : pre.getUsers())
    if (user->getBlock() == block && rt::epilogueActivationOf(user) &&
        (!first || user->isBeforeInBlock(first)))
      first = user;
  if (!first)
    return nullptr;
  for (Operation *user : pre.getUsers())
    if (user != first &&
        (user->getBlock() != block || !first->isBeforeInBlock(user)))
      return nullptr;
  return first;
}

/// The epilogues `product` could run, best first: with its bias add and
/// activation, with its bias add alone, or with an activation of the
/// product itself.
SmallVector<SmallVector<Operation *, 3>>
epilogueCandidates(Operation *product) {
  SmallVector<SmallVector<Operation *, 3>> candidates;
  Block *block = product->getBlock();
  if (tg::BiasAddOp biasAdd = epilogueBiasAdd(product)) {
    if (Operation *act = epilogueActivation(biasAdd.getResult(), block))
      candidates.push_back({product, biasAdd, act});
    candidates.push_back({product, biasAdd});
  } else if (Operation *act =
                 epilogueActivation(product->getResult(0), block)) {
    candidates.push_back({product, act});
  }
  return candidates;
}

/// Builds the amprt.product_epilogue of `ops` (a product, then its bias
/// add and/or activation) at the last one's place and erases them.
void buildEpilogue(PatternRewriter &rewriter, ArrayRef<Operation *> ops) {
  Operation *product = ops.front(), *anchor = ops.back();
  auto biasAdd = dyn_cast<tg::BiasAddOp>(ops[1]);
  bool activation = ops.size() > (biasAdd ? 2u : 1u);
  // The activation's input, yielded too when read after it.
  Value pre = activation ? anchor->getOperand(0) : Value();
  bool keepsPre = pre && !pre.hasOneUse();
  SmallVector<Value> inputs(product->getOperands());
  if (biasAdd)
    inputs.push_back(biasAdd.getB());
  SmallVector<Type> types = {anchor->getResult(0).getType()};
  if (keepsPre)
    types.push_back(pre.getType());
  rewriter.setInsertionPoint(anchor);
  auto fused =
      rt::ProductEpilogueOp::create(rewriter, fusedLoc(ops), types, inputs);
  IRMapping map = cloneIntoRegion(rewriter, fused.getBody(), inputs, ops);
  SmallVector<Value> yielded = {map.lookup(anchor->getResult(0))};
  if (keepsPre)
    yielded.push_back(map.lookup(pre));
  rt::YieldOp::create(rewriter, anchor->getLoc(), yielded);
  if (keepsPre)
    rewriter.replaceAllUsesExcept(pre, fused.getResult(1), anchor);
  rewriter.replaceOp(anchor, fused.getResult(0));
  for (Operation *op : llvm::reverse(ops.drop_back()))
    rewriter.eraseOp(op);
}

struct ProductEpilogue : AnyOpFusionPattern {
  using AnyOpFusionPattern::AnyOpFusionPattern;
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!rt::isEpilogueProduct(op) || rt::runsInFusedOp(op))
      return failure();
    for (ArrayRef<Operation *> ops : epilogueCandidates(op))
      if (allowed(ops)) {
        buildEpilogue(rewriter, ops);
        return success();
      }
    return failure();
  }
};

} // namespace

void amp::populateProductEpiloguePatterns(RewritePatternSet &patterns,
                                          RuntimeFusionControlFn control) {
  addFusionPattern<ProductEpilogue>(patterns, std::move(control));
}
