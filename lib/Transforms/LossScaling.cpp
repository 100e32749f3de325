//===- LossScaling.cpp - --amp-loss-scaling -------------------------------===//
//
// Scales the backward seed, unscales every gradient on its way to an
// optimizer (or clipping) op, and for dynamic scaling threads the scale and
// a finite-step counter through the function, guarding every update with
// tg.select so a non-finite step changes nothing.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include <cmath>

namespace amp {
#define GEN_PASS_DEF_LOSSSCALINGPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// The (new, old) pairs of an optimizer op: each result and the operand it
/// replaces.
SmallVector<std::pair<Value, Value>> updatedState(Operation *op) {
  if (auto sgd = dyn_cast<tg::SgdUpdateOp>(op))
    return {{sgd.getNewParam(), sgd.getParam()}};
  if (auto momentum = dyn_cast<tg::MomentumUpdateOp>(op))
    return {{momentum.getNewParam(), momentum.getParam()},
            {momentum.getNewVelocity(), momentum.getVelocity()}};
  auto adam = cast<tg::AdamUpdateOp>(op);
  return {{adam.getNewParam(), adam.getParam()},
          {adam.getNewM(), adam.getM()},
          {adam.getNewV(), adam.getV()}};
}

struct LossScalingPass : amp::impl::LossScalingPassBase<LossScalingPass> {
  using Base::Base;

