//===- TGFolds.cpp - Folders and canonicalizations of the tg ops ----------===//
//
// Only rewrites that are exact for every input, NaN and signed zero
// included: x * 1, -(-x), identity shape ops and shape-op chains.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace amp::tg {

/// True when `attr` is a splat float constant equal to `value`.
static bool isSplatFloat(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  return dense && dense.isSplat() &&
         dense.getSplatValue<APFloat>().isExactlyValue(value);
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 is x exactly (NaN and -0 included) when no broadcast happens.
  if (isSplatFloat(adaptor.getB(), 1.0) && getA().getType() == getType())
    return getA();
  if (isSplatFloat(adaptor.getA(), 1.0) && getB().getType() == getType())
    return getB();
  return {};
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto cond = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getCond());
  if (!cond || !cond.isSplat())
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getA() : getB();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    return dense.reshape(getType());
  // reshape(reshape(x)) only depends on x.
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  if (dense && dense.isSplat())
    return dense.resizeSplat(getType());
  return {};
}

static bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isIdentityPermutation(getPerm()))
    return getX();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  if (dense && dense.isSplat())
    return dense.resizeSplat(getType());
  return {};
}

namespace {
/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t q : op.getPerm())
      perm.push_back(inner.getPerm()[q]);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), inner.getX(), rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ComposeTransposes>(context);
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getXs().size() == 1 && getXs().front().getType() == getType())
    return getXs().front();
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // A slice that covers the whole input with unit strides is the input.
  if (getX().getType() == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
      (!getStrides() ||
       llvm::all_of(*getStrides(), [](int64_t s) { return s == 1; })))
    return getX();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  if (dense && dense.isSplat())
    return dense.resizeSplat(getType());
  return {};
}

} // namespace amp::tg
