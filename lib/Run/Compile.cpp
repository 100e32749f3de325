//===- Compile.cpp - A run's steps, built and compiled --------------------===//

#include "amp/Run/Compile.h"
#include "amp/Conversion/Passes.h"
#include "amp/Tools/PassOptionErrors.h"
#include "amp/Transforms/Pipeline.h"
#include "amptrain/Manifest.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace amp::run {

void buildStepPipeline(OpPassManager &pm, const RunConfig &config,
                       PipelineStep step, bool parallel,
                       ArrayRef<std::string> probed) {
  AmpPipelineOptions options;
  options.step = step;
  if (step != PipelineStep::F32) {
    options.precision = config.lowPrecision();
    options.mode = config.lossScaling;
    options.initScale = config.run.initScale;
    options.listsFile = config.listsFile;
  }
  if (step == PipelineStep::Mixed) {
    // amp-run prints training progress; amp-opt reports the alignment.
    options.tensorCoreSummary = false;
    options.padTensorCores = config.padTensorCores;
  }
  if (step == PipelineStep::Probed)
    options.probeFunctions = probed;
  else
    options.accumulate = config.accumulate;
  // The probed step returns the gradients' norms too; the mixed step does
  // under --validate, which compares them.
  if (step == PipelineStep::Probed ||
      (step == PipelineStep::Mixed && config.validating()))
    options.probeGradients = ArrayRef<std::string>(config.entry);
  if (parallel) {
    options.dataParallel = true;
    options.gradComm = config.wireType();
    options.bucketBytes = config.run.bucketBytes;
    options.reduceAmax = config.run.reduceAmax;
  }
  buildAmpPipeline(pm, options);
}

llvm::Expected<std::string> evalFunctionOf(ModuleOp module,
                                           const RunConfig &config) {
  auto lookup = [&](StringRef name) {
    return module.lookupSymbol<func::FuncOp>(name);
  };
  const std::string &input = config.run.inputFile;
  if (!lookup(config.entry))
    return llvm::createStringError("no function @" + config.entry + " in '" +
                                   input + "' (use --entry)");
  std::string evalName = config.evalEntry;
  if (evalName.empty() && lookup("predict"))
    evalName = "predict";
  if (!evalName.empty() && !lookup(evalName))
    return llvm::createStringError("no function @" + evalName +
                                   " (--eval-entry)");
  for (StringRef name : {StringRef(config.entry), StringRef(evalName)})
    if (!name.empty() && lookup(name).isExternal())
      return llvm::createStringError(
          "@" + name + " in '" + input +
          "' is a declaration: the function amp-run compiles needs a body");
  return evalName;
}

/// The lowering pipeline with --lower-options; a bad option list is an
/// error saying what is wrong with it in one line.
static llvm::Error buildLowering(PassManager &pm, const RunConfig &config) {
  std::string optionError;
  LogicalResult built = buildLowerToLLVMPipeline(
      pm, config.lowerOptions, [&](const Twine &message) {
        optionError = passOptionMessage(message);
        if (optionError.empty())
          optionError = "'" + config.lowerOptions +
                        "' is not a valid option list (the reason is "
                        "above; see amp-lower-to-runtime's options in "
                        "docs/Passes)";
        return failure();
      });
  if (failed(built))
    return llvm::createStringError("--lower-options: " + optionError);
  return llvm::Error::success();
}

llvm::Expected<runner::JitModule>
lowerAndCompile(ModuleOp module, const RunConfig &config, StringRef failure) {
  PassManager lower(module.getContext());
  if (llvm::Error bad = buildLowering(lower, config))
    return std::move(bad);
  if (failed(lower.run(module)))
    return llvm::createStringError(failure);
  return runner::JitModule::create(module, {});
}

