//===- LowerToRuntime.cpp - tg/amp ops to amprt C API calls ---------------===//
//
// Straight-line training steps become straight-line runtime calls: each op
// allocates its results (amprt_tensor_new), calls its amprt_ entry, and
// records the status on the context, which keeps the first failure; the
// step returns it at the end. Intermediates are released after their last
// use, so peak memory follows the live set, not the whole graph.
//
//===----------------------------------------------------------------------===//

#include "FusionPlan.h"
#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"

namespace amp {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp

using namespace mlir;
using amp::RuntimeLoweringBuilder;
namespace tg = amp::tg;

std::optional<int32_t> amp::runtimeDtypeCode(Type element) {
  if (element.isF32())
    return AMPRT_F32;
  if (element.isF16())
    return AMPRT_F16;
  if (element.isBF16())
    return AMPRT_BF16;
  if (element.isF64())
    return AMPRT_F64;
  if (element.isInteger(32))
    return AMPRT_I32;
  if (element.isInteger(64))
    return AMPRT_I64;
  if (element.isInteger(1))
    return AMPRT_I1;
  if (isa<Float8E4M3FNType>(element))
    return AMPRT_F8E4M3FN;
  if (isa<Float8E5M2Type>(element))
    return AMPRT_F8E5M2;
  return std::nullopt;
}

namespace {

/// What one function's lowering fused and reused, for the pass's
/// statistics.
struct LoweringCounts {
  unsigned foldedCasts = 0, fusedChecks = 0, inPlaceResults = 0,
           reshapeViews = 0, fusedBiases = 0, fusedActivations = 0, chains = 0,
           chainedOps = 0;
};

/// Lowers one single-block function: checks its types, plans its fusions,
/// then builds the runtime-call function beside it, op after op, releasing
/// each tensor after its last use.
class FunctionLowering {
public:
  FunctionLowering(ModuleOp module, func::FuncOp func,
                   const amp::FusionOptions &fusion, bool inPlace)
      : module(module), func(func), fusion(fusion), inPlace(inPlace),
        b(func.getContext()),
        ptr(LLVM::LLVMPointerType::get(func.getContext())),
        i32(b.getI32Type()) {}

  LogicalResult run();
  LoweringCounts counts;

private:
  LogicalResult checkTypes();
  /// The runtime-call function (context, arguments, results) beside the
  /// tensor form, which takes a new name; returns its entry block.
  Block *beginLoweredFunction();
  /// Each argument's handle, loaded from the arguments array.
  void loadArguments(RuntimeLoweringBuilder &lowering, Value args);
  /// Lowers the op at position `here` (a folded cast takes its input's
  /// handle; an op that runs in another's call is skipped) and releases
  /// what it read for the last time.
  LogicalResult lowerAtItsPlace(RuntimeLoweringBuilder &lowering, Operation &op,
                                unsigned here);
  /// Emits the call(s) that run `op` and whatever runs with it.
  LogicalResult emitCall(RuntimeLoweringBuilder &lowering, Operation &op);
  /// The values `op`'s call reads: its operands, or those of the product,
  /// bias, chain or unscales that run in it.
  SmallVector<Value> readsOf(Operation &op) const;
  void releaseAfter(RuntimeLoweringBuilder &lowering, Operation &op,
                    ArrayRef<Value> reads,
                    llvm::SmallSetVector<Value, 8> &dying, unsigned here);
  /// Results: new handles owned by the caller.
  void storeResults(RuntimeLoweringBuilder &lowering, func::ReturnOp ret,
                    Value results);
  /// Lowers `op` by its RuntimeLoweringOpInterface (constants here).
  LogicalResult lowerOp(RuntimeLoweringBuilder &lowering, Operation *op);
  LogicalResult lowerConstant(RuntimeLoweringBuilder &lowering,
                              arith::ConstantOp op);
  /// `check` and the unscales of its operands as one
  /// amprt_unscale_all_finite call.
  void lowerUnscalesAndCheck(RuntimeLoweringBuilder &lowering,
                             amp::AllFiniteOp check,
                             ArrayRef<amp::UnscaleOp> unscales);
  /// A product and its epilogue as one amprt_matmul_bias /
  /// amprt_conv2d_bias call, or amprt_matmul_bias_act /
  /// amprt_conv2d_bias_act with an activation.
  void lowerEpilogue(RuntimeLoweringBuilder &lowering,
                     const amp::ProductEpilogue &epilogue);
  /// `chain` as one amprt_elementwise_chain call.
  void lowerChain(RuntimeLoweringBuilder &lowering,
                  const amp::ElementwiseChain &chain);

