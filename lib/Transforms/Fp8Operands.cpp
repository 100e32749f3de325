//===- Fp8Operands.cpp - FP8 operands for allow-list contractions ---------===//
//
// An fp8 graph is a bf16 graph whose contraction operands are FP8: each
// operand value gets one chain
//
//   %s = amp.fp8_scale %history          (or of this step's amax: current)
//   %q = amp.quantize %v, %s             (bf16 -> f8E4M3FN / f8E5M2)
//   %d = amp.dequantize %q, %s           (f8 -> bf16, exact)
//   %a = amp.amax %v
//   %h = amp.record_amax %history, %a    (returned for the next step)
//
// shared by every contraction that reads %v. Gradients (values downstream
// of tg.grad_seed) take E5M2 in the hybrid format for its range, the rest
// E4M3 for its precision, as Transformer Engine's Format.HYBRID does.
//
//===----------------------------------------------------------------------===//

#include "Fp8Operands.h"
#include "Fp8UpstreamOps.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace amp {

FailureOr<Fp8Options> parseFp8Options(Location loc, StringRef pass,
                                      Fp8Format format, Fp8Scaling scaling,
                                      int64_t historyLength, int64_t margin) {
  if (historyLength < 1 || historyLength > (1 << 20))
    return emitError(loc) << pass
                          << ": amax-history-len must be in [1, 2^20], got "
                          << historyLength;
  if (margin < 0 || margin > 64)
    return emitError(loc) << pass << ": fp8-margin must be in [0, 64], got "
                          << margin;
  Fp8Options options;
  options.hybrid = format == Fp8Format::Hybrid;
  options.delayed = scaling == Fp8Scaling::Delayed;
  options.historyLength = historyLength;
  options.margin = margin;
  return options;
}

llvm::DenseSet<Operation *> backwardOps(FunctionOpInterface function) {
  llvm::DenseSet<Operation *> backward;
  SmallVector<Operation *> work;
  function->walk([&](tg::GradSeedOp seed) { work.push_back(seed); });
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!backward.insert(op).second)
      continue;
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        work.push_back(user);
  }
  return backward;
}

/// A training step: a single-block func.func with a backward pass whose
/// arguments carry tg.role, so a host binds (and carries) a new state
/// argument by its role. Inference functions (predict) scale by each
/// tensor's own amax: they have no step-to-step state to keep.
static bool isTrainingStep(FunctionOpInterface function, bool hasBackward) {
  auto func = dyn_cast<func::FuncOp>(function.getOperation());
  if (!func || !func.getBody().hasOneBlock() || !hasBackward)
    return false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, tg::TGDialect::kRoleAttrName))
      return true;
  return false;
}

Type fp8Format(MLIRContext *ctx, bool gradient, bool hybrid) {
  if (gradient && hybrid)
    return Float8E5M2Type::get(ctx);
  return Float8E4M3FNType::get(ctx);
}

Value quantizeDequantize(OpBuilder &builder, Location loc, Value value,
                         Value scale, Type format) {
  auto type = cast<RankedTensorType>(value.getType());
  Value q = QuantizeOp::create(builder, loc, type.clone(format), value, scale);
  return DequantizeOp::create(builder, loc, type, q, scale);
}

