//===- RuntimeCallPatterns.cpp - Steps as runtime calls, by pattern -------===//

#include "RuntimeCallPatterns.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace amp;

RuntimeTypeConverter::RuntimeTypeConverter(MLIRContext *context) {
  addConversion([](Type type) { return type; });
  addConversion([context](RankedTensorType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
}

void StepPlans::plan(func::FuncOp func) {
  Block &body = func.getBody().front();
  StepPlan &step = steps[func.getName()];
  step.releases = planReleases(func, body.getTerminator()->getOperands());
  llvm::DenseSet<Value> returned;
  for (Value v : body.getTerminator()->getOperands())
    step.copied.push_back(isa<BlockArgument>(v) || !returned.insert(v).second);
}

StepPlan *StepPlans::of(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto found = func ? steps.find(func.getName()) : steps.end();
  return found == steps.end() ? nullptr : &found->second;
}

const OpReleases *StepPlans::releasesOf(Operation *op) {
  StepPlan *step = of(op);
  if (!step)
    return nullptr;
  auto found = step->releases.find(op);
  return found == step->releases.end() ? nullptr : &found->second;
}

namespace {

Type pointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context);
}

/// `tensor-form @step(tensors) -> tensors` becomes
/// `i32 @step(ctx, args, results)`: its body moves into the new function,
/// its arguments loaded from the arguments array.
struct StepFunctionLowering : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = func.getLoc();
    Type ptr = pointerType(getContext());
    rewriter.setInsertionPoint(func);
    auto lowered = func::FuncOp::create(
        rewriter, loc, func.getName(),
        rewriter.getFunctionType({ptr, ptr, ptr}, {rewriter.getI32Type()}));
    Block *entry = rewriter.createBlock(&lowered.getBody(), {}, {ptr, ptr, ptr},
                                        {loc, loc, loc});
    Block &body = func.getBody().front();
    SmallVector<Value> handles;
    for (unsigned i = 0; i < body.getNumArguments(); ++i) {
      Value slot =
          LLVM::GEPOp::create(rewriter, loc, ptr, ptr, entry->getArgument(1),
                              ArrayRef<LLVM::GEPArg>{(int32_t)i});
      handles.push_back(LLVM::LoadOp::create(rewriter, loc, ptr, slot));
    }
    rewriter.inlineBlockBefore(&body, entry, entry->end(), handles);
    rewriter.eraseOp(func);
    return success();
  }
};

/// The step's return: each result stored in the results array (a copy
/// where the plan says the caller needs one), then the context's status.
struct StepReturnLowering : OpConversionPattern<func::ReturnOp> {
  StepReturnLowering(const TypeConverter &converter, MLIRContext *context,
                     StepPlans &plans)
      : OpConversionPattern(converter, context), plans(plans) {}
  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto func = ret->getParentOfType<func::FuncOp>();
    const StepPlan *step = plans.of(ret);
    if (!step)
      return failure();
    Location loc = ret.getLoc();
    Type ptr = pointerType(getContext());
    RuntimeLoweringBuilder lowering(func->getParentOfType<ModuleOp>(), rewriter,
                                    func.getArgument(0));
    lowering.setLoc(loc);
    for (auto [i, result] : llvm::enumerate(adaptor.getOperands())) {
      if (step->copied[i]) {
        Value copy = lowering.newTensor(ret.getOperand(i).getType());
        lowering.callChecked(AMPRT_ENTRY(amprt_reshape),
                             {lowering.context(), result, copy});
        result = copy;
      }
      Value slot =
          LLVM::GEPOp::create(rewriter, loc, ptr, ptr, func.getArgument(2),
                              ArrayRef<LLVM::GEPArg>{(int32_t)i});
      LLVM::StoreOp::create(rewriter, loc, result, slot);
    }
    Value status =
        lowering.call(AMPRT_ENTRY(amprt_context_status), {lowering.context()});
    rewriter.replaceOpWithNewOp<func::ReturnOp>(ret, status);
    return success();
  }
  StepPlans &plans;
};

/// A cast on read is its input's tensor: its readers convert as they read.
struct CastOnReadLowering : OpConversionPattern<rt::CastOnReadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(rt::CastOnReadOp cast, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(cast, adaptor.getX());
    return success();
  }
};