  ModuleOp module;
  func::FuncOp func;
  amp::FusionOptions fusion;
  bool inPlace;
  std::optional<amp::FusionPlan> plan;
  std::optional<amp::BufferLifetimes> lifetimes;
  llvm::DenseSet<Value> returned;
  OpBuilder b;
  Type ptr, i32;
  unsigned globals = 0;
  std::string baseName;
};

LogicalResult FunctionLowering::lowerConstant(RuntimeLoweringBuilder &lowering,
                                              arith::ConstantOp op) {
  Location loc = lowering.getLoc();
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!dense || !type)
    return op.emitError("amp-lower-to-runtime: only dense tensor constants "
                        "lower to the runtime");
  Value t = lowering.newTensor(type);
  lowering.setHandle(op.getResult(), t);
  Type element = type.getElementType();
  if (dense.isSplat()) {
    double v = isa<FloatType>(element)
                   ? dense.getSplatValue<APFloat>().convertToDouble()
                   : (double)dense.getSplatValue<APInt>().getSExtValue();
    lowering.callChecked(AMPRT_ENTRY(amprt_tensor_fill),
                         {t, lowering.constF64(v)});
    return success();
  }
  // The data lives in an LLVM global, copied in by amprt_tensor_write.
  // i1 elements are stored one byte each, like the runtime's.
  DenseElementsAttr data = dense;
  Type storage = element;
  if (element.isInteger(1)) {
    storage = b.getI8Type();
    SmallVector<int8_t> bytes;
    for (bool v : dense.getValues<bool>())
      bytes.push_back(v);
    data = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)bytes.size()}, storage),
        ArrayRef<int8_t>(bytes));
  } else {
    data =
        dense.reshape(RankedTensorType::get({type.getNumElements()}, element));
  }
  auto arrayType = LLVM::LLVMArrayType::get(storage, type.getNumElements());
  std::string name = (baseName + "_cst" + Twine(globals++)).str();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name, data);
  }
  Value address = LLVM::AddressOfOp::create(b, loc, ptr, name);
  unsigned bits = storage.getIntOrFloatBitWidth();
  int64_t bytes = type.getNumElements() * std::max(1u, bits / 8);
  Value size = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes));
  lowering.callChecked(AMPRT_ENTRY(amprt_tensor_write), {t, address, size});
  return success();
}

void FunctionLowering::lowerUnscalesAndCheck(
    RuntimeLoweringBuilder &lowering, amp::AllFiniteOp check,
    ArrayRef<amp::UnscaleOp> unscales) {
  lowering.setLoc(check.getLoc());
  SmallVector<Value> grads, unscaled;
  for (amp::UnscaleOp unscale : unscales)
    grads.push_back(lowering.handle(unscale.getG()));
  for (amp::UnscaleOp unscale : unscales)
    unscaled.append(lowering.newResults(unscale));
  Value finite = lowering.newResults(check)[0];
  amp::UnscaleOp first = unscales.front();
  lowering.callChecked(AMPRT_ENTRY(amprt_unscale_all_finite),
                       {lowering.context(), lowering.ptrArray(grads),
                        lowering.constI32(grads.size()),
                        lowering.handle(first.getScale()),
                        lowering.ptrArray(unscaled), finite});
}