std::string compiledOptions(const RunConfig &config, bool parallel) {
  const train::RunOptions &r = config.run;
  std::string text = "precision=" + r.precision +
                     " loss-scaling=" + optionName(config.lossScaling).str() +
                     " init-scale=" + std::to_string(r.initScale) +
                     " lists-file=" + config.listsFile +
                     " lower-options=" + config.lowerOptions +
                     " cpu=" + config.emitObjCpu +
                     (config.padTensorCores ? " pad-tensor-cores" : "") +
                     (config.accumulate != 1
                          ? " accumulate=" + std::to_string(config.accumulate)
                          : std::string());
  if (parallel)
    text += " data-parallel grad-comm=" + r.gradComm +
            " bucket-bytes=" + std::to_string(r.bucketBytes) +
            " reduce-amax=" + (r.reduceAmax ? "1" : "0");
  return text;
}

/// The manifest of the object --emit-obj wrote.
static llvm::Expected<train::Manifest>
describeObject(const RunConfig &config, const ObjectContents &contents,
               const train::CompiledStep &step, const std::string &triple) {
  const train::RunOptions &r = config.run;
  train::Manifest m;
  auto file = train::fingerprintFile(config.emitObj);
  if (!file)
    return runner::toError(file.status());
  m.object = llvm::sys::path::filename(config.emitObj).str();
  m.objectBytes = file->first;
  m.objectFingerprint = file->second;
  m.triple = triple;
  m.cpu = config.emitObjCpu;
  m.source = r.inputFile;
  m.precision = r.precision;
  m.lossScaling =
      config.scalesLoss() ? optionName(config.lossScaling).str() : "none";
  m.initScale = r.initScale;
  m.dataParallel = contents.parallel;
  m.gradComm = r.gradComm;
  m.bucketBytes = r.bucketBytes;
  m.reduceAmax = contents.parallel && r.precision == "fp8" && r.reduceAmax;
  m.options = compiledOptions(config, contents.parallel);
  m.optionsFingerprint = train::fingerprintHex(m.options);
  m.lossClasses = step.lossClasses;
  m.train = contents.train;
  m.eval = contents.eval;
  m.fp8 = step.fp8;
  return m;
}

llvm::Error emitObject(ModuleOp lowered, const RunConfig &config,
                       const ObjectContents &contents,
                       const train::CompiledStep &step) {
  auto triple =
      runner::emitObjectFile(lowered, config.emitObj, config.emitObjCpu);
  if (!triple)
    return triple.takeError();
  auto manifest = describeObject(config, contents, step, *triple);
  if (!manifest)
    return manifest.takeError();
  return runner::writeManifest(*manifest, config.emitObj + ".json");
}

bool ranksAgree(ModuleOp compiled, const RunConfig &config) {
  // Each rank must run the same collectives in the same order on batches
  // of one shape: compared before the first collective of a step could
  // wait on a mismatch.
  const train::RunOptions &r = config.run;
  std::string text;
  llvm::raw_string_ostream os(text);
  compiled.print(os);
  os << r.data << ' ' << r.seed << ' ' << r.steps << ' ' << r.epochs << ' '
     << r.lr;
  return amprt_comm_agree(train::fingerprint(text),
                          "the compiled step and its flags") == AMPRT_OK;
}

std::unique_ptr<NonFiniteExplainer>
nonFiniteExplainer(ModuleOp input, const RunConfig &config) {
  auto source = std::make_shared<OwningOpRef<ModuleOp>>(input.clone());
  auto instrument = [source,
                     config]() -> llvm::Expected<OwningOpRef<ModuleOp>> {
    OwningOpRef<ModuleOp> probed = (*source)->clone();
    PassManager pm(probed->getContext());
    buildStepPipeline(pm, config, PipelineStep::Probed, /*parallel=*/false,
                      {config.entry});
    if (failed(pm.run(*probed)))
      return llvm::createStringError("instrumenting the step with probes "
                                     "failed (see the diagnostics above)");
    return probed;
  };
  auto compile = [config](ModuleOp probed) {
    return lowerAndCompile(probed, config, "lowering the probed step failed");
  };
  return std::make_unique<NonFiniteExplainer>(instrument, compile,
                                              config.entry);
}

} // namespace amp::run