  LogicalResult checkOptions(Location loc) {
    if (!(initScale > 0.0) || std::isinf(initScale))
      return emitError(loc) << "amp-loss-scaling: init-scale must be a "
                               "finite value > 0, got "
                            << static_cast<double>(initScale);
    if (mode != LossScalingMode::Dynamic)
      return success();
    if (!(growthFactor >= 1.0) || std::isinf(growthFactor))
      return emitError(loc) << "amp-loss-scaling: growth-factor must be a "
                               "finite value >= 1, got "
                            << static_cast<double>(growthFactor);
    if (!(backoffFactor > 0.0 && backoffFactor <= 1.0))
      return emitError(loc) << "amp-loss-scaling: backoff-factor must be in "
                               "(0, 1], got "
                            << static_cast<double>(backoffFactor);
    if (growthInterval < 1)
      return emitError(loc) << "amp-loss-scaling: growth-interval must be "
                               ">= 1, got "
                            << static_cast<int64_t>(growthInterval);
    if (!(minScale > 0.0 && minScale <= maxScale) || std::isinf(maxScale))
      return emitError(loc) << "amp-loss-scaling: scales must satisfy 0 < "
                               "min-scale <= max-scale < inf, got "
                            << static_cast<double>(minScale) << " and "
                            << static_cast<double>(maxScale);
    if (initScale < minScale || initScale > maxScale)
      return emitError(loc) << "amp-loss-scaling: init-scale "
                            << static_cast<double>(initScale)
                            << " is outside [min-scale, max-scale] = ["
                            << static_cast<double>(minScale) << ", "
                            << static_cast<double>(maxScale) << "]";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module.getLoc())))
      return signalPassFailure();
    if (mode == LossScalingMode::None)
      return;
    bool anySeed = false;
    // Functions of nested modules too: none is skipped silently.
    SmallVector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal() && isa<ModuleOp>(func->getParentOp()))
        funcs.push_back(func);
      return WalkResult::skip();
    });
    for (func::FuncOp func : funcs) {
      FailureOr<bool> scaled = runOnFunction(func);
      if (failed(scaled))
        return signalPassFailure();
      anySeed |= *scaled;
    }
    if (!anySeed) {
      emitError(module.getLoc(),
                "amp-loss-scaling: no tg.grad_seed in the module: "
                "there is no backward pass to scale (write "
                "tg.gradients and run --tg-autodiff first)");
      return signalPassFailure();
    }
  }

  /// Returns whether `func` had a backward pass to scale.
  FailureOr<bool> runOnFunction(func::FuncOp func) {
    BackwardPass pass = findBackwardPass(func);
    if (pass.seeds.empty()) {
      if (pass.optimizers.empty())
        return false;
      return pass.optimizers.front()->emitError(
          "amp-loss-scaling: optimizer updates but no tg.grad_seed: write "
          "the backward pass with tg.gradients and run --tg-autodiff first");
    }
    if (failed(checkBackwardPass(func, pass)))
      return failure();
    GradientSinks sinks = findGradientSinks(pass);
    if (sinks.gradients.empty())
      return pass.seeds[0].emitError(
          "amp-loss-scaling: the gradients from this tg.grad_seed reach no "
          "optimizer op (tg.sgd_update, tg.momentum_update, tg.adam_update "
          "or tg.clip_by_global_norm)");

    OpBuilder builder(func.getContext());
    bool dynamic = mode == LossScalingMode::Dynamic;
    Value scale, goodSteps;
    if (dynamic)
      std::tie(scale, goodSteps) = appendScaleArguments(builder, func);
    else
      scale = constantScale(builder, func, pass.seeds[0].getLoc());
    scaleSeeds(builder, pass.seeds, scale);
    SmallVector<Value> unscaled = unscaleGradients(builder, func, sinks, scale);
    if (!dynamic)
      return true;

    Operation *firstUpdate = sinkUpdates(func, pass.optimizers);
    builder.setInsertionPoint(firstUpdate);
    Location loc = pass.seeds[0].getLoc();
    auto finite = AllFiniteOp::create(builder, loc, unscaled);
    guardUpdates(builder, pass.optimizers, finite);
    appendScaleUpdate(builder, func, loc, scale, goodSteps, finite);
    return true;
  }

  /// What loss scaling rewrites in one function.
  struct BackwardPass {
    SmallVector<tg::GradSeedOp> seeds;
    SmallVector<Operation *> optimizers, clips;
    /// An op or argument that shows the function is already loss-scaled.
    Operation *alreadyScaled = nullptr;
  };

  static BackwardPass findBackwardPass(func::FuncOp func) {
    BackwardPass pass;
    func.walk([&](Operation *op) {
      if (auto seed = dyn_cast<tg::GradSeedOp>(op))
        pass.seeds.push_back(seed);
      else if (tg::isOptimizerUpdate(op))
        pass.optimizers.push_back(op);
      else if (isa<tg::ClipByGlobalNormOp>(op))
        pass.clips.push_back(op);
      else if (isa<ScaleOp, UpdateScaleOp>(op) && !pass.alreadyScaled)
        pass.alreadyScaled = op;
    });
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (tg::getArgumentRole(func, i) == tg::Role::LossScale)
        pass.alreadyScaled = func;
    return pass;
  }

  /// Not loss-scaled already; one backward root (or one per micro-batch
  /// under accumulation), with the optimizer updates in the function's
  /// single block.
  static LogicalResult checkBackwardPass(func::FuncOp func,
                                         BackwardPass &pass) {
    if (pass.alreadyScaled)
      return pass.alreadyScaled->emitError(
          "amp-loss-scaling: this function is already loss-scaled");
    // Gradient accumulation repeats the backward pass once per
    // micro-batch: every seed gets the same scale.
    auto microBatches =
        func->getAttrOfType<IntegerAttr>(AMPDialect::kMicroBatchesAttrName);
    bool accumulated =
        microBatches && microBatches.getInt() == int64_t(pass.seeds.size());
    if (pass.seeds.size() > 1 && !accumulated) {
      InFlightDiagnostic diag = pass.seeds[1].emitError(
          "amp-loss-scaling: more than one tg.grad_seed in one function; "
          "loss scaling needs a single backward root");
      diag.attachNote(pass.seeds[0].getLoc()) << "first tg.grad_seed here";
      return failure();
    }
    Block &body = func.getBody().front();
    auto outside = [&](Operation *op) { return op->getBlock() != &body; };
    if (!func.getBody().hasOneBlock() || outside(pass.seeds[0]) ||
        llvm::any_of(pass.optimizers, outside))
      return pass.seeds[0].emitError("amp-loss-scaling: the backward pass and "
                                     "the optimizer updates must be in the "
                                     "function's single block");
    if (llvm::any_of(pass.seeds,
                     [&](tg::GradSeedOp seed) { return outside(seed); }))
      return pass.seeds[0].emitError("amp-loss-scaling: every tg.grad_seed "
                                     "must be in the function's single block");
    return success();
  }

  /// The gradients to unscale and the operands that read them.
  struct GradientSinks {
    llvm::SetVector<Value> gradients;
    SmallVector<OpOperand *> uses;
  };

  /// Every input of clipping, and every optimizer gradient that clipping
  /// did not already produce.
  static GradientSinks findGradientSinks(BackwardPass &pass) {
    GradientSinks sinks;
    for (Operation *clip : pass.clips)
      for (OpOperand &use : clip->getOpOperands()) {
        sinks.gradients.insert(use.get());
        sinks.uses.push_back(&use);
      }
    for (Operation *op : pass.optimizers) {
      OpOperand &use = tg::optimizerGradient(op);
      if (use.get().getDefiningOp<tg::ClipByGlobalNormOp>())
        continue;
      sinks.gradients.insert(use.get());
      sinks.uses.push_back(&use);
    }
    return sinks;
  }

  /// Dynamic scaling: the scale and the finite-step counter become
  /// arguments whose first values travel with them, so hosts read them
  /// from the IR instead of restating the pass's options.
  std::pair<Value, Value> appendScaleArguments(OpBuilder &builder,
                                               func::FuncOp func) {
    auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
    auto i64Scalar = RankedTensorType::get({}, builder.getI64Type());
    unsigned n = func.getNumArguments();
    auto stateArg = [&](tg::Role role, Attribute first) {
      return tg::roleAttributes(builder.getContext(), role, first);
    };
    (void)func.insertArgument(
        n, f32Scalar,
        stateArg(tg::Role::LossScale, builder.getF32FloatAttr(initScale)),
        func.getLoc());
    (void)func.insertArgument(
        n + 1, i64Scalar,
        stateArg(tg::Role::GoodSteps, builder.getI64IntegerAttr(0)),
        func.getLoc());
    return {func.getArgument(n), func.getArgument(n + 1)};
  }

  /// Static scaling: the scale is a constant at the top of the body.
  Value constantScale(OpBuilder &builder, func::FuncOp func, Location loc) {
    auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
    builder.setInsertionPointToStart(&func.getBody().front());
    return arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(f32Scalar,
                               builder.getF32FloatAttr(initScale).getValue()));
  }

  static void scaleSeeds(OpBuilder &builder, ArrayRef<tg::GradSeedOp> seeds,
                         Value scale) {
    for (tg::GradSeedOp seed : seeds) {
      builder.setInsertionPointAfter(seed);
      auto scaled = ScaleOp::create(builder, seed.getLoc(), seed, scale);
      seed.getResult().replaceAllUsesExcept(scaled, scaled);
    }
  }

  /// Unscales each gradient once, right after it is computed (an f16
  /// gradient cast to f32 is unscaled straight from f16), and points its
  /// sinks at the result. Returns the unscaled values in order.
  static SmallVector<Value> unscaleGradients(OpBuilder &builder,
                                             func::FuncOp func,
                                             const GradientSinks &sinks,
                                             Value scale) {
    llvm::DenseMap<Value, Value> unscaled;
    SmallVector<Value> unscaledList;
    for (Value g : sinks.gradients) {
      Value source = g;
      if (auto cast = g.getDefiningOp<CastOp>())
        if (g.hasOneUse() && isa<Float16Type, BFloat16Type>(
                                 cast.getX().getType().getElementType()))
          source = cast.getX();
      if (Operation *def = g.getDefiningOp())
        builder.setInsertionPointAfter(def);
      else
        builder.setInsertionPointToStart(&func.getBody().front());
      auto op = UnscaleOp::create(builder, g.getLoc(), source, scale);
      unscaled[g] = op;
      unscaledList.push_back(op);
    }
    for (OpOperand *use : sinks.uses)
      use->set(unscaled[use->get()]);
    return unscaledList;
  }

  /// Updates go after the finite check: sinks every optimizer op and what
  /// depends on it to the end of the block, keeping their order. Returns
  /// the first op sunk.
  static Operation *sinkUpdates(func::FuncOp func,
                                ArrayRef<Operation *> optimizers) {
    Block &body = func.getBody().front();
    Operation *terminator = body.getTerminator();
    llvm::SetVector<Operation *> dependent(optimizers.begin(),
                                           optimizers.end());
    for (Operation &op : body) {
      if (&op == terminator || dependent.contains(&op))
        continue;
      if (llvm::any_of(op.getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return def && dependent.contains(def);
          }))
        dependent.insert(&op);
    }
    SmallVector<Operation *> ordered;
    for (Operation &op : body)
      if (dependent.contains(&op))
        ordered.push_back(&op);
    for (Operation *op : ordered)
      op->moveBefore(terminator);
    return ordered.front();
  }

  /// A non-finite step keeps every optimizer state as it was.
  static void guardUpdates(OpBuilder &builder, ArrayRef<Operation *> optimizers,
                           Value finite) {
    for (Operation *op : optimizers) {
      builder.setInsertionPointAfter(op);
      for (auto [updated, old] : updatedState(op)) {
        Value kept =
            tg::SelectOp::create(builder, op->getLoc(), finite, updated, old);
        updated.replaceAllUsesExcept(kept, kept.getDefiningOp());
      }
    }
  }

  /// Updates the scale and the counter and makes them results of `func`,
  /// with whether the step applied its update (every gradient finite, so a
  /// host need not infer a skip from the scale).
  void appendScaleUpdate(OpBuilder &builder, func::FuncOp func, Location loc,
                         Value scale, Value goodSteps, Value finite) {
    Operation *terminator = func.getBody().front().getTerminator();
    builder.setInsertionPoint(terminator);
    auto update = UpdateScaleOp::create(
        builder, loc, scale, goodSteps, finite,
        builder.getF64FloatAttr(growthFactor),
        builder.getF64FloatAttr(backoffFactor),
        builder.getI64IntegerAttr(growthInterval),
        builder.getF64FloatAttr(minScale), builder.getF64FloatAttr(maxScale));
    terminator->insertOperands(
        terminator->getNumOperands(),
        {update.getNewScale(), update.getNewGoodSteps(), finite});
    auto roleResult = [&](Value value, tg::Role role) {
      (void)func.insertResult(func.getNumResults(), value.getType(),
                              tg::roleAttributes(builder.getContext(), role));
    };
    roleResult(update.getNewScale(), tg::Role::LossScale);
    roleResult(update.getNewGoodSteps(), tg::Role::GoodSteps);
    roleResult(finite, tg::Role::Applied);
  }
};

} // namespace