/// What converting one op takes besides its rule: the handles of what it
/// reads, what dies there, the calls that free it after, and the op's
/// replacement by its results' handles.
class OpLowering {
public:
  /// For an op of a planned step (`planned`: its releases).
  OpLowering(Operation *op, const OpReleases &planned, ArrayRef<Value> operands,
             ConversionPatternRewriter &rewriter, StepPlans &plans)
      : op(op), rewriter(rewriter), plans(plans), releases(planned),
        lowering(op->getParentOfType<ModuleOp>(), rewriter,
                 op->getParentOfType<func::FuncOp>().getArgument(0)),
        errorsBefore(plans.errors) {
    lowering.setInPlaceElementwise(plans.inPlace);
    lowering.setLoc(op->getLoc());
    for (auto [value, handle] : llvm::zip(op->getOperands(), operands))
      lowering.setHandle(value, handle);
    lowering.setDying(releases.dying);
  }

  RuntimeLoweringBuilder &builder() { return lowering; }

  /// After the rule: the op's results' handles replace it, and what it
  /// read or made for the last time is freed.
  LogicalResult finish() {
    SmallVector<Value> results;
    for (Value r : op->getResults()) {
      Value handle = lowering.handle(r);
      if (!handle)
        return fail(op->emitError()
                    << "amp-lower-to-runtime: the runtime lowering of '"
                    << op->getName() << "' gave result #"
                    << cast<OpResult>(r).getResultNumber()
                    << " no tensor (a lowering must call newResults)");
      results.push_back(handle);
    }
    lowering.setLoc(op->getLoc());
    for (Value v : llvm::concat<const Value>(releases.dying, releases.unread))
      if (!lowering.tookStorageOf(v))
        release(v);
    for (Value v : releases.views)
      release(v);
    plans.inPlaceResults += lowering.numInPlaceResults();
    rewriter.replaceOp(op, results);
    return success();
  }

  /// Failure, after an error the pattern emitted itself.
  LogicalResult fail(InFlightDiagnostic &&error) {
    error.report();
    plans.reported = true;
    return failure();
  }
  /// Failure of the op's rule: reported when the rule said why (a rule
  /// that fails silently leaves the driver's message to say it).
  LogicalResult fail(LogicalResult ruleResult) {
    plans.reported |= plans.errors > errorsBefore;
    return ruleResult;
  }

private:
  /// A value the op read or made: its handle in the builder, or the one
  /// an earlier op's conversion gave it (a storage read through a view or
  /// a cast on read).
  void release(Value v) {
    Value handle = lowering.handle(v);
    if (!handle)
      handle = rewriter.getRemappedValue(v);
    lowering.call(AMPRT_ENTRY(amprt_tensor_release), {handle});
  }

  Operation *op;
  ConversionPatternRewriter &rewriter;
  StepPlans &plans;
  const OpReleases &releases;
  RuntimeLoweringBuilder lowering;
  unsigned errorsBefore;
};

/// The planned releases of `op`, or an error: an op no plan saw (a tensor
/// op a rule made) has no place in the step's lifetimes.
const OpReleases *plannedReleases(Operation *op, StepPlans &plans) {
  if (const OpReleases *releases = plans.releasesOf(op))
    return releases;
  op->emitError() << "amp-lower-to-runtime: '" << op->getName()
                  << "' is not an op of the step as planned (a runtime "
                     "lowering may call the runtime, not make tensor ops)";
  plans.reported = true;
  return nullptr;
}

/// An op with a RuntimeLoweringOpInterface: its rule's calls.
struct RuntimeOpLowering
    : OpInterfaceConversionPattern<RuntimeLoweringOpInterface> {
  RuntimeOpLowering(const TypeConverter &converter, MLIRContext *context,
                    StepPlans &plans)
      : OpInterfaceConversionPattern(converter, context), plans(plans) {}
  LogicalResult
  matchAndRewrite(RuntimeLoweringOpInterface rule, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // Constants are the pass's own (TensorConstantLowering).
    if (isa<arith::ConstantOp>(rule))
      return failure();
    const OpReleases *releases = plannedReleases(rule, plans);
    if (!releases)
      return failure();
    OpLowering lowering(rule, *releases, operands, rewriter, plans);
    if (failed(rule.lowerToRuntime(lowering.builder())))
      return lowering.fail(failure());
    return lowering.finish();
  }
  StepPlans &plans;
};