void FunctionLowering::lowerEpilogue(RuntimeLoweringBuilder &lowering,
                                     const amp::ProductEpilogue &e) {
  SmallVector<Location> locs = {e.product->getLoc()};
  if (e.biasAdd)
    locs.push_back(e.biasAdd.getLoc());
  if (e.activation)
    locs.push_back(e.activation->getLoc());
  lowering.setLoc(FusedLoc::get(b.getContext(), locs));
  Value ctx = lowering.context();
  Value y = lowering.newResults(e.anchor())[0];
  Value bias = e.biasAdd ? lowering.handle(e.biasAdd.getB()) : Value();
  auto matmul = dyn_cast<tg::MatmulOp>(e.product);
  auto conv = dyn_cast<tg::Conv2DOp>(e.product);
  if (!e.activation) {
    if (matmul) {
      lowering.callChecked(
          AMPRT_ENTRY(amprt_matmul_bias),
          {ctx, lowering.handle(matmul.getA()), lowering.handle(matmul.getB()),
           lowering.constI32(matmul.getTransposeA()),
           lowering.constI32(matmul.getTransposeB()), bias, y});
      return;
    }
    lowering.callChecked(
        AMPRT_ENTRY(amprt_conv2d_bias),
        {ctx, lowering.handle(conv.getX()), lowering.handle(conv.getW()), bias,
         lowering.i64Array(conv.getStrides()),
         lowering.i64Array(conv.getPadding()),
         lowering.i64Array(conv.getDilations()),
         lowering.constI32(amp::abi::layoutCode(conv.getLayout())), y});
    return;
  }
  if (!bias)
    bias = lowering.nullPointer();
  Value pre = e.keepsPre ? lowering.newResults(e.pre().getDefiningOp())[0]
                         : lowering.nullPointer();
  Value act = lowering.constI32(e.code), alpha = lowering.constF64(e.alpha);
  if (matmul) {
    lowering.callChecked(
        AMPRT_ENTRY(amprt_matmul_bias_act),
        {ctx, lowering.handle(matmul.getA()), lowering.handle(matmul.getB()),
         lowering.constI32(matmul.getTransposeA()),
         lowering.constI32(matmul.getTransposeB()), bias, act, alpha, pre, y});
    return;
  }
  lowering.callChecked(
      AMPRT_ENTRY(amprt_conv2d_bias_act),
      {ctx, lowering.handle(conv.getX()), lowering.handle(conv.getW()), bias,
       lowering.i64Array(conv.getStrides()),
       lowering.i64Array(conv.getPadding()),
       lowering.i64Array(conv.getDilations()),
       lowering.constI32(amp::abi::layoutCode(conv.getLayout())), act, alpha,
       pre, y});
}

void FunctionLowering::lowerChain(RuntimeLoweringBuilder &lowering,
                                  const amp::ElementwiseChain &chain) {
  SmallVector<Location> locs;
  for (Operation *step : chain.steps)
    locs.push_back(step->getLoc());
  lowering.setLoc(FusedLoc::get(b.getContext(), locs));
  llvm::DenseMap<Value, int64_t> index;
  SmallVector<Value> inputs;
  for (Value v : chain.inputs) {
    index[v] = inputs.size();
    inputs.push_back(lowering.handle(v));
  }
  SmallVector<int64_t> program;
  SmallVector<double> alphas;
  for (Operation *step : chain.steps) {
    double alpha = 0;
    amprt_chain_op code = *amp::chainOp(step, alpha);
    int64_t a = index.lookup(step->getOperand(0));
    int64_t b =
        step->getNumOperands() > 1 ? index.lookup(step->getOperand(1)) : a;
    program.append({code, a, b});
    alphas.push_back(alpha);
    index[step->getResult(0)] = chain.inputs.size() + alphas.size() - 1;
  }
  // Built in argument order, so the IR does not depend on the compiler's
  // order of evaluating call arguments.
  Value inputArray = lowering.ptrArray(inputs);
  Value numInputs = lowering.constI32(inputs.size());
  Value programArray = lowering.i64Array(program);
  Value alphaArray = lowering.f64Array(alphas);
  Value numSteps = lowering.constI32(alphas.size());
  Value y = lowering.resultOver(chain.steps.back()->getResult(0), chain.inputs);
  lowering.callChecked(AMPRT_ENTRY(amprt_elementwise_chain),
                       {lowering.context(), inputArray, numInputs, programArray,
                        alphaArray, numSteps, y});
}

