//===- AttentionFusion.cpp - softmax(q k^T) v as one call -----------------===//
//
// tg.batch_matmul(q, k) {transpose_b}, tg.softmax along the keys and
// tg.batch_matmul(p, v) become one amprt.attention, and the five ops
// autodiff writes for their gradient one amprt.attention_grad, both over
// views of the tensors q, k, v and the output's gradient start from: the
// probabilities (4 MB a layer of the GPT model's bf16 step, written once
// and read twice) are never stored, and the backward recomputes them a
// head at a time in cache. A constant scalar tg.mul of the scores (before
// the softmax) or of q (before its product) becomes the ops' scale, with
// the multiplications by it autodiff writes for the gradient.
//
//===----------------------------------------------------------------------===//

#include "FusionPattern.h"
#include "TensorViews.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

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

/// A multiplication by a constant: `mul` = x * factor, with factor a
/// constant float of one element (either operand) and the result x's
/// type.
struct Scaling {
  tg::MulOp mul;
  Value x, constant;
  double factor = 1;
};

/// `mul` as a Scaling when one operand is a constant. The runtime scales
/// by an f32, so an f64 product's factor must be one exactly.
std::optional<Scaling> scalingOf(tg::MulOp mul) {
  if (!mul)
    return std::nullopt;
  bool f64 = getElementTypeOrSelf(mul.getType()).isF64();
  for (auto [x, c] :
       {std::pair(mul.getA(), mul.getB()), std::pair(mul.getB(), mul.getA())}) {
    DenseFPElementsAttr constant;
    if (x.getType() != mul.getType() ||
        !matchPattern(c, m_Constant(&constant)) ||
        constant.getNumElements() != 1)
      continue;
    double factor = (*constant.value_begin<APFloat>()).convertToDouble();
    if (!f64 || double(float(factor)) == factor)
      return Scaling{mul, x, c, factor};
  }
  return std::nullopt;
}

/// `value` as a Scaling when tg.mul by a constant defines it.
std::optional<Scaling> scalingOf(Value value) {
  return scalingOf(value.getDefiningOp<tg::MulOp>());
}

/// Erases `constant`'s op once nothing reads it (a constant left would
/// still be made a tensor each step).
void eraseConstantIfUnread(PatternRewriter &rewriter, Value constant) {
  if (Operation *def = constant.getDefiningOp(); def && def->use_empty())
    rewriter.eraseOp(def);
}

/// Erases `s`'s multiplication once nothing reads it, and its constant
/// once nothing else does.
void eraseIfUnread(PatternRewriter &rewriter, const std::optional<Scaling> &s) {
  if (!s || !s->mul->use_empty())
    return;
  rewriter.eraseOp(s->mul);
  eraseConstantIfUnread(rewriter, s->constant);
}

/// `value` multiplied by `factor` (the same constant), alone read by it:
/// the scaling autodiff writes for a gradient through a Scaling.
std::optional<Scaling> scaledOnlyBy(Value value, double factor) {
  if (!value.hasOneUse())
    return std::nullopt;
  std::optional<Scaling> s =
      scalingOf(dyn_cast<tg::MulOp>(*value.getUsers().begin()));
  if (!s || s->x != value || s->factor != factor)
    return std::nullopt;
  return s;
}

/// The forward: scores = scale q k^T, p = softmax(scores) along the keys,
/// o = p v; the scale a constant multiplying the scores (scoresScale) or
/// q (qScale), or both.
struct Forward {
  tg::BatchMatmulOp scores, output;
  tg::SoftmaxOp softmax;
  std::optional<Scaling> scoresScale, qScale;
  /// The product's q operand, scaled when qScale is set.
  Value scaledQ() { return scores.getA(); }
  Value q() { return qScale ? qScale->x : scores.getA(); }
  Value k() { return scores.getB(); }
  Value v() { return output.getB(); }
  double scale() {
    return (scoresScale ? scoresScale->factor : 1) *
           (qScale ? qScale->factor : 1);
  }
};

