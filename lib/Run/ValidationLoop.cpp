//===- ValidationLoop.cpp - amp-run --validate, compiled and run ----------===//

#include "amp/Run/ValidationLoop.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Run/Compile.h"
#include "amp/Run/NonFinite.h"
#include "amptrain/Json.h"
#include "amptrain/Tensors.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <random>

using namespace mlir;

namespace amp::run {

llvm::Expected<OwningOpRef<ModuleOp>>
probedStep(ModuleOp module, const RunConfig &config, StringRef evalName) {
  OwningOpRef<ModuleOp> f32Module = module.clone();
  PassManager pipeline(module.getContext());
  std::vector<std::string> probed = {config.entry};
  if (!evalName.empty())
    probed.push_back(evalName.str());
  buildStepPipeline(pipeline, config, PipelineStep::Probed,
                    /*parallel=*/false, probed);
  if (failed(pipeline.run(*f32Module)))
    return llvm::createStringError("instrumenting the f32 step for --validate "
                                   "failed (see the diagnostics above)");
  return f32Module;
}

/// The eval function's probes, numbered after the step's, and its spec,
/// when it is probed on the training batch (see compileValidation).
static llvm::Error probeEval(func::FuncOp f32Eval,
                             const train::EvalFunction &mixed,
                             const train::TrainingStep &step,
                             ValidationSteps &steps,
                             std::optional<train::FunctionSpec> &spec) {
  const train::FunctionSpec &signature = mixed.signature;
  int input = signature.lastArgWithRole(train::Role::Input);
  if (input < 0 || signature.args[input].type != step.inputType() ||
      signature.args.size() != step.params().size() + 1)
    return llvm::Error::success();
  auto evalProbes = readProbes(f32Eval);
  if (!evalProbes)
    return evalProbes.takeError();
  int64_t firstId = 0;
  for (const ProbeInfo &p : steps.f32Probes)
    firstId = std::max(firstId, p.id + 1);
  for (ProbeInfo &p : *evalProbes)
    p.id += firstId;
  steps.f32EvalProbes = std::move(*evalProbes);
  spec = runner::specOf(f32Eval);
  return llvm::Error::success();
}

llvm::Error compileValidation(const RunConfig &config, StringRef evalName,
                              const std::optional<train::EvalFunction> &eval,
                              const train::TrainingStep &step,
                              uint64_t deviceMemory, ValidationSteps &steps) {
  ModuleOp f32Module = *steps.f32Module;
  auto f32Entry = f32Module.lookupSymbol<func::FuncOp>(config.entry);
  if (llvm::Error error = runner::checkSignature(f32Entry, deviceMemory))
    return error;
  steps.f32Spec = runner::specOf(f32Entry);
  auto probes = readProbes(f32Entry);
  if (!probes)
    return probes.takeError();
  steps.f32Probes = std::move(*probes);
  std::optional<train::FunctionSpec> f32EvalSpec;
  auto f32Eval = f32Module.lookupSymbol<func::FuncOp>(evalName);
  if (eval)
    if (llvm::Error error = probeEval(f32Eval, *eval, step, steps, f32EvalSpec))
      return error;
  auto compiled = lowerAndCompile(
      f32Module, config, "lowering the f32 step for --validate failed");
  if (!compiled)
    return compiled.takeError();
  steps.f32Jit = std::move(*compiled);
  auto found = steps.f32Jit->lookup(config.entry);
  if (!found)
    return found.takeError();
  steps.f32Step = *found;
  if (f32EvalSpec && !steps.f32EvalProbes.empty()) {
    auto evalFn = steps.f32Jit->lookup(evalName);
    if (!evalFn)
      return evalFn.takeError();
    steps.f32Eval = train::EvalFunction{*f32EvalSpec, *evalFn};
  }
  return llvm::Error::success();
}

namespace {

llvm::Error failure(const std::string &message) {
  return llvm::createStringError(message);
}
llvm::Error failure(const train::Status &status) {
  return llvm::createStringError(status.message());
}

/// The f32 step (and its probed eval function) on one batch: its loss and
/// every probe's numbers, into `measured`.
llvm::Expected<float> runF32(train::Job &job, train::TrainingStep &step,
                             const ValidationSteps &steps, amprt_tensor *x,
                             amprt_tensor *y, int64_t s,
                             ProbeValues &measured) {
  auto results =
      step.runAside(steps.f32Step, steps.f32Spec, job.context(), x, y);
  if (!results)
    return failure("the f32 step of --validate failed at step " +
                   std::to_string(s) + ": " + results.message());
  int lossResult = steps.f32Spec.lastResultWithRole(train::Role::Loss);
  auto loss = train::readScalar((*results)[lossResult].get());
  if (!loss)
    return failure(loss.status());
  if (!readProbeValues(steps.f32Probes, *results, measured))
    return failure(train::runtimeError("reading a probe"));
  if (!steps.f32Eval)
    return *loss;
  auto evalResults =
      train::runEval(job.context(), *steps.f32Eval, step.params(), x, y);
  if (!evalResults)
    return failure("the f32 @" + steps.f32Eval->signature.name +
                   " of --validate failed: " + evalResults.message());
  if (!readProbeValues(steps.f32EvalProbes, *evalResults, measured))
    return failure(train::runtimeError("reading a probe"));
  return *loss;
}

/// The mixed step's gradient probes among its `outcome`'s outputs.
llvm::Error readGradients(const train::TrainingStep::Outcome &outcome,
                          const ValidationSteps &steps,
                          std::vector<std::pair<ProbeInfo, float>> &gradients) {
  for (const ProbeInfo &probe : steps.mixedProbes)
    for (auto &[number, tensor] : outcome.outputs)
      if (number == probe.resultNumber) {
        auto value = train::readScalar(tensor.get());
        if (!value)
          return failure(value.status());
        gradients.push_back({probe, *value});
      }
  return llvm::Error::success();
}

} // namespace

llvm::Error validateSteps(train::Job &job, train::TrainingStep &step,
                          const train::CompiledStep &mixed,
                          const ValidationSteps &steps, const RunConfig &config,
                          Validation &validation) {
  const train::RunOptions &options = config.run;
  std::mt19937 rng(options.seed);
  if (train::Status bad = train::checkBatch(step, options))
    return failure(bad);
  if (train::Status bad = train::startState(job, step, options, rng))
    return failure(bad);
  auto data = train::prepareData(job, step, options, mixed.lossClasses, rng);
  if (!data)
    return failure(data.status());
  train::BatchSource &batches = *data->batches;
  if (auto total = train::totalSteps(options, batches.perEpoch()); !total)
    return failure(total.status());
  for (int64_t s = 0; s < *config.validateSteps; ++s) {
    auto batch = batches.next(s);
    if (!batch)
      return failure(batch.status());
    auto &[x, y] = *batch;
    ProbeValues measured;
    auto f32Loss = runF32(job, step, steps, x.get(), y.get(), s, measured);
    if (!f32Loss)
      return f32Loss.takeError();
    auto outcome =
        step.run(mixed.train, job.context(), std::move(x), std::move(y));
    if (!outcome)
      return failure("step " + std::to_string(s) +
                     " failed: " + outcome.message());
    std::vector<std::pair<ProbeInfo, float>> mixedGradients;
    if (llvm::Error error = readGradients(*outcome, steps, mixedGradients))
      return error;
    validation.addStep(measured, mixedGradients, *f32Loss, outcome->loss,
                       outcome->skipped || !outcome->committed);
  }
  validation.finish();
  return llvm::Error::success();
}

namespace {

/// Writes `value` as indented JSON to `path` (named by `flag` in errors).
llvm::Error writeJSON(StringRef path, StringRef flag, llvm::json::Value value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::formatv("{0:2}", value);
  auto parsed = train::json::parse(text);
  if (!parsed)
    return llvm::createStringError("cannot write " + flag + " '" + path +
                                   "': the report is not JSON");
  return runner::toError(train::writeJson(path.str(), flag.str(), *parsed));
}

/// The input program again, with amp.precision = "f32" on every op at one
/// of `locations` (a failing op, or the forward op a failing backward op
/// was differentiated from: tg-autodiff gives both its location, and its
/// gradient ops inherit the attribute).
llvm::Error annotateFailures(MLIRContext &context, const RunConfig &config,
                             ArrayRef<std::string> locations) {
  const std::string &inputFile = config.run.inputFile;
  OwningOpRef<ModuleOp> input = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!input)
    return llvm::createStringError("cannot parse '" + inputFile + "' again");
  llvm::StringSet<> wanted(llvm::from_range, locations);
  llvm::StringSet<> annotated;
  auto f32 = StringAttr::get(&context, "f32");
  input->walk([&](Operation *op) {
    if (op->getNumRegions() != 0)
      return;
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op->getLoc().print(os);
    if (wanted.contains(loc)) {
      op->setAttr(AMPDialect::kPrecisionAttrName, f32);
      annotated.insert(loc);
    }
  });
  for (const std::string &loc : locations)
    if (!annotated.contains(loc))
      llvm::errs() << "amp-run: warning: no op of '" << inputFile << "' is at "
                   << loc << " (made by a pass): it is not annotated\n";
  std::string text;
  llvm::raw_string_ostream out(text);
  input->print(out);
  out << "\n";
  return runner::toError(
      train::writeFile(config.validateAnnotate, "--validate-annotate", text));
}

} // namespace

llvm::Error writeValidation(const Validation &validation,
                            const RunConfig &config, const train::Job &job,
                            int64_t batch, MLIRContext &context) {
  validation.print(llvm::errs());
  const train::RunOptions &r = config.run;
  if (!r.reportPath.empty())
    if (llvm::Error error =
            writeJSON(r.reportPath, "--report",
                      llvm::json::Object{{"file", r.inputFile},
                                         {"precision", r.precision},
                                         {"device", job.deviceName()},
                                         {"batch", batch},
                                         {"validation", validation.toJSON()}}))
      return error;
  if (!config.validateFix.empty())
    if (llvm::Error error = writeJSON(config.validateFix, "--validate-fix",
                                      validation.listsFix()))
      return error;
  if (!config.validateAnnotate.empty())
    return annotateFailures(context, config, validation.failingLocations());
  return llvm::Error::success();
}

} // namespace amp::run