LogicalResult FunctionLowering::lowerOp(RuntimeLoweringBuilder &lowering,
                                        Operation *op) {
  lowering.setLoc(op->getLoc());
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(lowering, constant);
  if (auto rule = dyn_cast<amp::RuntimeLoweringOpInterface>(op))
    return rule.lowerToRuntime(lowering);
  if (isa<tg::GradientsOp>(op))
    return op->emitError("amp-lower-to-runtime: 'tg.gradients' has no "
                         "runtime lowering: run --tg-autodiff first");
  return op->emitError() << "amp-lower-to-runtime: '" << op->getName()
                         << "' has no runtime lowering (attach "
                            "amp::RuntimeLoweringOpInterface to give it one; "
                            "ops with regions are not supported)";
}

LogicalResult FunctionLowering::run() {
  if (failed(checkTypes()))
    return failure();
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  returned.insert(ret.getOperands().begin(), ret.getOperands().end());
  plan.emplace(body, fusion);
  lifetimes.emplace(*plan);

  Block *entry = beginLoweredFunction();
  RuntimeLoweringBuilder lowering(module, b, entry->getArgument(0));
  lowering.setInPlaceElementwise(inPlace);
  loadArguments(lowering, entry->getArgument(1));
  unsigned here = 0;
  for (Operation &op : body) {
    if (&op == ret.getOperation())
      break;
    if (failed(lowerAtItsPlace(lowering, op, here++)))
      return failure();
  }
  storeResults(lowering, ret, entry->getArgument(2));
  func.erase();
  counts.foldedCasts = plan->numFoldedCasts();
  counts.fusedChecks = plan->numFusedChecks();
  counts.reshapeViews = plan->numReshapeViews();
  counts.fusedBiases = plan->numFusedBiases();
  counts.fusedActivations = plan->numFusedActivations();
  counts.chains = plan->numChains();
  counts.chainedOps = plan->numChainedOps();
  counts.inPlaceResults = lowering.numInPlaceResults();
  return success();
}

LogicalResult FunctionLowering::checkTypes() {
  if (!func.getBody().hasOneBlock())
    return func.emitError("amp-lower-to-runtime: functions must be one "
                          "block");
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
      return func.emitError("amp-lower-to-runtime: arguments and results "
                            "must be tensors of f32, f16, bf16, f64, i32, "
                            "i64 or i1, got ")
             << t;
    if (!tensor.hasStaticShape())
      return func.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
             << t << "; give the step concrete sizes";
  }
  for (Operation &op : func.getBody().front())
    for (Type t : op.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
        return op.emitError("amp-lower-to-runtime: results must be tensors "
                            "of a runtime element type, got ")
               << t;
      if (!tensor.hasStaticShape())
        return op.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
               << t;
    }
  return success();
}

Block *FunctionLowering::beginLoweredFunction() {
  // The new function, built beside the old one.
  b.setInsertionPoint(func);
  std::string name = func.getName().str();
  baseName = name;
  func.setName(name + "__amp_tensor_form");
  auto lowered = func::FuncOp::create(
      b, func.getLoc(), name, b.getFunctionType({ptr, ptr, ptr}, {i32}));
  Block *entry = lowered.addEntryBlock();
  b.setInsertionPointToStart(entry);
  return entry;
}

void FunctionLowering::loadArguments(RuntimeLoweringBuilder &lowering,
                                     Value args) {
  Location loc = func.getLoc();
  for (auto [i, arg] : llvm::enumerate(func.getBody().front().getArguments())) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    lowering.setHandle(arg, LLVM::LoadOp::create(b, loc, ptr, slot));
  }
}

