//===- RuntimeFusion.cpp - Casts, views, checks; the fusion driver --------===//

#include "amp/Conversion/RuntimeFusion.h"
#include "FusionPattern.h"
#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace amp {
#define GEN_PASS_DEF_FUSEFORRUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// f32 -> f16 read only by products, which round the f32 tensor as they
/// stage it; f16/bf16 -> f32 read only by bias gradients, which sum the
/// 16-bit tensor into their f32 result (the policy keeps that reduction in
/// f32, so every 16-bit gradient of a biased layer meets one). Either
/// way the cast needs no tensor of its own.
bool convertsOnRead(amp::CastOp cast) {
  Type from = getElementTypeOrSelf(cast.getX().getType());
  Type to = getElementTypeOrSelf(cast.getType());
  if (cast->use_empty())
    return false;
  if (from.isF32() && to.isF16())
    return llvm::all_of(cast->getUses(), [](OpOperand &use) {
      return rt::roundsAsProductOperand(use);
    });
  if (isa<Float16Type, BFloat16Type>(from) && to.isF32())
    return llvm::all_of(cast->getUsers(), [](Operation *user) {
      return isa<tg::BiasAddGradOp>(user);
    });
  return false;
}

struct CastOnRead : OpFusionPattern<amp::CastOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(amp::CastOp cast,
                                PatternRewriter &rewriter) const override {
    if (!convertsOnRead(cast) || !allowed({cast}))
      return failure();
    rewriter.replaceOpWithNewOp<rt::CastOnReadOp>(cast, cast.getType(),
                                                  cast.getX());
    return success();
  }
};

/// A returned reshape gets a tensor of its own for the caller to own.
struct ReshapeView : OpFusionPattern<tg::ReshapeOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(tg::ReshapeOp reshape,
                                PatternRewriter &rewriter) const override {
    auto from = cast<RankedTensorType>(reshape.getX().getType());
    auto to = cast<RankedTensorType>(reshape.getType());
    bool returned = llvm::any_of(reshape->getUsers(), [](Operation *user) {
      return user->hasTrait<OpTrait::IsTerminator>();
    });
    if (returned || !from.hasStaticShape() || !to.hasStaticShape() ||
        !allowed({reshape}))
      return failure();
    rewriter.replaceOpWithNewOp<rt::ViewOp>(reshape, to, reshape.getX());
    return success();
  }
};

/// The unscales whose results `check` tests, when one amprt call can
/// unscale them and test the unscaled values in the same pass: every
/// operand is a distinct amp.unscale by one scale, of f16, bf16 or f32 into
/// f32 (amprt_unscale_all_finite's arithmetic, the same bits as
/// amprt_unscale's), and nothing reads an unscaled gradient before the
/// check. Empty otherwise.
SmallVector<amp::UnscaleOp> unscalesCheckedTogether(amp::AllFiniteOp check) {
  SmallVector<amp::UnscaleOp> unscales;
  llvm::SmallPtrSet<Operation *, 8> seen;
  for (Value g : check.getGs()) {
    auto unscale = g.getDefiningOp<amp::UnscaleOp>();
    if (!unscale || unscale->getBlock() != check->getBlock() ||
        !seen.insert(unscale).second ||
        (!unscales.empty() &&
         unscale.getScale() != unscales.front().getScale()) ||
        !getElementTypeOrSelf(unscale.getY().getType()).isF32() ||
        !isa<Float16Type, BFloat16Type, Float32Type>(
            getElementTypeOrSelf(unscale.getG().getType())))
      return {};
    for (Operation *user : unscale->getUsers())
      if (user != check && user->getBlock() == check->getBlock() &&
          user->isBeforeInBlock(check))
        return {};
    unscales.push_back(unscale);
  }
  return unscales;
}

struct UnscaleCheck : OpFusionPattern<amp::AllFiniteOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(amp::AllFiniteOp check,
                                PatternRewriter &rewriter) const override {
    SmallVector<amp::UnscaleOp> unscales = unscalesCheckedTogether(check);
    SmallVector<Operation *> fused(unscales.begin(), unscales.end());
    fused.push_back(check);
    if (unscales.empty() || !allowed(fused))
      return failure();
    SmallVector<Value> operands;
    SmallVector<Type> types;
    for (amp::UnscaleOp unscale : unscales) {
      operands.push_back(unscale.getG());
      types.push_back(unscale.getType());
    }
    operands.push_back(unscales.front().getScale());
    types.push_back(check.getType());
    auto together = rt::UnscaleAllFiniteOp::create(rewriter, check.getLoc(),
                                                   types, operands);
    rewriter.replaceOp(check, together.getFinite());
    for (auto [unscale, unscaled] : llvm::zip(unscales, together.getUnscaled()))
      rewriter.replaceOp(unscale, unscaled);
    return success();
  }
};

/// Offers each op of `body` once, in block order or from the last op back,
/// to `patterns`: a pattern may erase ops other than the one it matched (a
/// fusion erases what it fused), which walkAndApplyPatterns does not allow,
/// and the greedy driver would also erase dead ops, which the lowering
/// releases as written.
void applyOncePerOp(Block &body, const FrozenRewritePatternSet &patterns,
                    bool lastFirst) {
  struct ErasedOps : RewriterBase::Listener {
    void notifyOperationErased(Operation *op) override { erased.insert(op); }
    llvm::DenseSet<Operation *> erased;
  } listener;
  PatternRewriter rewriter(body.getParentOp()->getContext());
  rewriter.setListener(&listener);
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  SmallVector<Operation *> ops =
      llvm::map_to_vector(body, [](Operation &op) { return &op; });
  if (lastFirst)
    std::reverse(ops.begin(), ops.end());
  for (Operation *op : ops) {
    if (listener.erased.contains(op))
      continue;
    rewriter.setInsertionPoint(op);
    (void)applicator.matchAndRewrite(op, rewriter);
  }
}

} // namespace

