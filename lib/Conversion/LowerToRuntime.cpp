//===- LowerToRuntime.cpp - tg/amp ops to amprt C API calls ---------------===//
//
// Straight-line training steps become straight-line runtime calls: each op
// allocates its results (amprt_tensor_new), calls its amprt_ entry, and
// records the status on the context, which keeps the first failure; the
// step returns it at the end. Intermediates are released after their last
// use, so peak memory follows the live set, not the whole graph.
//
//===----------------------------------------------------------------------===//

#include "BufferLifetimes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeFusion.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
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

/// The fused ops of one function, for the pass's statistics.
struct FusedOpCounts {
  unsigned castsOnRead = 0, checks = 0, views = 0, biases = 0,
           activations = 0, chains = 0, chainedOps = 0;

  explicit FusedOpCounts(Block &body) {
    for (Operation &op : body) {
      castsOnRead += isa<amp::rt::CastOnReadOp>(op);
      checks += isa<amp::rt::UnscaleAllFiniteOp>(op);
      views += isa<amp::rt::ViewOp>(op);
      if (auto epilogue = dyn_cast<amp::rt::ProductEpilogueOp>(op)) {
        biases += epilogue.getBiasAdd() != nullptr;
        activations += epilogue.getActivation() != nullptr;
      }
      if (auto chain = dyn_cast<amp::rt::ElementwiseChainOp>(op)) {
        ++chains;
        chainedOps += chain.getBody().front().getOperations().size() - 1;
      }
    }
  }
};

/// Lowers one single-block function: checks its types, makes its fusions
/// (amp::fuseForRuntime), then builds the runtime-call function beside it,
/// op after op, releasing each tensor after its last use.
class FunctionLowering {
public:
  FunctionLowering(ModuleOp module, func::FuncOp func,
                   const amp::RuntimeFusionOptions &fusion, bool inPlace)
      : module(module), func(func), fusion(fusion), inPlace(inPlace),
        b(func.getContext()),
        ptr(LLVM::LLVMPointerType::get(func.getContext())),
        i32(b.getI32Type()) {}

  LogicalResult run();
  std::optional<FusedOpCounts> fused;
  unsigned numInPlaceResults = 0;

private:
  LogicalResult checkTypes();
  /// A step may not hand its caller a view (the caller owns its results).
  LogicalResult checkReturnedValues(func::ReturnOp ret);
  /// The runtime-call function (context, arguments, results) beside the
  /// tensor form, which takes a new name; returns its entry block.
  Block *beginLoweredFunction();
  /// Each argument's handle, loaded from the arguments array.
  void loadArguments(RuntimeLoweringBuilder &lowering, Value args);
  /// Lowers the op at position `here` (a cast on read takes its input's
  /// handle) and releases what it read for the last time.
  LogicalResult lowerAtItsPlace(RuntimeLoweringBuilder &lowering, Operation &op,
                                unsigned here);
  void releaseAfter(RuntimeLoweringBuilder &lowering, Operation &op,
                    llvm::SmallSetVector<Value, 8> &dying, unsigned here);
  /// Results: new handles owned by the caller.
  void storeResults(RuntimeLoweringBuilder &lowering, func::ReturnOp ret,
                    Value results);
  /// Lowers `op` by its RuntimeLoweringOpInterface (constants here).
  LogicalResult lowerOp(RuntimeLoweringBuilder &lowering, Operation *op);
  LogicalResult lowerConstant(RuntimeLoweringBuilder &lowering,
                              arith::ConstantOp op);

  ModuleOp module;
  func::FuncOp func;
  amp::RuntimeFusionOptions fusion;
  bool inPlace;
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
  amp::fuseForRuntime(func, fusion);
  Block &body = func.getBody().front();
  fused.emplace(body);
  lifetimes.emplace(func);
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (failed(checkReturnedValues(ret)))
    return failure();
  returned.insert(ret.getOperands().begin(), ret.getOperands().end());

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
  numInPlaceResults = lowering.numInPlaceResults();
  return success();
}

LogicalResult FunctionLowering::checkReturnedValues(func::ReturnOp ret) {
  for (Value v : ret.getOperands())
    if (lifetimes->isView(v))
      return ret.emitError("amp-lower-to-runtime: a step may not return an "
                           "amprt.view (its caller owns what it returns): "
                           "return a tg.reshape");
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
  if (auto cast = dyn_cast<amp::rt::CastOnReadOp>(op)) {
    lowering.setHandle(cast.getY(), lowering.handle(cast.getX()));
    return success();
  }
  // What this op's call reads for the last time: freed after it.
  llvm::SmallSetVector<Value, 8> dying;
  for (Value read : op.getOperands()) {
    Value v = lifetimes->storage(read);
    if (lifetimes->lastUse(v) == here && !isa<BlockArgument>(v) &&
        !returned.contains(v))
      dying.insert(v);
  }
  lowering.setDying(dying.getArrayRef());
  if (failed(lowerOp(lowering, &op)))
    return failure();
  // A rule of another dialect may forget a result: say so here rather
  // than build a call on a null handle.
  for (Value r : op.getResults())
    if (!lowering.handle(r))
      return op.emitError() << "amp-lower-to-runtime: the runtime lowering of '"
                            << op.getName() << "' gave result #"
                            << cast<OpResult>(r).getResultNumber()
                            << " no tensor (a lowering must call newResults)";
  releaseAfter(lowering, op, dying, here);
  return success();
}

void FunctionLowering::releaseAfter(RuntimeLoweringBuilder &lowering,
                                    Operation &op,
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
  for (Value read : op.getOperands()) {
    Value v = lifetimes->sharedHandle(read);
    if (lifetimes->isView(v) && lifetimes->lastDirectUse(v) == here)
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
    : amp::WithRuntimeFusionOptions<
          amp::impl::LowerToRuntimePassBase<LowerToRuntimePass>> {
  using WithRuntimeFusionOptions::WithRuntimeFusionOptions;
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
      FunctionLowering lowering(module, func, fusionOptions(),
                                inPlaceElementwise);
      if (failed(lowering.run()))
        return signalPassFailure();
      numInPlaceResults += lowering.numInPlaceResults;
      const FusedOpCounts &fused = *lowering.fused;
      numFoldedCasts += fused.castsOnRead;
      numFusedChecks += fused.checks;
      numReshapeViews += fused.views;
      numFusedBiases += fused.biases;
      numFusedActivations += fused.activations;
      numChains += fused.chains;
      numChainedOps += fused.chainedOps;
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
