//===- AccumulateGradients.cpp - --amp-accumulate-gradients ---------------===//
//
// Repeats a training step's batch-dependent ops (forward and backward) once
// per micro-batch on slices of a K-times batch, and hands the optimizers the
// micro-batches' mean gradients, summed in f32. The repetition is unrolled
// straight-line IR, so the lowering's last-use releases free one
// micro-batch's activations before the next runs.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace amp {
#define GEN_PASS_DEF_ACCUMULATEGRADIENTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// How the micro-batches' copies of a value that leaves the repeated ops
/// become one value.
enum class Combine { Mean, Concat, Last };

/// A training step split for accumulation: the batch arguments, the ops
/// that depend on them (repeated), and the values those ops hand to the
/// rest of the step, each with how its copies combine.
struct StepSplit {
  SmallVector<BlockArgument> batchArgs;
  llvm::SetVector<Operation *> repeated;
  llvm::MapVector<Value, Combine> leaving;
  /// Amax-history arguments whose next micro-batch reads the previous
  /// one's recorded history (argument -> the returned history).
  llvm::MapVector<BlockArgument, Value> chained;
};

bool isUpdateOrClip(Operation *op) {
  return tg::isOptimizerUpdate(op) || isa<tg::ClipByGlobalNormOp>(op);
}

/// The input and label arguments, each with a static leading dimension (its
/// rows: examples, or examples x positions for a flattened label).
LogicalResult findBatch(func::FuncOp func, StepSplit &split) {
  for (BlockArgument arg : func.getArguments()) {
    std::optional<tg::Role> role =
        tg::getArgumentRole(func, arg.getArgNumber());
    if (role != tg::Role::Input && role != tg::Role::Label)
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 || type.isDynamicDim(0))
      return func.emitError("amp-accumulate-gradients: batch argument ")
             << arg.getArgNumber() << " has type " << arg.getType()
             << "; micro-batches are slices of a static leading dimension";
    split.batchArgs.push_back(arg);
  }
  if (split.batchArgs.empty())
    return func.emitError("amp-accumulate-gradients: the step has no "
                          "tg.role = \"input\" or \"label\" argument to "
                          "split into micro-batches");
  return success();
}

/// Marks every op that depends on the batch, stopping at the optimizers.
LogicalResult findRepeated(Block &body, StepSplit &split) {
  llvm::DenseSet<Value> batchValues(split.batchArgs.begin(),
                                    split.batchArgs.end());
  llvm::DenseSet<Operation *> updates;
  for (Operation &op : body.without_terminator()) {
    bool afterUpdate =
        isUpdateOrClip(&op) || llvm::any_of(op.getOperands(), [&](Value v) {
          return updates.contains(v.getDefiningOp());
        });
    bool onBatch = llvm::any_of(
        op.getOperands(), [&](Value v) { return batchValues.contains(v); });
    if (afterUpdate) {
      updates.insert(&op);
      continue;
    }
    if (!onBatch)
      continue;
    if (op.getNumRegions() != 0)
      return op.emitError("amp-accumulate-gradients: a batch-dependent op "
                          "with regions cannot be repeated per micro-batch");
    split.repeated.insert(&op);
    batchValues.insert(op.result_begin(), op.result_end());
  }
  return success();
}

/// How a result's copies combine, from its tg.role.
FailureOr<Combine> combineForResult(func::FuncOp func, unsigned index,
                                    Value value) {
  std::optional<tg::Role> role = tg::getResultRole(func, index);
  if (role == tg::Role::Loss)
    return Combine::Mean;
  if (role == tg::Role::AmaxHistory)
    return Combine::Last;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if ((role == tg::Role::Logits || role == tg::Role::Output) && type &&
      type.getRank() > 0)
    return Combine::Concat;
  return failure();
}