IRMapping amp::cloneIntoRegion(PatternRewriter &rewriter, Region &region,
                               ValueRange inputs, ArrayRef<Operation *> ops) {
  SmallVector<Location> argLocs =
      llvm::map_to_vector(inputs, [](Value v) { return v.getLoc(); });
  Block *body = rewriter.createBlock(&region, {}, TypeRange(inputs), argLocs);
  IRMapping map;
  map.map(inputs, body->getArguments());
  for (Operation *op : ops)
    rewriter.clone(*op, map);
  return map;
}

Location amp::fusedLoc(ArrayRef<Operation *> ops) {
  SmallVector<Location> locs =
      llvm::map_to_vector(ops, [](Operation *op) { return op->getLoc(); });
  return FusedLoc::get(ops.front()->getContext(), locs);
}

void amp::populateCastOnReadPatterns(RewritePatternSet &patterns,
                                     RuntimeFusionControlFn control) {
  addFusionPattern<CastOnRead>(patterns, std::move(control));
}

void amp::populateReshapeViewPatterns(RewritePatternSet &patterns,
                                      RuntimeFusionControlFn control) {
  addFusionPattern<ReshapeView>(patterns, std::move(control));
}

void amp::populateUnscaleCheckPatterns(RewritePatternSet &patterns,
                                       RuntimeFusionControlFn control) {
  addFusionPattern<UnscaleCheck>(patterns, std::move(control));
}

/// Whether the attention of `fused` (the ops amprt.attention stands for)
/// is causal or has at least `minKeys` keys a head: the fused CPU heads
/// beat the unfused products where the scores are long rows (Zen 5, bf16,
/// dense heads of 64: 0.93x their time at 128 keys, 1.5x at 64, 1.8x at
/// 28; a causal head multiplies only the keys it sees).
static bool attentionLongEnough(ArrayRef<Operation *> fused, int64_t minKeys) {
  for (Operation *op : fused)
    if (auto softmax = dyn_cast<tg::SoftmaxOp>(op))
      return softmax.getCausal() ||
             cast<RankedTensorType>(softmax.getType()).getShape().back() >=
                 minKeys;
  return false;
}

void amp::fuseForRuntime(func::FuncOp func,
                         const RuntimeFusionOptions &options) {
  MLIRContext *context = func.getContext();
  Block &body = func.getBody().front();
  auto apply = [&](auto populate, RuntimeFusionControlFn control = {},
                   bool lastFirst = false) {
    RewritePatternSet patterns(context);
    populate(patterns, std::move(control));
    applyOncePerOp(body, FrozenRewritePatternSet(std::move(patterns)),
                   lastFirst);
  };
  apply(populateCastOnReadPatterns, [options](ArrayRef<Operation *> fused) {
    bool intoProduct =
        getElementTypeOrSelf(fused.front()->getOperand(0).getType()).isF32();
    return intoProduct ? options.foldCastsIntoProducts
                       : options.foldCastsIntoBiasGrads;
  });
  if (options.reshapeViews)
    apply(populateReshapeViewPatterns);
  if (options.fuseUnscaleChecks)
    apply(populateUnscaleCheckPatterns);
  if (options.fuseAttention)
    apply(populateAttentionPatterns, [options](ArrayRef<Operation *> fused) {
      return attentionLongEnough(fused, options.attentionMinKeys);
    });
  if (options.stridedProducts)
    apply(populateStridedProductPatterns);
  apply(populateProductEpiloguePatterns, [options](ArrayRef<Operation *> ops) {
    bool bias =
        llvm::any_of(ops, [](Operation *op) { return isa<tg::BiasAddOp>(op); });
    bool activation = ops.size() > (bias ? 2u : 1u);
    return (!bias || options.fuseBiasEpilogues) &&
           (!activation || options.fuseActivationEpilogues);
  });
  // From the last op back: a root comes before its steps, whose own search
  // for a root then stops at the chain made (linear in the block, not
  // quadratic on long lines of elementwise ops).
  if (options.fuseElementwiseChains)
    apply(populateElementwiseChainPatterns, {}, /*lastFirst=*/true);
}

LogicalResult amp::checkFusionOptions(Location loc, StringRef pass,
                                      const RuntimeFusionOptions &options) {
  if (options.attentionMinKeys < 0)
    return emitError(loc) << pass << ": attention-min-keys must be >= 0, got "
                          << options.attentionMinKeys;
  return success();
}

namespace {
struct FuseForRuntimePass
    : WithRuntimeFusionOptions<
          amp::impl::FuseForRuntimePassBase<FuseForRuntimePass>> {
  using WithRuntimeFusionOptions::WithRuntimeFusionOptions;
  void getDependentDialects(DialectRegistry &registry) const override {
    FuseForRuntimePassBase::getDependentDialects(registry);
    // Chain steps and epilogue activations are found by their lowerings.
    registerTGToRuntimeLowerings(registry);
  }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkFusionOptions(func.getLoc(), "amp-fuse-for-runtime",
                                  fusionOptions())))
      return signalPassFailure();
    if (!func.getBody().hasOneBlock()) {
      func.emitError("amp-fuse-for-runtime: functions must be one block");
      return signalPassFailure();
    }
    fuseForRuntime(func, fusionOptions());
  }
};
} // namespace
