//===- DataParallel.cpp - tg-data-parallel: average gradients over ranks --===//
//
// Data parallelism as a rewrite of the step, so every host of a compiled
// step (amp-run under mpirun, an embedding compiler's runtime) gets the same
// semantics: gradients are averaged where the backward pass produces them,
// before loss scaling's unscale and before clipping, and the finite check
// that decides whether the step is skipped is agreed by all ranks, as
// PyTorch's GradScaler reduces found_inf across ranks. FP8 amaxes recorded
// for delayed scaling are the global batch's (max over ranks, as Transformer
// Engine reduces them), so every rank scales with the same factors.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"

namespace amp {
#define GEN_PASS_DEF_DATAPARALLELPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// Where a gradient is produced: from an optimizer's gradient operand back
/// through what only rescales or clips it (amp.unscale, amp.cast,
/// tg.clip_by_global_norm), so the average is taken once per gradient and
/// before anything that must see the global batch's gradient.
Value localGradient(Value g) {
  while (Operation *def = g.getDefiningOp()) {
    if (auto unscale = dyn_cast<UnscaleOp>(def)) {
      g = unscale.getG();
    } else if (auto castOp = dyn_cast<CastOp>(def)) {
      g = castOp.getX();
    } else if (auto clip = dyn_cast<tg::ClipByGlobalNormOp>(def)) {
      g = clip.getGrads()[cast<OpResult>(g).getResultNumber()];
    } else {
      break;
    }
  }
  return g;
}

/// Bytes of a statically shaped tensor, or nullopt.
std::optional<int64_t> bytesOf(RankedTensorType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// Position of `v`'s definition in `block` (arguments first).
int64_t positionIn(Value v, DenseMap<Operation *, int64_t> &order) {
  if (Operation *def = v.getDefiningOp())
    return order.lookup(def);
  return -1;
}

struct DataParallelPass : amp::impl::DataParallelPassBase<DataParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FloatType wire = wireType(gradComm);
    // Option errors name the option only: an error on the module would
    // print the whole module after it.
    if (bucketBytes < 1) {
      emitError(module.getLoc())
          << "tg-data-parallel: bucket-bytes must be >= 1, got "
          << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(runOnFunction(module, func, wire)))
        return signalPassFailure();
  }

  FloatType wireType(GradComm comm) {
    switch (comm) {
    case GradComm::F32:
      return Float32Type::get(&getContext());
    case GradComm::F16:
      return Float16Type::get(&getContext());
    case GradComm::BF16:
      return BFloat16Type::get(&getContext());
    }
    llvm_unreachable("every grad-comm is a float type");
  }

  LogicalResult runOnFunction(ModuleOp module, func::FuncOp func,
                              FloatType wire) {
    StepOps step = findStepOps(func);
    if (step.optimizers.empty())
      return success();
    if (step.existing) {
      step.existing->emitRemark("tg-data-parallel: @")
          << func.getSymName() << " already reduces over ranks; left as it is";
      return success();
    }
    if (failed(checkStep(module, func, step)))
      return failure();

    Block &body = func.getBody().front();
    OpBuilder builder(func.getContext());
    Value comm = communicator(func, builder);
    DenseMap<Operation *, int64_t> order;
    int64_t index = 0;
    for (Operation &op : body)
      order[&op] = index++;
    SmallVector<Value> gradients =
        localGradients(func, step.optimizers, order, wire);
    FailureOr<tg::Reduction> reduction = divideSeeds(func, comm, builder);
    if (failed(reduction) || failed(reduceGradients(func, gradients, wire, comm,
                                                    *reduction, builder)))
      return failure();
    agreeFiniteChecks(step.finiteChecks, comm, builder);
    if (reduceAmax &&
        failed(reduceAmaxes(step.amaxRecords, body, order, comm, builder)))
      return failure();
    averageLosses(func, comm, builder);

    // Reductions sit after their last gradient; users that came earlier
    // move after them (a stable sort keeps everything else in place).
    if (!sortTopologically(&body))
      return func.emitError("tg-data-parallel: the step's body has a cycle "
                            "after inserting collectives");
    return mlir::verify(func);
  }