LogicalResult insertFp8Operands(FunctionOpInterface function,
                                const ColoringGraph &graph,
                                const Fp8Options &options, bool signatureFixed,
                                std::vector<Fp8Operand> &operands) {
  MLIRContext *ctx = function.getContext();
  // The operands, grouped by value: one chain per value.
  llvm::MapVector<Value, SmallVector<OpOperand *, 2>> uses;
  for (const ColorNode &node : graph.getNodes()) {
    if (!node.op || !node.allow || node.cls != PrecisionClass::Allow ||
        !node.target || !node.target.isBF16())
      continue;
    for (OpOperand &use : node.op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(use.get().getType());
      if (ColoringGraph::isPrecisionOperand(node, use.getOperandNumber()) &&
          type && type.getElementType().isBF16())
        uses[use.get()].push_back(&use);
    }
  }
  if (uses.empty())
    return success();

  llvm::DenseSet<Operation *> backward = backwardOps(function);
  bool step = options.delayed && !signatureFixed &&
              isTrainingStep(function, !backward.empty());
  Block *entry = step ? &function.getFunctionBody().front() : nullptr;
  auto func = dyn_cast<func::FuncOp>(function.getOperation());
  Type f32 = Float32Type::get(ctx);
  auto scalar = RankedTensorType::get({}, f32);
  auto historyType = RankedTensorType::get({options.historyLength}, f32);
  OpBuilder builder(ctx);
  SmallVector<Value> newHistories;

  for (auto &[value, valueUses] : uses) {
    Operation *producer = value.getDefiningOp();
    bool gradient = producer && backward.contains(producer);
    Type format = fp8Format(ctx, gradient, options.hybrid);
    // The history lives in the step's signature: the value must be
    // computed once per step, in the entry block.
    bool delayed =
        !options.upstreamOps && step && value.getParentBlock() == entry;
    if (producer)
      builder.setInsertionPointAfter(producer);
    else
      builder.setInsertionPointToStart(value.getParentBlock());
    Location loc = value.getLoc();
    auto lowType = cast<RankedTensorType>(value.getType());
    RankedTensorType fp8Type = lowType.clone(format);
    IntegerAttr margin = builder.getI64IntegerAttr(options.margin);

    int historyArgument = -1;
    Value d;
    if (options.upstreamOps) {
      double max = isa<Float8E5M2Type>(format) ? 57344.0 : 448.0;
      Value amax = buildUpstreamAmax(builder, loc, value);
      Value scale = buildUpstreamScale(builder, loc, amax, max, options.margin);
      Value q = buildUpstreamQuantize(builder, loc, value, scale, fp8Type, max);
      d = buildUpstreamDequantize(builder, loc, q, scale, lowType);
    } else {
      Value scale, history;
      if (delayed) {
        historyArgument = func.getNumArguments();
        (void)func.insertArgument(
            historyArgument, historyType,
            tg::roleAttributes(builder.getContext(), tg::Role::AmaxHistory,
                               builder.getF32FloatAttr(0.0f)),
            func.getLoc());
        history = func.getArgument(historyArgument);
        scale = Fp8ScaleOp::create(builder, loc, scalar, history,
                                   TypeAttr::get(format), margin);
      }
      Value amax = AmaxOp::create(builder, loc, scalar, value);
      if (!delayed)
        scale = Fp8ScaleOp::create(builder, loc, scalar, amax,
                                   TypeAttr::get(format), margin);
      d = quantizeDequantize(builder, loc, value, scale, format);
      if (delayed)
        newHistories.push_back(
            RecordAmaxOp::create(builder, loc, historyType, history, amax));
    }

    std::string formatName;
    llvm::raw_string_ostream(formatName) << format;
    std::string reason =
        gradient
            ? std::string(options.hybrid
                              ? "gradient (downstream of tg.grad_seed): "
                                "E5M2 for its range (hybrid format)"
                              : "gradient; format=e4m3 puts every operand in "
                                "E4M3")
            : "weight or activation: E4M3 for its precision";
    std::string scaling = delayed ? "delayed" : "current";
    if (options.upstreamOps)
      reason += "; current scaling, in upstream ops: IR without amp ops "
                "comes back in linalg, tensor and arith ops, which carry no "
                "amax history";
    else if (!delayed)
      reason += options.delayed
                    ? (step ? "; current scaling: the value is computed in a "
                              "nested region, not once per step"
                            : "; current scaling: the function is not a "
                              "training step (tg.role arguments and a "
                              "tg.grad_seed) whose signature can carry an "
                              "amax history")
                    : "; current scaling (fp8-scaling=current)";
    for (OpOperand *use : valueUses) {
      operands.push_back({use->getOwner(), use->getOperandNumber(), formatName,
                          scaling, reason, historyArgument});
      use->set(d);
    }
  }

  if (!newHistories.empty()) {
    Operation *terminator = entry->getTerminator();
    terminator->insertOperands(terminator->getNumOperands(), newHistories);
    DictionaryAttr role =
        tg::roleAttributes(builder.getContext(), tg::Role::AmaxHistory);
    for (Value h : newHistories)
      (void)func.insertResult(func.getNumResults(), h.getType(), role);
  }
  return success();
}

} // namespace amp
