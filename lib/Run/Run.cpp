//===- Run.cpp - amp-run: compile a training step and train with it -------===//

#include "amp/Run/Run.h"
#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/InitAll.h"
#include "amp/Run/Compile.h"
#include "amp/Run/ValidationLoop.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace amp::run {
namespace {

/// The run's step as it is compiled, and what training or validating it
/// needs.
struct CompiledRun {
  OwningOpRef<ModuleOp> module;
  std::string evalName;
  /// --validate's probed f32 step and what it compiles to.
  ValidationSteps validation;
  /// Names the op behind a non-finite stop (a mixed run, not validating).
  std::unique_ptr<NonFiniteExplainer> explainer;
  ObjectContents contents;
  std::optional<train::TrainingStep> step;
  std::optional<runner::JitModule> jit;
  /// The compiled functions (looked up after lowering), the step's FP8
  /// histories and the class count of synthetic data.
  train::CompiledStep compiled;
  size_t deviceMemory = 0;

  func::FuncOp function(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }
};

/// Parses the input and runs its pipeline: first the copies --validate and
/// the non-finite explainer instrument are taken from the parsed module.
llvm::Error buildStep(const RunConfig &config, const train::Job &job,
                      MLIRContext &context, CompiledRun &run) {
  run.module = parseSourceFile<ModuleOp>(config.run.inputFile, &context);
  if (!run.module)
    return llvm::createStringError("cannot parse '" + config.run.inputFile +
                                   "'");
  auto evalName = evalFunctionOf(*run.module, config);
  if (!evalName)
    return evalName.takeError();
  run.evalName = *evalName;
  // Synthetic data takes its class count from the loss's logits.
  run.compiled.lossClasses =
      tg::lossClassCount(run.function(config.entry)).value_or(10);
  if (config.validating()) {
    auto probed = probedStep(*run.module, config, run.evalName);
    if (!probed)
      return probed.takeError();
    run.validation.f32Module = std::move(*probed);
  } else if (config.mixed()) {
    run.explainer = nonFiniteExplainer(*run.module, config);
  }
  PassManager pm(&context);
  buildStepPipeline(pm, config, trainedStep(config), job.parallel());
  if (failed(pm.run(*run.module)))
    return llvm::createStringError(
        "the amp pipeline failed (see the diagnostics above)");
  if (job.size() > 1 && !ranksAgree(*run.module, config))
    return llvm::createStringError(amprt_last_error());
  return llvm::Error::success();
}

/// Checks the compiled functions' signatures against the runtime and the
/// device, and binds the step by its tg.role attributes.
llvm::Error bindStep(const RunConfig &config, const train::Job &job,
                     CompiledRun &run) {
  amprt_memory_capacity(job.context(), &run.deviceMemory);
  for (StringRef name : {StringRef(config.entry), StringRef(run.evalName)})
    if (!name.empty())
      if (llvm::Error error =
              runner::checkSignature(run.function(name), run.deviceMemory))
        return error;
  func::FuncOp entry = run.function(config.entry);
  run.contents.train = runner::specOf(entry);
  if (!run.evalName.empty())
    run.contents.eval = runner::specOf(run.function(run.evalName));
  auto bound = train::TrainingStep::bind(run.contents.train);
  if (!bound)
    return runner::toError(bound.status());
  run.step.emplace(std::move(*bound));
  // fp8: the scales and their saturation, read before the step is lowered.
  run.compiled.fp8 = runner::fp8HistoriesOf(entry);
  run.contents.parallel = job.parallel();
  if (!config.validating())
    return llvm::Error::success();
  auto probes = readProbes(entry);
  if (!probes)
    return probes.takeError();
  run.validation.mixedProbes = std::move(*probes);
  return llvm::Error::success();
}

/// Lowers and JIT-compiles the step, writes --emit-obj's object, and looks
/// up the compiled functions (unless the run stops at --compile-only).
llvm::Error lowerStep(const RunConfig &config, CompiledRun &run) {
  auto jit = lowerAndCompile(*run.module, config);
  if (!jit)
    return jit.takeError();
  run.jit = std::move(*jit);
  if (!config.emitObj.empty())
    if (llvm::Error error =
            emitObject(*run.module, config, run.contents, run.compiled))
      return error;
  if (config.compileOnly)
    return llvm::Error::success();
  auto stepFn = run.jit->lookup(config.entry);
  if (!stepFn)
    return stepFn.takeError();
  run.compiled.train = *stepFn;
  if (!run.contents.eval)
    return llvm::Error::success();
  auto evalFn = run.jit->lookup(run.evalName);
  if (!evalFn)
    return evalFn.takeError();
  run.compiled.eval = train::EvalFunction{*run.contents.eval, *evalFn};
  return llvm::Error::success();
}

/// --validate: compiles the f32 step, runs both, and writes the findings.
llvm::Error validate(const RunConfig &config, train::Job &job,
                     MLIRContext &context, CompiledRun &run) {
  if (llvm::Error error =
          compileValidation(config, run.evalName, run.compiled.eval, *run.step,
                            run.deviceMemory, run.validation))
    return error;
  Validation validation(config.run.precision, config.tolerances);
  if (llvm::Error error = validateSteps(job, *run.step, run.compiled,
                                        run.validation, config, validation))
    return error;
  int64_t batch = run.step->inputType().shape[0];
  return writeValidation(validation, config, job, batch, context);
}

/// The run after the process group started.
int runInJob(const RunConfig &config, train::Job &job) {
  DialectRegistry registry;
  registerAllForJit(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto fail = [&](llvm::Error error) {
    return job.fatal(llvm::toString(std::move(error)));
  };
  CompiledRun run;
  if (llvm::Error error = buildStep(config, job, context, run))
    return fail(std::move(error));
  if (llvm::Error error = bindStep(config, job, run))
    return fail(std::move(error));
  if (llvm::Error error = lowerStep(config, run))
    return fail(std::move(error));
  if (config.compileOnly)
    return 0;
  if (config.validating()) {
    if (llvm::Error error = validate(config, job, context, run))
      return fail(std::move(error));
    return 0;
  }
  // A mixed run names the op behind a non-finite stop, each rank of a job
  // on its own batch, an accumulating step micro-batch by micro-batch.
  if (run.explainer)
    run.compiled.explainNonFinite = [&](train::TrainingStep &stopped, int64_t s,
                                        amprt_tensor *x, amprt_tensor *y) {
      return run.explainer->explain(stopped, job.context(), s, x, y);
    };
  return train::trainSteps(job, *run.step, run.compiled, config.run);
}

} // namespace

int compileAndRun(const RunConfig &config) {
  initializeJitTarget();
  // The process group (alone, or one rank of a launcher's job) and the
  // device.
  auto started = train::Job::start("amp-run", config.run);
  if (!started) {
    llvm::errs() << "amp-run: error: " << started.message() << "\n";
    amprt_comm_finalize(); // it may have joined before failing
    return 1;
  }
  train::Job job = std::move(*started);
  if (config.validating() && job.size() > 1)
    return job.fatal("--validate compares steps in one process: run it "
                     "without mpirun");
  int status = runInJob(config, job);
  // The group is left on every path that returns (training leaves it after
  // its report; a job's error ends every rank instead), so a host may run
  // again in the same process, and an MPI job that only compiled or
  // validated ends as MPI expects.
  if (amprt_comm_finalize() != AMPRT_OK && status == 0)
    return job.fatal(amprt_last_error());
  return status;
}

} // namespace amp::run
