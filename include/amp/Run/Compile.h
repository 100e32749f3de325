//===- Compile.h - A run's steps, built and compiled ------------*- C++ -*-===//
//
// What amp-run compiles, from its RunConfig: the step's pipeline (every
// step goes through buildAmpPipeline: the mixed step, the f32 step, and
// --validate's probed f32 step), the lowering with --lower-options and the
// JIT, --emit-obj's object and manifest, and the probed step that names the
// op behind a non-finite stop.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_COMPILE_H
#define AMP_RUN_COMPILE_H

#include "amp/Run/NonFinite.h"
#include "amp/Run/RunConfig.h"
#include "amp/Runner/StepRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amp::run {

/// Appends the pipeline of `step` to `pm`: the config's precision, loss
/// scaling, lists-file, accumulation and padding (the mixed step), data
/// parallelism when `parallel`. The probed step (and the mixed step under
/// --validate) returns its gradients' sums of squares; it probes the ops
/// of `probed` (every step function when empty) and is neither padded nor
/// accumulated (the explainer probes micro-batch by micro-batch).
void buildStepPipeline(mlir::OpPassManager &pm, const RunConfig &config,
                       PipelineStep step, bool parallel,
                       llvm::ArrayRef<std::string> probed = {});

/// The step amp-run trains: the mixed step, or the f32 step for
/// --precision=f32.
inline PipelineStep trainedStep(const RunConfig &config) {
  return config.mixed() ? PipelineStep::Mixed : PipelineStep::F32;
}

/// The function amp-run evaluates test accuracy with (--eval-entry, else
/// @predict when there is one, else none: empty), after checking that it
/// and --entry are functions of `module` with bodies.
llvm::Expected<std::string> evalFunctionOf(mlir::ModuleOp module,
                                           const RunConfig &config);

/// Lowers `module` with --lower-options to the LLVM dialect and JIT-compiles
/// it; `failure` says what failed when the lowering does.
llvm::Expected<runner::JitModule>
lowerAndCompile(mlir::ModuleOp module, const RunConfig &config,
                llvm::StringRef failure = "lowering to the runtime failed");

/// Every flag that shapes the compiled code, as text (the manifest's
/// "options", fingerprinted).
std::string compiledOptions(const RunConfig &config, bool parallel);

/// The signatures --emit-obj's manifest records, and whether the step was
/// compiled data-parallel.
struct ObjectContents {
  train::FunctionSpec train;
  std::optional<train::FunctionSpec> eval;
  bool parallel = false;
};

/// --emit-obj: `lowered` as an object file and its manifest (PATH.json),
/// with `step`'s FP8 histories and class count.
llvm::Error emitObject(mlir::ModuleOp lowered, const RunConfig &config,
                       const ObjectContents &contents,
                       const train::CompiledStep &step);

/// Whether every rank of the job compiled the same step with the flags that
/// shape the run (amprt_last_error says why not).
bool ranksAgree(mlir::ModuleOp compiled, const RunConfig &config);

/// What names the op behind a non-finite stop (NonFinite.h): the probed
/// step, made from a copy of `input` taken before the amp pipeline ran and
/// compiled only if a run stops.
std::unique_ptr<NonFiniteExplainer> nonFiniteExplainer(mlir::ModuleOp input,
                                                       const RunConfig &config);

} // namespace amp::run

#endif // AMP_RUN_COMPILE_H
