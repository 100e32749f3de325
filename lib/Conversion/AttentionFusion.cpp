//===- AttentionFusion.cpp - softmax(q k^T) v as one call -----------------===//
//
// tg.batch_matmul(q, k) {transpose_b}, tg.softmax along the keys and
// tg.batch_matmul(p, v) become one amprt.attention, and the five ops
// autodiff writes for their gradient one amprt.attention_grad, both over
// views of the tensors q, k, v and the output's gradient start from: the
// probabilities (4 MB a layer of the GPT model's bf16 step, written once
// and read twice) are never stored, and the backward recomputes them a
// head at a time in cache.
//
//===----------------------------------------------------------------------===//

#include "FusionPattern.h"
#include "TensorViews.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace amp;

namespace {

/// Whether `product` is tg.batch_matmul(a, b) with these transposes, of
/// static shapes and `type`'s element type, its operands of its rank.
bool isProduct(tg::BatchMatmulOp product, bool transposeA, bool transposeB,
               Type element) {
  if (!product || product.getTransposeA() != transposeA ||
      product.getTransposeB() != transposeB)
    return false;
  auto c = cast<RankedTensorType>(product.getType());
  return llvm::all_of(product->getOperands(), [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.hasStaticShape() && t.getElementType() == element &&
           t.getRank() == c.getRank() &&
           t.getShape().drop_back(2) == c.getShape().drop_back(2);
  });
}

/// Whether `axis` is the last of `rank` dimensions.
bool isLastAxis(int64_t axis, int64_t rank) {
  return axis == -1 || axis == rank - 1;
}

/// The forward: scores = q k^T, p = softmax(scores) along the keys,
/// o = p v.
struct Forward {
  tg::BatchMatmulOp scores, output;
  tg::SoftmaxOp softmax;
  Value q() { return scores.getA(); }
  Value k() { return scores.getB(); }
  Value v() { return output.getB(); }
};

/// The backward of a Forward: dp = do v^T, dv = p^T do,
/// ds = softmax_grad(dp, p), dq = ds k, dk = ds^T q.
struct Backward {
  tg::BatchMatmulOp dp, dv, dq, dk;
  tg::SoftmaxGradOp ds;
  Value gradO() { return dp.getA(); }
};

/// The forward around `softmax`, whose scores it alone reads.
std::optional<Forward> forwardOf(tg::SoftmaxOp softmax) {
  auto type = cast<RankedTensorType>(softmax.getType());
  Type element = type.getElementType();
  if (type.getRank() < 3 || type.getRank() > 8 ||
      !isLastAxis(softmax.getAxis(), type.getRank()))
    return std::nullopt;
  Forward f;
  f.softmax = softmax;
  f.scores = softmax.getX().getDefiningOp<tg::BatchMatmulOp>();
  if (!isProduct(f.scores, false, true, element) || !f.scores->hasOneUse())
    return std::nullopt;
  for (Operation *user : softmax->getUsers()) {
    auto product = dyn_cast<tg::BatchMatmulOp>(user);
    if (product && product.getA() == softmax.getY() && !f.output &&
        isProduct(product, false, false, element))
      f.output = product;
  }
  if (!f.output)
    return std::nullopt;
  return f;
}

/// The backward of `f` that autodiff writes, when it reads p in just those
/// two places and nothing else reads its intermediates.
std::optional<Backward> backwardOf(Forward f) {
  Type element = getElementTypeOrSelf(f.softmax.getType());
  Backward b{};
  for (Operation *user : f.softmax->getUsers()) {
    if (user == f.output)
      continue;
    if (auto grad = dyn_cast<tg::SoftmaxGradOp>(user); grad && !b.ds)
      b.ds = grad;
    else if (auto product = dyn_cast<tg::BatchMatmulOp>(user);
             product && !b.dv && product.getA() == f.softmax.getY() &&
             isProduct(product, true, false, element))
      b.dv = product;
    else
      return std::nullopt;
  }
  if (!b.ds || !b.dv || b.ds.getY() != f.softmax.getY() ||
      !isLastAxis(b.ds.getAxis(),
                  cast<RankedTensorType>(b.ds.getType()).getRank()))
    return std::nullopt;
  b.dp = b.ds.getDy().getDefiningOp<tg::BatchMatmulOp>();
  if (!isProduct(b.dp, false, true, element) || !b.dp->hasOneUse() ||
      b.dp.getB() != f.v() || b.dv.getB() != b.gradO())
    return std::nullopt;
  for (Operation *user : b.ds->getUsers()) {
    auto product = dyn_cast<tg::BatchMatmulOp>(user);
    if (!product || product.getA() != b.ds.getDx())
      return std::nullopt;
    if (!b.dq && product.getB() == f.k() &&
        isProduct(product, false, false, element))
      b.dq = product;
    else if (!b.dk && product.getB() == f.q() &&
             isProduct(product, true, false, element))
      b.dk = product;
    else
      return std::nullopt;
  }
  if (!b.dq || !b.dk)
    return std::nullopt;
  return b;
}

/// Operand views that the runtime can read: not a cast read as it is read
/// (its tensor is its input's, of another type).
bool readable(ArrayRef<ValueView> views) {
  return llvm::none_of(views, [](const ValueView &v) {
    return isa_and_nonnull<rt::CastOnReadOp>(v.storage.getDefiningOp());
  });
}

/// The first of a backward's ops in the block: where its fused op goes.
Operation *firstOf(Backward b) {
  return b.dp->isBeforeInBlock(b.dv) ? b.dp : b.dv;
}

/// Whether each of `values` is defined before `op` (in its block, or
/// outside it): dp and dv need only do and v, so a hand-written step may
/// compute q or k after them, where the fused op could not read it.
bool definedBefore(ArrayRef<Value> values, Operation *op) {
  return llvm::all_of(values, [&](Value v) {
    // A block argument precedes every op; a value from an enclosing block
    // dominates op's.
    Operation *def = v.getDefiningOp();
    return !def || def->getBlock() != op->getBlock() ||
           def->isBeforeInBlock(op);
  });
}

/// Replaces `product`'s result (or the transpose placed over it) with
/// `value`, and erases the product.
void replaceResult(PatternRewriter &rewriter, tg::BatchMatmulOp product,
                   const ResultPlacement &placed, Value value) {
  if (placed.transpose)
    rewriter.replaceOp(placed.transpose, value);
  else
    rewriter.replaceAllUsesWith(product.getC(), value);
  rewriter.eraseOp(product);
}

struct Attention : OpFusionPattern<tg::SoftmaxOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(tg::SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    std::optional<Forward> f = forwardOf(softmax);
    if (!f)
      return failure();
    std::optional<Backward> b;
    if (!softmax->hasOneUse() && !(b = backwardOf(*f)))
      return failure();
    ValueView q = viewOf(f->q()), k = viewOf(f->k()), v = viewOf(f->v());
    ValueView gradO = b ? viewOf(b->gradO()) : ValueView();
    if (!readable({q, k, v}) || (b && !readable({gradO})))
      return failure();
    std::optional<SmallVector<Operation *>> fused = fusedOps(*f, b);
    if (!fused ||
        (b && !definedBefore({q.storage, k.storage, v.storage, gradO.storage},
                             firstOf(*b))) ||
        !allowed(*fused))
      return failure();
    bool causal = softmax.getCausal();
    if (b)
      fuseBackward(rewriter, *b, q, k, v, gradO, causal);
    ResultPlacement o = placeResult(f->output);
    rewriter.setInsertionPoint(f->output);
    auto attention = rt::AttentionOp::create(
        rewriter, fusedLoc({f->scores, softmax, f->output}), o.type, q.storage,
        encodeView(q), k.storage, encodeView(k), v.storage, encodeView(v),
        o.view(f->output.getType().getShape()), causal);
    replaceResult(rewriter, f->output, o, attention.getO());
    rewriter.eraseOp(softmax);
    rewriter.eraseOp(f->scores);
    eraseUnreadViewOps(rewriter, {q, k, v, gradO});
    return success();
  }

private:
  /// The ops the fusion stands for, in block order; none where they are
  /// not all in one block (an op nested in another dialect's region is
  /// not this fusion's).
  static std::optional<SmallVector<Operation *>>
  fusedOps(const Forward &f, const std::optional<Backward> &b) {
    SmallVector<Operation *> ops = {f.scores, f.softmax, f.output};
    if (b)
      ops.append({b->dp, b->dv, b->ds, b->dq, b->dk});
    Block *block = f.softmax->getBlock();
    if (llvm::any_of(ops,
                     [&](Operation *op) { return op->getBlock() != block; }))
      return std::nullopt;
    llvm::sort(
        ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    return ops;
  }

  /// amprt.attention_grad before the first of the backward's ops, in
  /// their place.
  static void fuseBackward(PatternRewriter &rewriter, Backward b,
                           const ValueView &q, const ValueView &k,
                           const ValueView &v, const ValueView &gradO,
                           bool causal) {
    ResultPlacement dq = placeResult(b.dq), dk = placeResult(b.dk),
                    dv = placeResult(b.dv);
    rewriter.setInsertionPoint(firstOf(b));
    auto grad = rt::AttentionGradOp::create(
        rewriter, fusedLoc({b.dp, b.dv, b.ds, b.dq, b.dk}),
        TypeRange{dq.type, dk.type, dv.type}, q.storage, encodeView(q),
        k.storage, encodeView(k), v.storage, encodeView(v), gradO.storage,
        encodeView(gradO), dq.view(b.dq.getType().getShape()),
        dk.view(b.dk.getType().getShape()), dv.view(b.dv.getType().getShape()),
        causal);
    replaceResult(rewriter, b.dq, dq, grad.getGradQ());
    replaceResult(rewriter, b.dk, dk, grad.getGradK());
    replaceResult(rewriter, b.dv, dv, grad.getGradV());
    rewriter.eraseOp(b.ds);
    rewriter.eraseOp(b.dp);
  }
};

} // namespace

void amp::populateAttentionPatterns(RewritePatternSet &patterns,
                                    RuntimeFusionControlFn control) {
  addFusionPattern<Attention>(patterns, std::move(control));
}