/// The backward of a Forward: dp = do v^T, dv = p^T do,
/// ds = softmax_grad(dp, p), dq = ds k, dk = ds^T q; ds multiplied by
/// the scores' scale (dsScale) before dq and dk, dq by q's (dqScale).
struct Backward {
  tg::BatchMatmulOp dp, dv, dq, dk;
  tg::SoftmaxGradOp ds;
  std::optional<Scaling> dsScale, dqScale;
  Value gradO() { return dp.getA(); }
  /// What dq and dk multiply.
  Value scoresGrad() { return dsScale ? dsScale->mul.getC() : ds.getDx(); }
  /// The value amprt.attention_grad's grad_q replaces.
  Value gradQ() { return dqScale ? dqScale->mul.getC() : dq.getC(); }
};

/// The forward around `softmax`, whose scores it alone reads; q's scaling
/// folded into it when `foldQScale`.
std::optional<Forward> forwardOf(tg::SoftmaxOp softmax, bool foldQScale) {
  auto type = cast<RankedTensorType>(softmax.getType());
  Type element = type.getElementType();
  if (type.getRank() < 3 || type.getRank() > 8 ||
      !isLastAxis(softmax.getAxis(), type.getRank()))
    return std::nullopt;
  Forward f;
  f.softmax = softmax;
  Value scores = softmax.getX();
  if ((f.scoresScale = scalingOf(scores))) {
    if (!f.scoresScale->mul->hasOneUse())
      return std::nullopt;
    scores = f.scoresScale->x;
  }
  f.scores = scores.getDefiningOp<tg::BatchMatmulOp>();
  if (!isProduct(f.scores, false, true, element) || !f.scores->hasOneUse())
    return std::nullopt;
  if (foldQScale)
    f.qScale = scalingOf(f.scores.getA());
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
  if (f.scoresScale &&
      !(b.dsScale = scaledOnlyBy(b.ds.getDx(), f.scoresScale->factor)))
    return std::nullopt;
  for (Operation *user : b.scoresGrad().getUsers()) {
    auto product = dyn_cast<tg::BatchMatmulOp>(user);
    if (!product || product.getA() != b.scoresGrad())
      return std::nullopt;
    if (!b.dq && product.getB() == f.k() &&
        isProduct(product, false, false, element))
      b.dq = product;
    else if (!b.dk && product.getB() == f.scaledQ() &&
             isProduct(product, true, false, element))
      b.dk = product;
    else
      return std::nullopt;
  }
  if (!b.dq || !b.dk ||
      (f.qScale && !(b.dqScale = scaledOnlyBy(b.dq.getC(), f.qScale->factor))))
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
Operation *firstOf(const Backward &b) {
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

/// Replaces `result` (or the transpose placed over it) with `value`,
/// and erases its op.
void replaceResult(PatternRewriter &rewriter, Value result,
                   const ResultPlacement &placed, Value value) {
  if (placed.transpose)
    rewriter.replaceOp(placed.transpose, value);
  else
    rewriter.replaceAllUsesWith(result, value);
  rewriter.eraseOp(result.getDefiningOp());
}

struct Attention : OpFusionPattern<tg::SoftmaxOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(tg::SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    // Heads with no keys have no softmax amprt.attention can take (each
    // query's probabilities would sum to 1 over nothing).
    if (cast<RankedTensorType>(softmax.getType()).getShape().back() < 1)
      return failure();
    std::optional<Forward> f = forwardOf(softmax, /*foldQScale=*/true);
    if (!f)
      return failure();
    std::optional<Backward> b;
    if (!softmax->hasOneUse()) {
      b = backwardOf(*f);
      // q's scaling stays an op where its gradient is not one autodiff's.
      if (!b && f->qScale) {
        f = forwardOf(softmax, /*foldQScale=*/false);
        assert(f && "matched with q's scaling folded, so without it");
        b = backwardOf(*f);
      }
      if (!b)
        return failure();
    }
    ValueView q = viewOf(f->q()), k = viewOf(f->k()), v = viewOf(f->v());
    ValueView gradO = b ? viewOf(b->gradO()) : ValueView();
    if (!readable({q, k, v}) || (b && !readable({gradO})))
      return failure();
    std::optional<SmallVector<Operation *>> fused = fusedOps(*f, b);
    // A scale the ops cannot take (not finite in f32: a constant inf or
    // NaN, or two factors whose product overflows) leaves the ops as they
    // are.
    if (!fused || !std::isfinite(float(f->scale())) ||
        (b && !definedBefore({q.storage, k.storage, v.storage, gradO.storage},
                             firstOf(*b))) ||
        !allowed(*fused))
      return failure();
    bool causal = softmax.getCausal();
    APFloat scale(f->scale());
    if (b)
      fuseBackward(rewriter, *b, q, k, v, gradO, causal, scale);
    ResultPlacement o = placeResult(f->output);
    rewriter.setInsertionPoint(f->output);
    auto attention = rt::AttentionOp::create(
        rewriter, fusedLoc(forwardOps(*f)), o.type, q.storage, encodeView(q),
        k.storage, encodeView(k), v.storage, encodeView(v),
        o.view(f->output.getType().getShape()), causal, scale);
    replaceResult(rewriter, f->output.getC(), o, attention.getO());
    rewriter.eraseOp(softmax);
    eraseIfUnread(rewriter, f->scoresScale);
    rewriter.eraseOp(f->scores);
    eraseIfUnread(rewriter, f->qScale);
    eraseUnreadViewOps(rewriter, {q, k, v, gradO});
    return success();
  }

private:
  /// The ops the fusion stands for, in block order; none where they are
  /// not all in one block (an op nested in another dialect's region is
  /// not this fusion's).
  static std::optional<SmallVector<Operation *>>
  fusedOps(const Forward &f, const std::optional<Backward> &b) {
    SmallVector<Operation *> ops = forwardOps(f);
    if (b)
      ops.append(backwardOps(*b));
    Block *block = f.softmax->getBlock();
    if (llvm::any_of(ops,
                     [&](Operation *op) { return op->getBlock() != block; }))
      return std::nullopt;
    llvm::sort(
        ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    return ops;
  }

  /// The forward's ops: its products, softmax and scalings.
  static SmallVector<Operation *> forwardOps(const Forward &f) {
    SmallVector<Operation *> ops = {f.scores, f.softmax, f.output};
    for (const std::optional<Scaling> &s : {f.scoresScale, f.qScale})
      if (s)
        ops.push_back(s->mul);
    return ops;
  }

  /// The backward's ops: its products, softmax gradient and scalings.
  static SmallVector<Operation *> backwardOps(const Backward &b) {
    SmallVector<Operation *> ops = {b.dp, b.dv, b.ds, b.dq, b.dk};
    for (const std::optional<Scaling> &s : {b.dsScale, b.dqScale})
      if (s)
        ops.push_back(s->mul);
    return ops;
  }

  /// amprt.attention_grad before the first of the backward's ops, in
  /// their place.
  static void fuseBackward(PatternRewriter &rewriter, Backward b,
                           const ValueView &q, const ValueView &k,
                           const ValueView &v, const ValueView &gradO,
                           bool causal, const APFloat &scale) {
    ResultPlacement dq = placeResult(b.gradQ()), dk = placeResult(b.dk),
                    dv = placeResult(b.dv);
    rewriter.setInsertionPoint(firstOf(b));
    auto grad = rt::AttentionGradOp::create(
        rewriter, fusedLoc(backwardOps(b)),
        TypeRange{dq.type, dk.type, dv.type}, q.storage, encodeView(q),
        k.storage, encodeView(k), v.storage, encodeView(v), gradO.storage,
        encodeView(gradO), dq.view(b.dq.getType().getShape()),
        dk.view(b.dk.getType().getShape()), dv.view(b.dv.getType().getShape()),
        causal, scale);
    replaceResult(rewriter, b.gradQ(), dq, grad.getGradQ());
    if (b.dqScale) {
      eraseConstantIfUnread(rewriter, b.dqScale->constant);
      rewriter.eraseOp(b.dq);
    }
    replaceResult(rewriter, b.dk.getC(), dk, grad.getGradK());
    replaceResult(rewriter, b.dv.getC(), dv, grad.getGradV());
    eraseIfUnread(rewriter, b.dsScale);
    rewriter.eraseOp(b.ds);
    rewriter.eraseOp(b.dp);
  }
};

} // namespace

void amp::populateAttentionPatterns(RewritePatternSet &patterns,
                                    RuntimeFusionControlFn control) {
  addFusionPattern<Attention>(patterns, std::move(control));
}