/// Classifies each value the repeated ops hand to the rest of the step.
LogicalResult findLeaving(func::FuncOp func, StepSplit &split) {
  Operation *terminator = func.getBody().front().getTerminator();
  auto note = [&](Combine how, Value value) -> LogicalResult {
    auto [it, added] = split.leaving.insert({value, how});
    if (added || it->second == how)
      return success();
    // Reported where the value is made: the order of its uses is not the
    // order they appear in.
    return value.getDefiningOp()->emitError(
        "amp-accumulate-gradients: a batch-dependent value leaves the "
        "repeated ops both as a gradient or loss and as a per-row result");
  };
  SmallVector<Value> values(split.batchArgs.begin(), split.batchArgs.end());
  for (Operation *op : split.repeated)
    values.append(op->result_begin(), op->result_end());
  for (Value value : values)
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      if (split.repeated.contains(owner))
        continue;
      bool gradient = (tg::isOptimizerUpdate(owner) &&
                       &use == &tg::optimizerGradient(owner)) ||
                      isa<tg::ClipByGlobalNormOp>(owner);
      FailureOr<Combine> how = failure();
      if (gradient && !isa<BlockArgument>(value))
        how = Combine::Mean;
      else if (owner == terminator && !isa<BlockArgument>(value))
        how = combineForResult(func, use.getOperandNumber(), value);
      if (failed(how))
        return owner->emitError("amp-accumulate-gradients: operand ")
               << use.getOperandNumber()
               << " depends on the batch; only an optimizer's gradient and "
                  "a loss, logits, output or amax_history result may";
      if (failed(note(*how, value)))
        return failure();
      if (*how != Combine::Last)
        continue;
      auto record = value.getDefiningOp<RecordAmaxOp>();
      auto history =
          record ? dyn_cast<BlockArgument>(record.getHistory()) : nullptr;
      if (!history)
        return owner->emitError("amp-accumulate-gradients: an amax_history "
                                "result that amp.record_amax does not "
                                "record from an argument");
      split.chained[history] = value;
    }
  return success();
}

/// The rows of micro-batch `k` of `microBatches` of batch argument `arg`,
/// whose type is already the whole step's batch.
Value microBatch(OpBuilder &builder, BlockArgument arg, int64_t microBatches,
                 int64_t k) {
  auto type = cast<RankedTensorType>(arg.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape());
  sizes[0] = type.getDimSize(0) / microBatches;
  offsets[0] = k * sizes[0];
  return tg::SliceOp::create(
      builder, arg.getLoc(), arg, builder.getDenseI64ArrayAttr(offsets),
      builder.getDenseI64ArrayAttr(sizes), DenseI64ArrayAttr());
}

/// A leaving value's micro-batch copies as they are combined: a running
/// f32 sum for a mean (added to after each micro-batch, so no micro-batch's
/// gradient outlives the next one's), every copy for a concatenation, the
/// latest for a chained history.
struct Combination {
  Combine how;
  Value sum;
  SmallVector<Value> copies;
};

/// Adds micro-batch copy `copy` to `c`.
void addCopy(OpBuilder &builder, Combination &c, Value copy) {
  if (c.how != Combine::Mean) {
    c.copies.push_back(copy);
    return;
  }
  c.copies.assign({copy});
  auto type = cast<RankedTensorType>(copy.getType());
  Value f32Copy = copy;
  if (!type.getElementType().isF32())
    f32Copy = CastOp::create(builder, copy.getLoc(),
                             type.clone(builder.getF32Type()), copy);
  c.sum = c.sum ? tg::AddOp::create(builder, copy.getLoc(), c.sum, f32Copy)
                : f32Copy;
}

/// The one value the copies combine into, in the copies' type: the f32 sum
/// times 1/K, the concatenation along the rows, or the last copy.
Value finish(OpBuilder &builder, Location loc, const Combination &c,
             int64_t microBatches) {
  if (c.how == Combine::Last)
    return c.copies.back();
  if (c.how == Combine::Concat)
    return tg::ConcatOp::create(builder, loc, c.copies,
                                builder.getI64IntegerAttr(0));
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  Value share = arith::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(
          scalar, builder.getF32FloatAttr(1.0f / float(microBatches))));
  Value mean = tg::MulOp::create(builder, loc, c.sum, share);
  Type type = c.copies.back().getType();
  return type == mean.getType() ? mean
                                : CastOp::create(builder, loc, type, mean);
}

