//===- LowerToRuntime.cpp - tg/amp ops to amprt C API calls ---------------===//
//
// Straight-line training steps become straight-line runtime calls: each op
// allocates its results (amprt_tensor_new), calls its amprt_ entry, and
// records the status on the context, which keeps the first failure; the
// step returns it at the end. Intermediates are released after their last
// use, so peak memory follows the live set, not the whole graph.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallPatterns.h"
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

namespace amp {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp

using namespace mlir;
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

/// Whether every tensor of `func` can be a runtime tensor: one block,
/// arguments, results and op results ranked, statically shaped and of a
/// runtime element type.
LogicalResult checkTypes(func::FuncOp func) {
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

/// Whether every op of the fused step has a lowering, and it returns no
/// view (the caller owns what a step returns).
LogicalResult checkLowerable(func::FuncOp func) {
  Block &body = func.getBody().front();
  for (Value v : body.getTerminator()->getOperands())
    if (v.getDefiningOp<amp::rt::ViewOp>())
      return body.getTerminator()->emitError(
          "amp-lower-to-runtime: a step may not return an amprt.view (its "
          "caller owns what it returns): return a tg.reshape");
  for (Operation &op : body.without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (!isa<DenseElementsAttr>(constant.getValue()))
        return op.emitError("amp-lower-to-runtime: only dense tensor "
                            "constants lower to the runtime");
      continue;
    }
    if (isa<amp::rt::CastOnReadOp, amp::RuntimeLoweringOpInterface>(op))
      continue;
    if (isa<tg::GradientsOp>(op))
      return op.emitError("amp-lower-to-runtime: 'tg.gradients' has no "
                          "runtime lowering: run --tg-autodiff first");
    return op.emitError() << "amp-lower-to-runtime: '" << op.getName()
                          << "' has no runtime lowering (attach "
                             "amp::RuntimeLoweringOpInterface to give it "
                             "one; ops with regions are not supported)";
  }
  return success();
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
    if (failed(amp::checkFusionOptions(module.getLoc(), "amp-lower-to-runtime",
                                       fusionOptions())))
      return signalPassFailure();
    // One module is one JIT unit: nested modules are refused, not skipped.
    for (auto nested : module.getOps<ModuleOp>()) {
      nested.emitError("amp-lower-to-runtime: nested module")
          << (nested.getSymName() ? " @" + nested.getSymName()->str() : "")
          << ": lower each module on its own";
      return signalPassFailure();
    }
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
    }
    amp::StepPlans plans;
    plans.inPlace = inPlaceElementwise;
    SmallVector<Operation *> steps;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(prepareStep(func, plans)))
        return signalPassFailure();
      steps.push_back(func);
    }
    if (failed(convertSteps(steps, plans)))
      return signalPassFailure();
    numInPlaceResults += plans.inPlaceResults;
  }

private:
  /// Checks `func`, makes its fusions (amp::fuseForRuntime), counts them
  /// and plans its conversion.
  LogicalResult prepareStep(func::FuncOp func, amp::StepPlans &plans) {
    if (failed(checkTypes(func)))
      return failure();
    amp::fuseForRuntime(func, fusionOptions());
    if (failed(checkLowerable(func)))
      return failure();
    FusedOpCounts fused(func.getBody().front());
    numFoldedCasts += fused.castsOnRead;
    numFusedChecks += fused.checks;
    numReshapeViews += fused.views;
    numFusedBiases += fused.biases;
    numFusedActivations += fused.activations;
    numChains += fused.chains;
    numChainedOps += fused.chainedOps;
    plans.plan(func);
    return success();
  }

  /// The planned steps (and nothing else of the module) as runtime calls
  /// (RuntimeCallPatterns.h). A rule that fails and says why needs no
  /// "failed to legalize" from the driver after it.
  LogicalResult convertSteps(ArrayRef<Operation *> steps,
                             amp::StepPlans &plans) {
    MLIRContext *context = &getContext();
    amp::RuntimeTypeConverter converter(context);
    RewritePatternSet patterns(context);
    amp::populateRuntimeCallPatterns(converter, patterns, plans);
    ConversionTarget target = amp::runtimeCallTarget(*context);
    ScopedDiagnosticHandler repeated(context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      bool repeats =
          plans.reported &&
          StringRef(diagnostic.str()).starts_with("failed to legalize");
      plans.errors += !repeats;
      return success(repeats);
    });
    // No folding: the fusions and releases were planned on these ops as
    // they are (a neg of a neg folded away would leave its input's
    // planned release behind).
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    return applyPartialConversion(steps, target, std::move(patterns), config);
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