  /// The ops of a step the pass rewrites or agrees over ranks.
  struct StepOps {
    SmallVector<Operation *> optimizers;
    SmallVector<AllFiniteOp> finiteChecks;
    SmallVector<RecordAmaxOp> amaxRecords;
    /// A collective already there: the step is left as it is.
    Operation *existing = nullptr;
  };

  static StepOps findStepOps(func::FuncOp func) {
    StepOps step;
    func.walk([&](Operation *op) {
      if (tg::isOptimizerUpdate(op))
        step.optimizers.push_back(op);
      else if (auto finite = dyn_cast<AllFiniteOp>(op))
        step.finiteChecks.push_back(finite);
      else if (auto record = dyn_cast<RecordAmaxOp>(op))
        step.amaxRecords.push_back(record);
      else if (isa<tg::AllReduceOp>(op) && !step.existing)
        step.existing = op;
    });
    return step;
  }

  /// The loss result is rewritten at the return and the collectives are
  /// ordered in one block: a step with control flow between blocks is
  /// refused rather than half rewritten.
  static LogicalResult checkStep(ModuleOp module, func::FuncOp func,
                                 StepOps &step) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("tg-data-parallel: @")
             << func.getSymName()
             << " has more than one block; a data-parallel step must be "
                "one block (loops and branches as region ops are fine)";
    Block &body = func.getBody().front();
    for (Operation *op : step.optimizers)
      if (op->getBlock() != &body)
        return op->emitError(
            "tg-data-parallel: optimizer update inside a nested region; "
            "the gradients must be averaged once per step, in the "
            "function's body");
    for (AllFiniteOp op : step.finiteChecks)
      if (op->getBlock() != &body)
        return op->emitError("tg-data-parallel: amp.all_finite inside a "
                             "nested region cannot be agreed once per step");
    if (!SymbolTable::symbolKnownUseEmpty(func, module))
      return func.emitError("tg-data-parallel: @")
             << func.getSymName()
             << " is called by other functions; a data-parallel step gains "
                "a communicator argument, so it must be an entry point";
    return success();
  }

  /// The gradients, each once, in the order the backward pass makes them
  /// (`order`: the body's ops by position). Warns when they would travel
  /// in f16 unscaled.
  static SmallVector<Value>
  localGradients(func::FuncOp func, ArrayRef<Operation *> optimizers,
                 DenseMap<Operation *, int64_t> &order, FloatType wire) {
    llvm::SetVector<Value> gradients;
    bool scaled = false;
    for (Operation *op : optimizers) {
      Value g = tg::optimizerGradient(op).get();
      Value local = localGradient(g);
      scaled |= local != g && llvm::any_of(local.getUsers(), [](Operation *u) {
                  return isa<UnscaleOp>(u);
                });
      gradients.insert(local);
    }
    SmallVector<Value> sorted(gradients.begin(), gradients.end());
    llvm::stable_sort(sorted, [&](Value a, Value b) {
      return positionIn(a, order) < positionIn(b, order);
    });
    if (!scaled && isa<Float16Type>(wire))
      func.emitWarning("tg-data-parallel: gradients of @")
          << func.getSymName()
          << " travel in f16 without loss scaling: gradients below f16's "
             "smallest subnormal (6e-8) flush to zero; use grad-comm=bf16 "
             "or loss scaling";
    return sorted;
  }

  /// Each rank's backward pass starts from 1/ranks instead of 1, so its
  /// gradients are its share of the global batch's gradient and the
  /// all-reduce sums them. Averaging after the backward pass would give the
  /// same f32 result, but each rank's f16 gradients would be ranks times
  /// larger than one process's with the whole batch and overflow at a
  /// smaller loss scale; pre-dividing keeps the numbers one process sees.
  /// Returns the reduction the gradients then need: a sum, or a mean
  /// where the function has no seed.
  FailureOr<tg::Reduction> divideSeeds(func::FuncOp func, Value comm,
                                       OpBuilder &builder) {
    Block &body = func.getBody().front();
    SmallVector<tg::GradSeedOp> seeds(body.getOps<tg::GradSeedOp>());
    if (seeds.empty())
      return tg::Reduction::Mean;
    builder.setInsertionPointToStart(&body);
    Location loc = func.getLoc();
    auto f32Scalar = RankedTensorType::get({}, builder.getF32Type());
    Value one = arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(f32Scalar,
                               builder.getF32FloatAttr(1.0f).getValue()));
    auto ranks = tg::AllReduceOp::create(builder, loc, comm, ValueRange{one},
                                         tg::Reduction::Sum);
    ++numCollectives;
    Value share = tg::ReciprocalOp::create(builder, loc, ranks.getResult(0));
    for (tg::GradSeedOp seed : seeds) {
      if (seed.getType() != f32Scalar)
        return seed.emitError("tg-data-parallel: a backward seed of ")
               << seed.getType() << "; the pass divides tensor<f32> seeds";
      builder.setInsertionPointAfter(seed);
      Value part = tg::MulOp::create(builder, seed.getLoc(), seed, share);
      seed.getResult().replaceAllUsesExcept(part, part.getDefiningOp());
    }
    return tg::Reduction::Sum;
  }

  /// Buckets of one wire type, each reduced after its last member.
  LogicalResult reduceGradients(func::FuncOp func, ArrayRef<Value> gradients,
                                FloatType wire, Value comm,
                                tg::Reduction reduction, OpBuilder &builder) {
    SmallVector<Value> bucket;
    int64_t bucketSize = 0;
    auto flush = [&]() {
      if (!bucket.empty())
        reduceBucket(bucket, wire, comm, reduction, builder);
      bucket.clear();
      bucketSize = 0;
    };
    for (Value g : gradients) {
      auto type = dyn_cast<RankedTensorType>(g.getType());
      if (!type || !isa<FloatType>(type.getElementType()))
        return (g.getDefiningOp() ? g.getDefiningOp() : func.getOperation())
                   ->emitError("tg-data-parallel: a gradient that is not a "
                               "ranked float tensor: ")
               << g.getType();
      std::optional<int64_t> bytes =
          bytesOf(RankedTensorType::get(type.getShape(), wire));
      int64_t size = bytes.value_or(bucketBytes);
      if (!bucket.empty() && bucketSize + size > bucketBytes)
        flush();
      bucket.push_back(g);
      bucketSize += size;
      numWireBytes += bytes.value_or(0);
    }
    flush();
    numGradients += gradients.size();
    return success();
  }

  /// Every rank must take the same decision on a step's gradients.
  void agreeFiniteChecks(ArrayRef<AllFiniteOp> finiteChecks, Value comm,
                         OpBuilder &builder) {
    for (AllFiniteOp finite : finiteChecks) {
      builder.setInsertionPointAfter(finite);
      auto agreed = tg::AllReduceOp::create(builder, finite.getLoc(), comm,
                                            ValueRange{finite.getResult()},
                                            tg::Reduction::Min);
      finite.getResult().replaceAllUsesExcept(agreed.getResult(0), agreed);
      ++numCollectives;
    }
  }

  /// The loss the host reports is the global batch's.
  void averageLosses(func::FuncOp func, Value comm, OpBuilder &builder) {
    Operation *terminator = func.getBody().front().getTerminator();
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      if (tg::getResultRole(func, i) != tg::Role::Loss)
        continue;
      Value loss = terminator->getOperand(i);
      if (!isa<FloatType>(cast<ShapedType>(loss.getType()).getElementType()))
        continue;
      builder.setInsertionPoint(terminator);
      auto mean = tg::AllReduceOp::create(
          builder, loss.getLoc(), comm, ValueRange{loss}, tg::Reduction::Mean);
      terminator->setOperand(i, mean.getResult(0));
      ++numCollectives;
    }
  }

  /// The function's communicator argument, added when it has none.
  Value communicator(func::FuncOp func, OpBuilder &builder) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (tg::getArgumentRole(func, i) == tg::Role::Communicator)
        return func.getArgument(i);
    unsigned n = func.getNumArguments();
    (void)func.insertArgument(
        n, RankedTensorType::get({}, builder.getI64Type()),
        tg::roleAttributes(builder.getContext(), tg::Role::Communicator),
        func.getLoc());
    return func.getArgument(n);
  }

  /// The amax each `amp.record_amax` pushes into its history becomes the
  /// largest over the ranks: one `tg.all_reduce` ("max", exact in any order,
  /// NaN wins so a non-finite step is dropped on every rank) for all of
  /// them, after the last amax is computed. Each rank then holds the history
  /// one process with the global batch would hold, and the delayed scales
  /// agree. Current scaling (no history) scales each rank's own tensor and
  /// is left alone, as are records in nested regions (once per step cannot
  /// be promised there).
  /// `order`: the body's ops by position before any collective was added.
  LogicalResult reduceAmaxes(ArrayRef<RecordAmaxOp> records, Block &body,
                             DenseMap<Operation *, int64_t> &order, Value comm,
                             OpBuilder &builder) {
    SmallVector<RecordAmaxOp> inBody;
    for (RecordAmaxOp record : records) {
      if (record->getBlock() == &body) {
        inBody.push_back(record);
        continue;
      }
      record->emitWarning("tg-data-parallel: amp.record_amax inside a nested "
                          "region keeps this rank's amax");
    }
    if (inBody.empty())
      return success();
    llvm::SetVector<Value> amaxes;
    for (RecordAmaxOp record : inBody)
      amaxes.insert(record.getAmax());
    Value last = *llvm::max_element(amaxes, [&](Value a, Value b) {
      return positionIn(a, order) < positionIn(b, order);
    });
    if (Operation *def = last.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(&body);
    auto reduce = tg::AllReduceOp::create(
        builder, last.getLoc(), comm, amaxes.getArrayRef(), tg::Reduction::Max);
    ++numCollectives;
    numAmaxes += amaxes.size();
    for (RecordAmaxOp record : inBody) {
      auto at = static_cast<unsigned>(llvm::find(amaxes, record.getAmax()) -
                                      amaxes.begin());
      record.getAmaxMutable().assign(reduce.getResult(at));
    }
    return success();
  }

  /// One tg.all_reduce (`reduction`) for `bucket`, in `wire` type, after its
  /// last gradient; each gradient's users take the average in its own type.
  void reduceBucket(ArrayRef<Value> bucket, FloatType wire, Value comm,
                    tg::Reduction reduction, OpBuilder &builder) {
    Value last = bucket.back();
    if (Operation *def = last.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(last).getOwner());
    SmallVector<Value> wired;
    SmallPtrSet<Operation *, 4> castsIn;
    for (Value g : bucket) {
      auto type = cast<RankedTensorType>(g.getType());
      if (type.getElementType() == wire) {
        wired.push_back(g);
        continue;
      }
      auto down = CastOp::create(builder, g.getLoc(), type.clone(wire), g);
      castsIn.insert(down);
      wired.push_back(down);
    }
    auto reduce =
        tg::AllReduceOp::create(builder, last.getLoc(), comm, wired, reduction);
    ++numCollectives;
    for (auto [gradient, averaged] : llvm::zip(bucket, reduce.getResults())) {
      Value g = gradient, back;
      for (OpOperand &use : llvm::make_early_inc_range(g.getUses())) {
        Operation *user = use.getOwner();
        if (user == reduce || castsIn.contains(user))
          continue;
        // amp.unscale takes any float type and returns f32: it reads the
        // average as it came off the wire, with no rounding back.
        if (isa<UnscaleOp>(user) && use.getOperandNumber() == 0) {
          use.set(averaged);
          continue;
        }
        if (averaged.getType() == g.getType()) {
          use.set(averaged);
          continue;
        }
        if (!back) {
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointAfter(reduce);
          back = CastOp::create(builder, g.getLoc(), g.getType(), averaged);
        }
        use.set(back);
      }
    }
  }
};

} // namespace