LogicalResult
FunctionLowering::lowerAtItsPlace(RuntimeLoweringBuilder &lowering,
                                  Operation &op, unsigned here) {
  if (op.getNumResults() == 1 && plan->isFoldedCast(op.getResult(0))) {
    lowering.setHandle(op.getResult(0),
                       lowering.handle(plan->foldedInput(op.getResult(0))));
    return success();
  }
  if (plan->runsInsideAnother(&op))
    return success(); // runs with its check, its product's epilogue or chain
  // What this op (and the unscales or product it runs) uses for the last
  // time: freed after it.
  SmallVector<Value> reads = readsOf(op);
  llvm::SmallSetVector<Value, 8> dying;
  for (Value v :
       llvm::map_range(reads, [&](Value read) { return plan->storage(read); }))
    if (lifetimes->lastUse(v) == here && !isa<BlockArgument>(v) &&
        !returned.contains(v))
      dying.insert(v);
  lowering.setDying(dying.getArrayRef());
  if (failed(emitCall(lowering, op)))
    return failure();
  // A rule of another dialect may forget a result: say so here rather
  // than build a call on a null handle.
  for (Value r : op.getResults())
    if (!lowering.handle(r))
      return op.emitError() << "amp-lower-to-runtime: the runtime lowering of '"
                            << op.getName() << "' gave result #"
                            << cast<OpResult>(r).getResultNumber()
                            << " no tensor (a lowering must call newResults)";
  releaseAfter(lowering, op, reads, dying, here);
  return success();
}

SmallVector<Value> FunctionLowering::readsOf(Operation &op) const {
  // The results inside a fused epilogue are never made, but for an
  // activation's input that is read later (its `pre`).
  SmallVector<Value> reads;
  if (const amp::ProductEpilogue *epilogue = plan->epilogueAnchoredAt(&op)) {
    Operation *product = epilogue->product;
    reads.append(product->operand_begin(), product->operand_end());
    if (epilogue->biasAdd)
      reads.push_back(epilogue->biasAdd.getB());
  } else if (const amp::ElementwiseChain *chain = plan->chainRootedAt(&op)) {
    reads.append(chain->inputs);
  } else {
    reads.append(op.operand_begin(), op.operand_end());
  }
  if (const SmallVector<amp::UnscaleOp> *unscales = plan->unscalesRunBy(&op))
    for (amp::UnscaleOp unscale : *unscales)
      reads.append(unscale->operand_begin(), unscale->operand_end());
  return reads;
}

LogicalResult FunctionLowering::emitCall(RuntimeLoweringBuilder &lowering,
                                         Operation &op) {
  if (const SmallVector<amp::UnscaleOp> *unscales = plan->unscalesRunBy(&op)) {
    lowerUnscalesAndCheck(lowering, cast<amp::AllFiniteOp>(op), *unscales);
  } else if (const amp::ProductEpilogue *epilogue =
                 plan->epilogueAnchoredAt(&op)) {
    lowerEpilogue(lowering, *epilogue);
  } else if (const amp::ElementwiseChain *chain = plan->chainRootedAt(&op)) {
    lowerChain(lowering, *chain);
  } else if (op.getNumResults() == 1 && plan->isView(op.getResult(0))) {
    auto reshape = cast<tg::ReshapeOp>(op);
    auto type = cast<RankedTensorType>(reshape.getType());
    lowering.setLoc(op.getLoc());
    lowering.setHandle(
        reshape.getResult(),
        lowering.call(AMPRT_ENTRY(amprt_tensor_view),
                      {lowering.context(), lowering.handle(reshape.getX()),
                       lowering.constI32(type.getRank()),
                       lowering.i64Array(type.getShape())}));
  } else {
    return lowerOp(lowering, &op);
  }
  return success();
}

void FunctionLowering::releaseAfter(RuntimeLoweringBuilder &lowering,
                                    Operation &op, ArrayRef<Value> reads,
                                    llvm::SmallSetVector<Value, 8> &dying,
                                    unsigned here) {
  lowering.setLoc(op.getLoc());
  for (Value r : op.getResults())
    if (r.use_empty() && !returned.contains(r))
      dying.insert(r);
  for (Value v : dying)
    if (!lowering.tookStorageOf(v))
      lowering.call(AMPRT_ENTRY(amprt_tensor_release), {lowering.handle(v)});
  // Views read for the last time: only the view goes (an unused one went
  // with the unused results above).
  llvm::SmallSetVector<Value, 4> views;
  for (Value read : reads) {
    Value v = plan->sharedHandle(read);
    if (plan->isView(v) && lifetimes->lastDirectUse(v) == here)
      views.insert(v);
  }
  for (Value v : views)
    lowering.call(AMPRT_ENTRY(amprt_tensor_release), {lowering.handle(v)});
}

