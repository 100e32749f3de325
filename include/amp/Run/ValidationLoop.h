//===- ValidationLoop.h - amp-run --validate, compiled and run --*- C++ -*-===//
//
// --validate runs the mixed step beside the probed f32 step on the same
// batches and state for N steps, hands each step's probes to Validation
// (Validation.h), and writes the report, the lists-file fix and the
// annotated program. The f32 step comes from the same input through
// buildStepPipeline(PipelineStep::Probed).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_VALIDATIONLOOP_H
#define AMP_RUN_VALIDATIONLOOP_H

#include "amp/Run/RunConfig.h"
#include "amp/Run/Validation.h"
#include "amp/Runner/StepRunner.h"
#include "amptrain/Trainer.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <vector>

namespace amp::run {

/// What --validate compiled beside the mixed step: the f32 step with
/// probes, its eval function when that is probed too, and the mixed step's
/// gradient probes.
struct ValidationSteps {
  mlir::OwningOpRef<mlir::ModuleOp> f32Module;
  std::optional<runner::JitModule> f32Jit;
  train::FunctionSpec f32Spec;
  runner::StepFn f32Step = nullptr;
  std::optional<train::EvalFunction> f32Eval;
  std::vector<ProbeInfo> f32Probes, f32EvalProbes, mixedProbes;
};

/// The probed f32 step of @--entry and @`evalName` (when not empty): a
/// copy of `module` as parsed, through the probed pipeline; an error after
/// the diagnostics when the pipeline fails.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
probedStep(mlir::ModuleOp module, const RunConfig &config,
           llvm::StringRef evalName);

/// Compiles `steps.f32Module` (probedStep's) and fills the rest of `steps`
/// from it. The eval function's ops are probed too (on the training
/// batch, with the step's params) when it takes a batch of the same shape
/// as `step`, so a fix covers the ops that compute the test accuracy.
llvm::Error compileValidation(const RunConfig &config, llvm::StringRef evalName,
                              const std::optional<train::EvalFunction> &eval,
                              const train::TrainingStep &step,
                              uint64_t deviceMemory, ValidationSteps &steps);

/// Runs config.validateSteps steps of the `mixed` step beside the f32 step,
/// from the run's start state and on its batches, into `validation`, and
/// finishes it.
llvm::Error validateSteps(train::Job &job, train::TrainingStep &step,
                          const train::CompiledStep &mixed,
                          const ValidationSteps &steps, const RunConfig &config,
                          Validation &validation);

/// Prints `validation` and writes what the config asks: the report
/// (--report), the lists-file fix (--validate-fix), and the input program
/// with amp.precision = "f32" on the failing ops (--validate-annotate).
llvm::Error writeValidation(const Validation &validation,
                            const RunConfig &config, const train::Job &job,
                            int64_t batch, mlir::MLIRContext &context);

} // namespace amp::run

#endif // AMP_RUN_VALIDATIONLOOP_H