/// Clones the repeated ops once per micro-batch at the builder's insertion
/// point, combining each leaving value's copies as they appear.
llvm::MapVector<Value, Combination> repeatPerMicroBatch(OpBuilder &builder,
                                                        const StepSplit &split,
                                                        int64_t microBatches) {
  llvm::MapVector<Value, Combination> combined;
  for (auto [value, how] : split.leaving)
    combined[value].how = how;
  for (int64_t k = 0; k < microBatches; ++k) {
    IRMapping map;
    for (BlockArgument arg : split.batchArgs)
      map.map(arg, microBatch(builder, arg, microBatches, k));
    if (k > 0)
      for (auto [history, recorded] : split.chained)
        map.map(history, combined[recorded].copies.back());
    for (Operation *op : split.repeated)
      builder.clone(*op, map);
    for (auto &[value, c] : combined)
      addCopy(builder, c, map.lookup(value));
  }
  return combined;
}

/// Grows every batch argument to `microBatches` times its rows.
void growBatch(func::FuncOp func, const StepSplit &split,
               int64_t microBatches) {
  for (BlockArgument arg : split.batchArgs) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= microBatches;
    arg.setType(type.clone(shape));
  }
}

struct AccumulateGradientsPass
    : amp::impl::AccumulateGradientsPassBase<AccumulateGradientsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (microBatches < 1) {
      emitError(module.getLoc(), "amp-accumulate-gradients: micro-batches "
                                 "must be >= 1, got ")
          << static_cast<int64_t>(microBatches);
      return signalPassFailure();
    }
    if (microBatches == 1)
      return;
    SmallVector<func::FuncOp> steps;
    WalkResult walk = module.walk([&](Operation *op) {
      if (!isUpdateOrClip(op))
        return WalkResult::advance();
      auto func = dyn_cast<func::FuncOp>(op->getParentOp());
      if (!func) {
        op->emitError("amp-accumulate-gradients: an optimizer update in a "
                      "nested region");
        return WalkResult::interrupt();
      }
      if (steps.empty() || steps.back() != func)
        steps.push_back(func);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (func::FuncOp func : steps)
      if (failed(accumulate(func)))
        return signalPassFailure();
  }

  LogicalResult accumulate(func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (tg::getArgumentRole(func, i) == tg::Role::LossScale)
        return func.emitError("amp-accumulate-gradients: the step is "
                              "already loss-scaled; accumulate first");
    if (!func.getBody().hasOneBlock())
      return func.emitError("amp-accumulate-gradients: the step must be "
                            "one block");
    StepSplit split;
    Block &body = func.getBody().front();
    if (failed(findBatch(func, split)) || failed(findRepeated(body, split)) ||
        failed(findLeaving(func, split)))
      return failure();

    // What follows the repeated ops (the updates and what uses them) moves
    // to the end, so the copies and their combinations go in before it.
    Operation *terminator = body.getTerminator();
    llvm::SetVector<Operation *> later;
    for (Operation &op : body.without_terminator())
      if (!split.repeated.contains(&op) &&
          llvm::any_of(op.getOperands(), [&](Value v) {
            return split.leaving.contains(v) ||
                   later.contains(v.getDefiningOp());
          }))
        later.insert(&op);
    for (Operation *op : later)
      op->moveBefore(terminator);

    growBatch(func, split, microBatches);
    OpBuilder builder(later.empty() ? terminator : later.front());
    auto combinations = repeatPerMicroBatch(builder, split, microBatches);
    for (auto &[value, c] : combinations) {
      Value combined = finish(builder, value.getLoc(), c, microBatches);
      value.replaceUsesWithIf(combined, [&](OpOperand &use) {
        return !split.repeated.contains(use.getOwner());
      });
      numGradients += llvm::any_of(combined.getUsers(), isUpdateOrClip);
    }
    for (Operation *op : llvm::reverse(split.repeated))
      op->erase();
    func.setFunctionType(FunctionType::get(func.getContext(),
                                           body.getArgumentTypes(),
                                           terminator->getOperandTypes()));
    func->setAttr(AMPDialect::kMicroBatchesAttrName,
                  builder.getI64IntegerAttr(microBatches));
    return success();
  }
};

} // namespace