/// A dense tensor constant: a splat fills a new tensor; other data lives
/// in an LLVM global that amprt_tensor_write copies in (i1 elements one
/// byte each, as the runtime stores them).
struct TensorConstantLowering : OpConversionPattern<arith::ConstantOp> {
  TensorConstantLowering(const TypeConverter &converter, MLIRContext *context,
                         StepPlans &plans)
      : OpConversionPattern(converter, context), plans(plans) {}
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const OpReleases *releases = plannedReleases(op, plans);
    if (!releases)
      return failure();
    OpLowering lowering(op, *releases, {}, rewriter, plans);
    // The pass refused other constants before conversion (checkLowerable).
    auto dense = cast<DenseElementsAttr>(op.getValue());
    auto type = cast<RankedTensorType>(op.getType());
    RuntimeLoweringBuilder &rt = lowering.builder();
    Value t = rt.newTensor(type);
    rt.setHandle(op.getResult(), t);
    if (dense.isSplat())
      rt.callChecked(AMPRT_ENTRY(amprt_tensor_fill),
                     {t, rt.constF64(splatValue(dense))});
    else
      write(rt, op, dense, t);
    return lowering.finish();
  }

private:
  static double splatValue(DenseElementsAttr dense) {
    if (isa<FloatType>(dense.getElementType()))
      return dense.getSplatValue<APFloat>().convertToDouble();
    return (double)dense.getSplatValue<APInt>().getSExtValue();
  }

  /// Copies `dense` into `t` from a new internal global.
  void write(RuntimeLoweringBuilder &rt, arith::ConstantOp op,
             DenseElementsAttr dense, Value t) const {
    OpBuilder &b = rt.builder();
    Location loc = rt.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    Type storage = element.isInteger(1) ? b.getI8Type() : element;
    DenseElementsAttr data;
    if (element.isInteger(1)) {
      SmallVector<int8_t> bytes;
      for (bool v : dense.getValues<bool>())
        bytes.push_back(v);
      data = DenseElementsAttr::get(
          RankedTensorType::get({(int64_t)bytes.size()}, storage),
          ArrayRef<int8_t>(bytes));
    } else {
      data = dense.reshape(
          RankedTensorType::get({type.getNumElements()}, element));
    }
    auto module = op->getParentOfType<ModuleOp>();
    StringRef step = op->getParentOfType<func::FuncOp>().getName();
    std::string name = (step + "_cst" + Twine(plans.of(op)->globals++)).str();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(
          b, loc, LLVM::LLVMArrayType::get(storage, type.getNumElements()),
          /*isConstant=*/true, LLVM::Linkage::Internal, name, data);
    }
    Value address =
        LLVM::AddressOfOp::create(b, loc, pointerType(b.getContext()), name);
    unsigned bits = storage.getIntOrFloatBitWidth();
    int64_t bytes = type.getNumElements() * std::max(1u, bits / 8);
    Value size = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes));
    rt.callChecked(AMPRT_ENTRY(amprt_tensor_write), {t, address, size});
  }

  StepPlans &plans;
};

bool hasTensorType(Operation *op) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

} // namespace

void amp::populateRuntimeCallPatterns(RuntimeTypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      StepPlans &plans) {
  MLIRContext *context = patterns.getContext();
  patterns.add<StepFunctionLowering, CastOnReadLowering>(converter, context);
  patterns.add<StepReturnLowering, RuntimeOpLowering, TensorConstantLowering>(
      converter, context, plans);
}

ConversionTarget amp::runtimeCallTarget(MLIRContext &context) {
  ConversionTarget target(context);
  Type ptr = pointerType(&context);
  // A step function is lowered once it is `i32 (ptr, ptr, ptr)`; its return
  // once it returns the status.
  target.addDynamicallyLegalOp<func::FuncOp>([ptr](func::FuncOp func) {
    FunctionType type = func.getFunctionType();
    return func.isExternal() ||
           (type.getInputs() == ArrayRef<Type>{ptr, ptr, ptr} &&
            type.getNumResults() == 1 && type.getResult(0).isInteger(32));
  });
  target.addDynamicallyLegalOp<func::ReturnOp>([](func::ReturnOp ret) {
    return ret.getNumOperands() == 1 &&
           ret.getOperand(0).getType().isInteger(32);
  });
  // Everything else is legal once no tensor is left: ops in a fused op's
  // region are lowered by that op's rule, with it.
  target.markUnknownOpDynamicallyLegal([](Operation *op) {
    if (isa_and_nonnull<rt::ProductEpilogueOp, rt::ElementwiseChainOp>(
            op->getParentOp()))
      return true;
    return !isa<RuntimeLoweringOpInterface>(op) && !hasTensorType(op);
  });
  return target;
}