void FunctionLowering::storeResults(RuntimeLoweringBuilder &lowering,
                                    func::ReturnOp ret, Value results) {
  // A returned argument, or a value returned twice, gets a copy so every
  // result can be released.
  Location loc = ret.getLoc();
  lowering.setLoc(loc);
  Value ctx = lowering.context();
  llvm::DenseSet<Value> stored;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Value result = lowering.handle(v);
    if (isa<BlockArgument>(v) || !stored.insert(v).second) {
      Value copy = lowering.newTensor(v.getType());
      lowering.callChecked(AMPRT_ENTRY(amprt_reshape), {ctx, result, copy});
      result = copy;
    }
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, results,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, result, slot);
  }
  Value status = lowering.call(AMPRT_ENTRY(amprt_context_status), {ctx});
  func::ReturnOp::create(b, loc, status);
}

struct LowerToRuntimePass
    : amp::impl::LowerToRuntimePassBase<LowerToRuntimePass> {
  using LowerToRuntimePassBase::LowerToRuntimePassBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    LowerToRuntimePassBase::getDependentDialects(registry);
    amp::registerTGToRuntimeLowerings(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // One module is one JIT unit: nested modules are refused, not skipped.
    for (auto nested : module.getOps<ModuleOp>()) {
      nested.emitError("amp-lower-to-runtime: nested module")
          << (nested.getSymName() ? " @" + nested.getSymName()->str() : "")
          << ": lower each module on its own";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>()) {
      // The runtime's C API and its C wrappers own these names.
      StringRef name = func.getSymName();
      if (name.starts_with("amprt_") || name.starts_with("_mlir_ciface_")) {
        func.emitError("amp-lower-to-runtime: function @")
            << name
            << " takes a name the runtime's C API uses (amprt_*, "
               "_mlir_ciface_*): rename it";
        return signalPassFailure();
      }
      if (!func.isExternal())
        funcs.push_back(func);
    }
    for (func::FuncOp func : funcs) {
      amp::FusionOptions fusion;
      fusion.foldCastsIntoProducts = foldCastsIntoProducts;
      fusion.foldCastsIntoBiasGrads = foldCastsIntoBiasGrads;
      fusion.reshapeViews = reshapeViews;
      fusion.fuseBiasEpilogues = fuseBiasEpilogues;
      fusion.fuseActivationEpilogues = fuseActivationEpilogues;
      fusion.fuseElementwiseChains = fuseElementwiseChains;
      FunctionLowering lowering(module, func, fusion, inPlaceElementwise);
      if (failed(lowering.run()))
        return signalPassFailure();
      const LoweringCounts &counts = lowering.counts;
      numFoldedCasts += counts.foldedCasts;
      numFusedChecks += counts.fusedChecks;
      numInPlaceResults += counts.inPlaceResults;
      numReshapeViews += counts.reshapeViews;
      numFusedBiases += counts.fusedBiases;
      numFusedActivations += counts.fusedActivations;
      numChains += counts.chains;
      numChainedOps += counts.chainedOps;
    }
  }
};

} // namespace

void amp::buildLowerToLLVMPipeline(OpPassManager &pm) {
  // No options: nothing to parse, nothing to fail.
  (void)buildLowerToLLVMPipeline(pm, "",
                                 [](const Twine &) { return failure(); });
}

LogicalResult amp::buildLowerToLLVMPipeline(
    OpPassManager &pm, StringRef lowerToRuntimeOptions,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::unique_ptr<Pass> lower = createLowerToRuntimePass();
  if (failed(lower->initializeOptions(lowerToRuntimeOptions, errorHandler)))
    return failure();
  pm.addPass(std::move(lower));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}
