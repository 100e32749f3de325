//===- amp-run.cpp - Compile a training step and train with it ------------===//
//
// Reads a tg training step, runs the pipeline at the chosen precision,
// lowers it to the runtime, JITs it, initialises the parameters and trains
// on Fashion-MNIST or synthetic data, evaluating test accuracy through the
// model's `predict` function. Progress goes to stderr and a JSON report to
// --report. Bad input is a clear error and a non-zero exit.
//
//===----------------------------------------------------------------------===//

#include "FileKind.h"
#include "NonFinite.h"
#include "Validation.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Runner/StepRunner.h"
#include "amp/Tools/LargeStack.h"
#include "amp/Tools/PassOptionErrors.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/Pipeline.h"
#include "amprt/amprt.h"
#include "amptrain/Trainer.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <unistd.h>

using namespace mlir;
namespace tg = amp::tg;
namespace runner = amp::runner;
namespace train = amp::train;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("Training");

namespace {
/// LLVM's double parser, which takes an empty value ("--lr=") as 0: a
/// number flag given with no number is a mistake, not a zero.
struct NumberParser : cl::parser<double> {
  using cl::parser<double>::parser;
  bool parse(cl::Option &option, StringRef name, StringRef text,
             double &value) {
    if (text.trim().empty())
      return option.error("'' is not a number");
    return cl::parser<double>::parse(option, name, text, value);
  }
};
using NumberOpt = cl::opt<double, false, NumberParser>;
} // namespace

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<training step .mlir>"));
static cl::opt<std::string> entryName("entry", cl::init("train_step"),
                                      cl::desc("The training step function"),
                                      cl::cat(runCategory));
static cl::opt<std::string> evalEntry(
    "eval-entry", cl::init(""),
    cl::desc("Test-accuracy function (default: predict when present)"),
    cl::cat(runCategory));
static cl::opt<std::string> device("device", cl::init(""),
                                   cl::desc("cpu or cuda (default: cuda when "
                                            "a device is present, else cpu)"),
                                   cl::cat(runCategory));
static cl::opt<std::string> precision("precision", cl::init("f16"),
                                      cl::desc("f32, f16, bf16 or fp8 (bf16 "
                                               "with FP8 contraction "
                                               "operands)"),
                                      cl::cat(runCategory));
static cl::opt<int64_t> steps("steps", cl::init(0),
                              cl::desc("Training steps (overrides epochs)"),
                              cl::cat(runCategory));
static cl::opt<int64_t> epochs("epochs", cl::init(1), cl::desc("Epochs"),
                               cl::cat(runCategory));
static cl::opt<int64_t> batchFlag("batch", cl::init(0),
                                  cl::desc("Batch size (must equal the input "
                                           "argument's leading dimension)"),
                                  cl::cat(runCategory));
static cl::opt<std::string> data("data", cl::init("synthetic"),
                                 cl::desc("synthetic or fashion-mnist[:DIR]"),
                                 cl::cat(runCategory));
static NumberOpt lr("lr", cl::init(0.01), cl::desc("Learning rate"),
                    cl::cat(runCategory));
static cl::opt<unsigned> seed("seed", cl::init(0), cl::desc("Random seed"),
                              cl::cat(runCategory));
static cl::opt<std::string> reportPath("report", cl::init(""),
                                       cl::desc("Write a JSON report here"),
                                       cl::cat(runCategory));
static NumberOpt initScale("init-scale",
                           cl::init(amp::loss_scaling::kInitScale),
                           cl::desc("Initial loss scale (f16)"),
                           cl::cat(runCategory));
static cl::opt<int64_t> minScaleSkips(
    "min-scale-skips", cl::init(1),
    cl::desc("Stop after N steps in a row skipped at the minimum loss scale "
             "(loss scaling cannot make them finite)"),
    cl::cat(runCategory));
static cl::opt<bool> trapNonFinite(
    "trap-nonfinite", cl::init(false),
    cl::desc("Stop at the first step that is not finite, even one loss "
             "scaling would skip, and name the op that made it (a mixed "
             "run names the op at every non-finite stop)"),
    cl::cat(runCategory));
static cl::opt<std::string>
    lossScaling("loss-scaling", cl::init("dynamic"),
                cl::desc("dynamic, static or none (f16 only)"),
                cl::cat(runCategory));
static cl::opt<std::string> listsFile(
    "lists-file", cl::init(""),
    cl::desc("A precision lists-file for --amp-auto-mixed-precision (SPEC's "
             "JSON; --validate-fix writes one)"),
    cl::cat(runCategory));
static cl::opt<int64_t> logEvery("log-every", cl::init(100),
                                 cl::desc("Progress every N steps"),
                                 cl::cat(runCategory));
static cl::opt<std::string> lowerOptions(
    "lower-options", cl::init(""),
    cl::desc("Options for amp-lower-to-runtime, as its pipeline form takes "
             "them (\"fuse-bias-epilogues=0 reshape-views=0\"): A/B runs of "
             "a lowering choice"),
    cl::cat(runCategory));
static cl::opt<std::string>
    emitObj("emit-obj", cl::init(""),
            cl::desc("Also write the compiled step as an object file here"),
            cl::cat(runCategory));
static cl::opt<bool> compileOnly(
    "compile-only", cl::init(false),
    cl::desc("Stop once the step is compiled (with --emit-obj, once its "
             "object and manifest are written): no data is read and "
             "nothing trains"),
    cl::cat(runCategory));

static cl::opt<int64_t> accumulate(
    "accumulate", cl::init(1), cl::value_desc("K"),
    cl::desc("Gradient accumulation: K micro-batches of the step's batch "
             "per optimizer step (each batch K times the model's), their "
             "gradients averaged in f32, one unscale, inf/NaN check and "
             "update (--amp-accumulate-gradients)"),
    cl::cat(runCategory));

static cl::opt<bool> padTensorCores(
    "pad-tensor-cores", cl::init(false),
    cl::desc("Pad contractions' misaligned dimensions that a parameter owns "
             "(classes, hidden widths, channels) to Tensor Core multiples "
             "with zeros inside the step (--amp-pad-for-tensor-cores); the "
             "signature and every value are unchanged"),
    cl::cat(runCategory));

static cl::opt<std::string> emitObjCpu(
    "emit-obj-cpu", cl::init("x86-64"),
    cl::desc("The CPU the --emit-obj object is compiled for: x86-64 (any "
             "x86-64 machine; the default), x86-64-v3, host, or any CPU "
             "LLVM names"),
    cl::cat(runCategory));

static cl::OptionCategory validateCategory(
    "Validation (--validate): every low-precision op against f32");
static cl::opt<std::string> validate(
    "validate", cl::ValueOptional, cl::value_desc("steps"),
    cl::desc("Instead of training, run N steps (default 5) of the mixed step "
             "beside the f32 step on the same batches and parameters, "
             "measure every op that runs in low precision against f32 (fed "
             "its f32 inputs), and print the ops that break"),
    cl::cat(validateCategory));
static cl::opt<std::string> validateFix(
    "validate-fix", cl::init(""), cl::value_desc("lists.json"),
    cl::desc("Write a lists-file that denies the failing ops' names"),
    cl::cat(validateCategory));
static cl::opt<std::string> validateAnnotate(
    "validate-annotate", cl::init(""), cl::value_desc("out.mlir"),
    cl::desc("Write the input program with amp.precision = \"f32\" on "
             "exactly the failing ops"),
    cl::cat(validateCategory));
static NumberOpt validateTolF16(
    "validate-tol-f16", cl::init(amp::run::ValidationTolerances().relativeF16),
    cl::desc("Largest relative RMS error of an f16 op (20 f16 roundings)"),
    cl::cat(validateCategory));
static NumberOpt validateTolBF16(
    "validate-tol-bf16",
    cl::init(amp::run::ValidationTolerances().relativeBF16),
    cl::desc("Largest relative RMS error of a bf16 op (20 bf16 roundings)"),
    cl::cat(validateCategory));
static NumberOpt validateMaxFlushed(
    "validate-max-flushed", cl::init(amp::run::ValidationTolerances().flushed),
    cl::desc("Largest fraction of an op's values that may flush to zero"),
    cl::cat(validateCategory));

static cl::OptionCategory
    parallelCategory("Data parallelism (amp-run under mpirun or srun)");
static cl::opt<std::string> commFlag(
    "comm", cl::init("auto"),
    cl::desc("Process group: auto (mpi when mpirun or srun started this "
             "process, else self), self, mpi, or nccl (MPI's job, CUDA "
             "tensors all-reduced by NCCL on the device)"),
    cl::cat(parallelCategory));
static NumberOpt commTimeout(
    "comm-timeout", cl::init(300),
    cl::desc("Seconds a collective of a training step may wait for the "
             "other ranks before the job ends with an error (start-up waits "
             "up to 600 s for every rank to compile)"),
    cl::cat(parallelCategory));
static cl::opt<bool> dataParallel(
    "data-parallel", cl::init(false),
    cl::desc("Compile the step data-parallel on one rank too (implied by "
             "more than one rank and by --grad-comm / --bucket-bytes)"),
    cl::cat(parallelCategory));
static cl::opt<std::string>
    gradComm("grad-comm", cl::init("f32"),
             cl::desc("Wire type of gradients: f32, f16 or bf16"),
             cl::cat(parallelCategory));
static cl::opt<int64_t>
    bucketBytes("bucket-bytes", cl::init(25 * 1024 * 1024),
                cl::desc("Most bytes of gradients per collective"),
                cl::cat(parallelCategory));
static cl::opt<bool> reduceAmax(
    "reduce-amax", cl::init(true),
    cl::desc("With --precision=fp8, record the largest amax over the ranks "
             "in each amax history, so every rank's delayed scales agree "
             "(--reduce-amax=false keeps each rank's own)"),
    cl::cat(parallelCategory));
static cl::opt<std::string> injectFault(
    "inject-fault", cl::init(""), cl::value_desc("KIND@RANK:STEP"),
    cl::desc("Testing aid: rank RANK puts an inf in its batch (inf), exits "
             "(exit) or hangs (hang) at step STEP, or exits halfway through "
             "writing the checkpoint after STEP steps (save-exit)"),
    cl::cat(parallelCategory));

static cl::OptionCategory
    checkpointCategory("Checkpoints: save a run and go on from it bit for bit");
static cl::opt<std::string>
    saveDir("save", cl::init(""), cl::value_desc("DIR"),
            cl::desc("Write DIR/checkpoint.amp at the end (and every "
                     "--save-every steps): params, optimizer, loss-scale and "
                     "FP8 state, the step, the data order"),
            cl::cat(checkpointCategory));
static cl::opt<int64_t> saveEvery("save-every", cl::init(0),
                                  cl::desc("Save every N steps too"),
                                  cl::cat(checkpointCategory));
static cl::opt<std::string> resumeDir(
    "resume", cl::init(""), cl::value_desc("DIR"),
    cl::desc("Go on from DIR/checkpoint.amp (--steps and --epochs count from "
             "the original run's start)"),
    cl::cat(checkpointCategory));
static cl::opt<bool> resumeOtherPrecision(
    "resume-other-precision", cl::init(false),
    cl::desc("Resume a checkpoint saved in another precision (params and "
             "optimizer state carry over; loss-scale state starts afresh)"),
    cl::cat(checkpointCategory));

namespace {

/// The run's flags for the training library.
train::RunOptions runOptions() {
  train::RunOptions o;
  o.inputFile = inputFile;
  o.precision = precision;
  o.device = device;
  o.steps = steps;
  o.epochs = epochs;
  o.batch = batchFlag;
  o.logEvery = logEvery;
  o.data = data;
  o.lr = lr;
  o.lrGiven = lr.getNumOccurrences() > 0;
  o.seed = seed;
  o.reportPath = reportPath;
  o.initScale = initScale;
  o.comm = commFlag;
  o.commTimeout = commTimeout;
  o.dataParallel = dataParallel;
  o.reduceAmax = reduceAmax;
  o.gradComm = gradComm;
  o.bucketBytes = bucketBytes;
  o.gradCommGiven = gradComm.getNumOccurrences() > 0;
  o.bucketBytesGiven = bucketBytes.getNumOccurrences() > 0;
  o.injectFault = injectFault;
  o.saveDir = saveDir;
  o.saveEvery = saveEvery;
  o.resumeDir = resumeDir;
  o.resumeOtherPrecision = resumeOtherPrecision;
  o.minScaleSkips = minScaleSkips;
  o.trapNonFinite = trapNonFinite;
  return o;
}

/// A diagnostic before the process group exists.
int fatal(const llvm::Twine &message) {
  llvm::errs() << "amp-run: error: " << message << "\n";
  return 1;
}

/// The first flag given with an empty value ("--report="), which would
/// otherwise quietly mean "not given"; null when there is none.
/// --lower-options= is no options, and --validate's value is optional.
const cl::opt<std::string> *flagGivenEmpty() {
  for (const cl::opt<std::string> *flag :
       {&entryName, &evalEntry, &device, &precision, &data, &reportPath,
        &lossScaling, &listsFile, &emitObj, &emitObjCpu, &validateFix,
        &validateAnnotate, &commFlag, &gradComm, &injectFault})
    if (flag->getNumOccurrences() && flag->getValue().empty())
      return flag;
  return nullptr;
}

/// The sum of squares of every gradient an optimizer op of the entry
/// receives, as extra results (both steps of --validate).
std::unique_ptr<Pass> gradientProbes() {
  amp::ValidationProbesPassOptions options;
  options.ops = false;
  options.gradients = true;
  options.functions = {entryName};
  return amp::createValidationProbesPass(options);
}

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
llvm::Error annotateFailures(MLIRContext &context,
                             ArrayRef<std::string> locations, StringRef path) {
  OwningOpRef<ModuleOp> input = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!input)
    return llvm::createStringError("cannot parse '" + inputFile + "' again");
  llvm::StringSet<> wanted;
  for (const std::string &loc : locations)
    wanted.insert(loc);
  llvm::StringSet<> annotated;
  auto f32 = StringAttr::get(&context, "f32");
  input->walk([&](Operation *op) {
    if (op->getNumRegions() != 0)
      return;
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op->getLoc().print(os);
    if (wanted.contains(loc)) {
      op->setAttr(amp::AMPDialect::kPrecisionAttrName, f32);
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
      train::writeFile(path.str(), "--validate-annotate", text));
}

/// The flags' words as the passes' options (checked before compiling:
/// --precision other than f32 and --grad-comm by train::checkRunOptions,
/// --loss-scaling by checkModes).
amp::LowPrecision lowPrecision() {
  return *amp::parseOption<amp::LowPrecision>(precision);
}
amp::LossScalingMode scalingMode() {
  return *amp::parseOption<amp::LossScalingMode>(lossScaling);
}
amp::GradComm wireType() { return *amp::parseOption<amp::GradComm>(gradComm); }

/// The f32 step instrumented for --validate: autodiff, the probes where
/// the precision pass would run (same colouring), loss scaling as the mixed
/// step has it (so backward ops see the same scaled values), and the
/// gradient norms the optimizers receive.
void buildValidationPipeline(PassManager &pm, ArrayRef<std::string> functions) {
  pm.addPass(amp::createTGAutodiffPass());
  amp::ValidationProbesPassOptions probes;
  probes.precision = lowPrecision();
  probes.functions.assign(functions.begin(), functions.end());
  probes.listsFile = listsFile;
  pm.addPass(amp::createValidationProbesPass(probes));
  if (amp::usesLossScaling(lowPrecision())) {
    amp::LossScalingPassOptions scaling;
    scaling.mode = scalingMode();
    scaling.initScale = initScale;
    pm.addPass(amp::createLossScalingPass(scaling));
  }
  pm.addPass(gradientProbes());
  amp::addCleanupPasses(pm);
}

/// The training pipeline: autodiff (and data parallelism) for f32, the amp
/// pipeline otherwise.
void buildTrainingPipeline(PassManager &pm, bool parallel) {
  if (precision == "f32") {
    pm.addPass(amp::createTGAutodiffPass());
    if (accumulate != 1) {
      amp::AccumulateGradientsPassOptions options;
      options.microBatches = accumulate;
      pm.addPass(amp::createAccumulateGradientsPass(options));
    }
    if (parallel) {
      amp::DataParallelPassOptions options;
      options.gradComm = wireType();
      options.bucketBytes = bucketBytes;
      pm.addPass(amp::createDataParallelPass(options));
    }
    amp::addCleanupPasses(pm);
    return;
  }
  amp::AmpPipelineOptions options;
  options.precision = lowPrecision();
  options.mode = scalingMode();
  options.initScale = initScale;
  options.listsFile = listsFile;
  // amp-run prints training progress; amp-opt reports the alignment.
  options.tensorCoreSummary = false;
  options.padTensorCores = padTensorCores;
  options.accumulate = accumulate;
  if (parallel) {
    options.dataParallel = true;
    options.gradComm = wireType();
    options.bucketBytes = bucketBytes;
    options.reduceAmax = reduceAmax;
  }
  amp::buildAmpPipeline(pm, options);
}

/// Every flag that shapes the compiled code, as text.
std::string compiledOptions(bool parallel) {
  std::string text =
      "precision=" + precision + " loss-scaling=" + lossScaling +
      " init-scale=" + std::to_string(initScale) + " lists-file=" + listsFile +
      " lower-options=" + lowerOptions + " cpu=" + emitObjCpu +
      (padTensorCores ? " pad-tensor-cores" : "") +
      (accumulate != 1 ? " accumulate=" + std::to_string(accumulate)
                       : std::string());
  if (parallel)
    text += " data-parallel grad-comm=" + gradComm +
            " bucket-bytes=" + std::to_string(bucketBytes) +
            " reduce-amax=" + (reduceAmax ? "1" : "0");
  return text;
}

/// The manifest of the object `--emit-obj` wrote.
llvm::Expected<train::Manifest>
describeObject(const train::FunctionSpec &trainSpec,
               std::optional<train::FunctionSpec> evalSpec,
               std::vector<train::Fp8History> fp8, int64_t lossClasses,
               bool parallel, const std::string &triple) {
  train::Manifest m;
  auto file = train::fingerprintFile(emitObj);
  if (!file)
    return runner::toError(file.status());
  m.object = llvm::sys::path::filename(emitObj).str();
  m.objectBytes = file->first;
  m.objectFingerprint = file->second;
  m.triple = triple;
  m.cpu = emitObjCpu;
  m.source = inputFile;
  m.precision = precision;
  m.lossScaling = precision != "f32" && amp::usesLossScaling(lowPrecision())
                      ? std::string(lossScaling)
                      : std::string("none");
  m.initScale = initScale;
  m.dataParallel = parallel;
  m.gradComm = gradComm;
  m.bucketBytes = bucketBytes;
  m.reduceAmax = parallel && precision == "fp8" && reduceAmax;
  m.options = compiledOptions(parallel);
  m.optionsFingerprint = train::fingerprintHex(m.options);
  m.lossClasses = lossClasses;
  m.train = trainSpec;
  m.eval = std::move(evalSpec);
  m.fp8 = std::move(fp8);
  return m;
}

/// The lowering pipeline with --lower-options; on a bad option list,
/// `optionError` says what is wrong with it in one line.
bool buildLowering(PassManager &pm, std::string &optionError) {
  LogicalResult built = amp::buildLowerToLLVMPipeline(
      pm, lowerOptions, [&](const Twine &message) {
        optionError = amp::passOptionMessage(message);
        if (optionError.empty())
          optionError = "'" + lowerOptions +
                        "' is not a valid option list (the reason is "
                        "above; see amp-lower-to-runtime's options in "
                        "docs/Passes)";
        return failure();
      });
  return succeeded(built);
}

/// Lowers `module` to the LLVM dialect and JIT-compiles it; `failure` says
/// what failed when the lowering does.
llvm::Expected<runner::JitModule>
lowerAndCompile(ModuleOp module,
                StringRef failure = "lowering to the runtime failed") {
  std::string optionError;
  PassManager lower(module.getContext());
  if (!buildLowering(lower, optionError))
    return llvm::createStringError("--lower-options: " + optionError);
  if (failed(lower.run(module)))
    return llvm::createStringError(failure);
  return runner::JitModule::create(module, {});
}

/// What names the op behind a non-finite stop (NonFinite.h): --validate's
/// probed f32 step, made from a copy of `input` taken before the amp
/// pipeline ran and compiled only if a run stops.
std::unique_ptr<amp::run::NonFiniteExplainer>
nonFiniteExplainer(ModuleOp input) {
  auto source = std::make_shared<OwningOpRef<ModuleOp>>(input.clone());
  auto instrument = [source]() -> llvm::Expected<OwningOpRef<ModuleOp>> {
    OwningOpRef<ModuleOp> probed = (*source)->clone();
    PassManager pm(probed->getContext());
    buildValidationPipeline(pm, std::vector<std::string>{entryName});
    if (failed(pm.run(*probed)))
      return llvm::createStringError("instrumenting the step with probes "
                                     "failed (see the diagnostics above)");
    return probed;
  };
  auto compile = [](ModuleOp probed) {
    return lowerAndCompile(probed, "lowering the probed step failed");
  };
  return std::make_unique<amp::run::NonFiniteExplainer>(instrument, compile,
                                                        entryName);
}

} // namespace

static int runMain(int argc, char **argv);

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return amp::runWithLargeStack([&] { return runMain(argc, argv); });
}

namespace {

/// What --validate compiled beside the mixed step: the f32 step with
/// probes, and its eval function when that is probed too.
struct ValidationSteps {
  train::FunctionSpec f32Spec;
  runner::StepFn f32Step = nullptr;
  std::optional<train::EvalFunction> f32Eval;
  std::vector<amp::run::ProbeInfo> f32Probes, f32EvalProbes, mixedProbes;
  amp::run::ValidationTolerances tolerances;
  int64_t steps = 5;
  int64_t lossClasses = 10;
};

/// --validate: the mixed step beside the f32 step on the same batches and
/// state; prints the ops that break and writes what was asked.
int runValidation(train::Job &job, train::TrainingStep &step,
                  runner::StepFn stepFn, const ValidationSteps &v,
                  MLIRContext &context) {
  std::mt19937 rng(seed);
  train::RunOptions options = runOptions();
  if (train::Status bad = train::checkBatch(step, options))
    return job.fatal(bad);
  const train::TensorSpec &input = step.inputType();
  if (train::Status failed = train::startState(job, step, options, rng))
    return job.fatal(failed);
  auto data = train::prepareData(job, step, options, v.lossClasses, rng);
  if (!data)
    return job.fatal(data.status());
  train::BatchSource &batches = *data->batches;
  if (auto total = train::totalSteps(options, batches.perEpoch()); !total)
    return job.fatal(total.status());
  amp::run::Validation validation(precision, v.tolerances);
  int lossResult = v.f32Spec.lastResultWithRole(train::Role::Loss);
  for (int64_t s = 0; s < v.steps; ++s) {
    auto batch = batches.next(s);
    if (!batch)
      return job.fatal(batch.status());
    auto &[x, y] = *batch;
    auto f32Results =
        step.runAside(v.f32Step, v.f32Spec, job.context(), x.get(), y.get());
    if (!f32Results)
      return job.fatal("the f32 step of --validate failed at step " +
                       std::to_string(s) + ": " + f32Results.message());
    auto f32Loss = train::readScalar((*f32Results)[lossResult].get());
    if (!f32Loss)
      return job.fatal(f32Loss.status());
    std::vector<std::pair<amp::run::ProbeInfo, std::vector<float>>> measured;
    if (!amp::run::readProbeValues(v.f32Probes, *f32Results, measured))
      return job.fatal(train::runtimeError("reading a probe"));
    if (v.f32Eval) {
      auto evalResults = train::runEval(job.context(), *v.f32Eval,
                                        step.params(), x.get(), y.get());
      if (!evalResults)
        return job.fatal("the f32 @" + v.f32Eval->signature.name +
                         " of --validate failed: " + evalResults.message());
      if (!amp::run::readProbeValues(v.f32EvalProbes, *evalResults, measured))
        return job.fatal(train::runtimeError("reading a probe"));
    }
    auto outcome = step.run(stepFn, job.context(), std::move(x), std::move(y));
    if (!outcome)
      return job.fatal("step " + std::to_string(s) +
                       " failed: " + outcome.message());
    std::vector<std::pair<amp::run::ProbeInfo, float>> mixedGradients;
    for (const amp::run::ProbeInfo &probe : v.mixedProbes)
      for (auto &[number, tensor] : outcome->outputs)
        if (number == probe.resultNumber) {
          auto value = train::readScalar(tensor.get());
          if (!value)
            return job.fatal(value.status());
          mixedGradients.push_back({probe, *value});
        }
    validation.addStep(measured, mixedGradients, *f32Loss, outcome->loss,
                       outcome->skipped || !outcome->committed);
  }
  validation.finish();
  validation.print(llvm::errs());
  auto fail = [&](llvm::Error error) {
    return job.fatal(llvm::toString(std::move(error)));
  };
  if (!reportPath.empty())
    if (llvm::Error error =
            writeJSON(reportPath, "--report",
                      llvm::json::Object{{"file", inputFile},
                                         {"precision", precision},
                                         {"device", job.deviceName()},
                                         {"batch", input.shape[0]},
                                         {"validation", validation.toJSON()}}))
      return fail(std::move(error));
  if (!validateFix.empty())
    if (llvm::Error error =
            writeJSON(validateFix, "--validate-fix", validation.listsFix()))
      return fail(std::move(error));
  if (!validateAnnotate.empty())
    if (llvm::Error error = annotateFailures(
            context, validation.failingLocations(), validateAnnotate))
      return fail(std::move(error));
  return 0;
}

} // namespace

namespace {

/// Compiles the f32 step of --validate (`f32Module`, instrumented) into
/// `jit` and fills what `checks` needs of it. The eval function's ops are
/// probed too (on the training batch, with the step's params) when it
/// takes a batch of the same shape, so a fix covers the ops that compute
/// the test accuracy.
llvm::Error compileValidation(ModuleOp f32Module, StringRef evalName,
                              const std::optional<train::EvalFunction> &eval,
                              const train::TrainingStep &step,
                              uint64_t deviceMemory, ValidationSteps &checks,
                              std::optional<runner::JitModule> &jit) {
  auto f32Entry = f32Module.lookupSymbol<func::FuncOp>(entryName);
  if (llvm::Error error = runner::checkSignature(f32Entry, deviceMemory))
    return error;
  checks.f32Spec = runner::specOf(f32Entry);
  auto probes = amp::run::readProbes(f32Entry);
  if (!probes)
    return probes.takeError();
  checks.f32Probes = std::move(*probes);
  std::optional<train::FunctionSpec> f32EvalSpec;
  if (eval) {
    const train::FunctionSpec &mixed = eval->signature;
    int input = mixed.lastArgWithRole(train::Role::Input);
    auto f32Eval = f32Module.lookupSymbol<func::FuncOp>(evalName);
    if (input >= 0 && mixed.args[input].type == step.inputType() &&
        mixed.args.size() == step.params().size() + 1) {
      auto evalProbes = amp::run::readProbes(f32Eval);
      if (!evalProbes)
        return evalProbes.takeError();
      int64_t firstId = 0;
      for (const amp::run::ProbeInfo &p : checks.f32Probes)
        firstId = std::max(firstId, p.id + 1);
      for (amp::run::ProbeInfo &p : *evalProbes)
        p.id += firstId;
      checks.f32EvalProbes = std::move(*evalProbes);
      f32EvalSpec = runner::specOf(f32Eval);
    }
  }
  auto compiled =
      lowerAndCompile(f32Module, "lowering the f32 step for --validate failed");
  if (!compiled)
    return compiled.takeError();
  jit = std::move(*compiled);
  auto found = jit->lookup(entryName);
  if (!found)
    return found.takeError();
  checks.f32Step = *found;
  if (f32EvalSpec && !checks.f32EvalProbes.empty()) {
    auto evalFn = jit->lookup(evalName);
    if (!evalFn)
      return evalFn.takeError();
    checks.f32Eval = train::EvalFunction{*f32EvalSpec, *evalFn};
  }
  return llvm::Error::success();
}

} // namespace

/// --help lists amp-run's own options; LLVM's and MLIR's (code generation
/// for other targets, debugging aids) are still accepted, and listed by
/// --help-hidden.
static void hideForeignOptions() {
  const cl::OptionCategory *own[] = {&runCategory, &validateCategory,
                                     &parallelCategory, &checkpointCategory};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    StringRef name = entry.first;
    bool ours = llvm::any_of(option->Categories, [&](auto *category) {
      return llvm::is_contained(own, category);
    });
    if (!ours && !name.starts_with("help") && name != "version" &&
        option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}

/// Parses the command line; false after saying why it cannot be taken.
/// LLVM's refusals ("Unknown command line argument '--bogus'. Try: ...
/// Did you mean ...?") are said as one error line. A bad value's reason
/// LLVM prints itself ("amp-run: for the --steps option: 'abc' value
/// invalid for long argument!"), leaving nothing to add.
static bool parseCommandLine(int argc, char **argv) {
  std::string parseErrors;
  llvm::raw_string_ostream errors(parseErrors);
  if (cl::ParseCommandLineOptions(
          argc, argv, "amp-run: train a tg training step\n", &errors))
    return true;
  std::string message;
  for (StringRef line : llvm::split(StringRef(parseErrors).trim(), '\n')) {
    line.consume_front("amp-run: ");
    if (!line.trim().empty())
      message += (message.empty() ? "" : " ") + line.trim().str();
  }
  if (!message.empty())
    llvm::errs() << "amp-run: error: " << message << "\n";
  return false;
}

/// Why the flags that name files cannot be taken (empty when they can):
/// an input that is not a regular file, an output that cannot be written
/// (checked before the work, not after it) or that is another flag's file.
static std::string checkFiles() {
  if (amprt::kindOf(inputFile) == amprt::FileKind::Other)
    return "cannot read '" + inputFile + "': " + amprt::kNotRegularFile;
  // Files written after the work: fail now, not after it, when one cannot
  // be written.
  std::string manifest = emitObj.empty() ? "" : emitObj + ".json";
  for (auto [flag, path] :
       {std::pair<StringRef, StringRef>{"--emit-obj", emitObj},
        {"--emit-obj's manifest", manifest},
        {"--validate-fix", validateFix},
        {"--validate-annotate", validateAnnotate}})
    if (train::Status bad = train::checkWritable(flag.str(), path.str()))
      return bad.message();
  // The manifest fingerprints the object by reading it back, and
  // amp-train loads both: a device or a pipe cannot serve.
  if (!emitObj.empty() && amprt::kindOf(emitObj) == amprt::FileKind::Other)
    return "cannot write --emit-obj '" + emitObj +
           "': the object and its manifest (PATH.json) are files "
           "amp-train reads back; name a regular file";
  std::vector<train::FlagPath> inputs = train::dataInputs(data);
  inputs.push_back({"the input", inputFile});
  inputs.push_back({"--lists-file", listsFile});
  auto checkpointIn = [](const std::string &dir) {
    return dir.empty() ? dir : train::Checkpoint::pathIn(dir);
  };
  if (train::Status bad = train::checkOutputsApart(
          inputs, {{"--emit-obj", emitObj},
                   {"--emit-obj's manifest", manifest},
                   {"--validate-fix", validateFix},
                   {"--validate-annotate", validateAnnotate},
                   {"--report", reportPath},
                   {"--save's checkpoint", checkpointIn(saveDir)}}))
    return bad.message();
  return "";
}

/// Why the flags that choose what amp-run does cannot go together (empty
/// when they can).
static std::string checkModes(bool validating) {
  if (!amp::parseOption<amp::LossScalingMode>(lossScaling))
    return "--loss-scaling must be " +
           amp::optionChoices<amp::LossScalingMode>() + ", got '" +
           lossScaling + "'";
  if (precision == "f32" && !listsFile.empty())
    return "--lists-file needs --precision=f16, bf16 or fp8";
  if (precision == "f32" && padTensorCores)
    return "--pad-tensor-cores needs --precision=f16, bf16 or fp8: "
           "Tensor Cores run low-precision contractions";
  if (accumulate < 1)
    return "--accumulate=K needs K >= 1 micro-batches, got " +
           std::to_string(accumulate);
  if (validating && accumulate != 1)
    return "--validate compares the mixed and f32 steps of one "
           "batch: it takes no --accumulate";
  if (compileOnly && (validating || !reportPath.empty()))
    return "--compile-only stops before training: it takes no "
           "--validate and no --report";
  return "";
}

/// Reads --validate's count and tolerances into `checks`; why they cannot
/// be taken (empty when they can), or why a validation flag was given
/// without --validate.
static std::string readValidationFlags(bool validating,
                                       ValidationSteps &checks) {
  if (validating) {
    if (precision == "f32")
      return "--validate compares a mixed-precision step with f32: "
             "give --precision=f16, bf16 or fp8";
    if (!validate.empty() &&
        (StringRef(validate).getAsInteger(10, checks.steps) ||
         checks.steps < 1))
      return "--validate=N needs a step count >= 1, got '" + validate + "'";
    checks.tolerances.relativeF16 = validateTolF16;
    checks.tolerances.relativeBF16 = validateTolBF16;
    checks.tolerances.flushed = validateMaxFlushed;
    for (double t : {checks.tolerances.relativeF16,
                     checks.tolerances.relativeBF16, checks.tolerances.flushed})
      if (!std::isfinite(t) || t <= 0)
        return "the --validate-tol-* and --validate-max-flushed "
               "tolerances must be finite values > 0";
    if (dataParallel.getNumOccurrences() || gradComm.getNumOccurrences() ||
        bucketBytes.getNumOccurrences() || injectFault.getNumOccurrences())
      return "--validate compares steps in one process: it takes no "
             "--data-parallel, --grad-comm, --bucket-bytes or "
             "--inject-fault";
  } else if (!validateFix.empty() || !validateAnnotate.empty() ||
             validateTolF16.getNumOccurrences() ||
             validateTolBF16.getNumOccurrences() ||
             validateMaxFlushed.getNumOccurrences()) {
    return "--validate-fix, --validate-annotate and the tolerance "
           "options need --validate";
  }

  return "";
}

/// The f32 step of --validate: a copy of `module` (as parsed) with probes
/// in @--entry and @`evalName`; null after the diagnostics when the
/// pipeline fails.
static OwningOpRef<ModuleOp> validationStep(ModuleOp module,
                                            StringRef evalName) {
  OwningOpRef<ModuleOp> f32Module = module.clone();
  PassManager pipeline(module.getContext());
  std::vector<std::string> probed = {entryName};
  if (!evalName.empty())
    probed.push_back(evalName.str());
  buildValidationPipeline(pipeline, probed);
  if (failed(pipeline.run(*f32Module)))
    return nullptr;
  return f32Module;
}

/// Whether every rank compiled the same step with the flags that shape the
/// run (amprt_last_error says why not): each must run the same collectives
/// in the same order on batches of one shape, which is compared before the
/// first collective of a step could wait on a mismatch.
static bool ranksAgree(ModuleOp compiled) {
  std::string text;
  llvm::raw_string_ostream os(text);
  compiled.print(os);
  os << data << ' ' << seed << ' ' << steps << ' ' << epochs << ' ' << lr;
  return amprt_comm_agree(train::fingerprint(text),
                          "the compiled step and its flags") == AMPRT_OK;
}

/// --emit-obj: the lowered step as an object and its manifest.
static llvm::Error
emitObject(ModuleOp lowered, const train::FunctionSpec &trainSpec,
           const std::optional<train::FunctionSpec> &evalSpec,
           const std::vector<train::Fp8History> &fp8, int64_t lossClasses,
           bool parallel) {
  auto triple = runner::emitObjectFile(lowered, emitObj, emitObjCpu);
  if (!triple)
    return triple.takeError();
  auto manifest =
      describeObject(trainSpec, evalSpec, fp8, lossClasses, parallel, *triple);
  if (!manifest)
    return manifest.takeError();
  return runner::writeManifest(*manifest, emitObj + ".json");
}

/// The compiled entry and eval functions, into `compiled`.
static llvm::Error
lookUpCompiled(const runner::JitModule &jit, StringRef evalName,
               const std::optional<train::FunctionSpec> &evalSpec,
               train::CompiledStep &compiled) {
  auto stepFn = jit.lookup(entryName);
  if (!stepFn)
    return stepFn.takeError();
  compiled.train = *stepFn;
  if (evalSpec) {
    auto found = jit.lookup(evalName);
    if (!found)
      return found.takeError();
    compiled.eval = train::EvalFunction{*evalSpec, *found};
  }
  return llvm::Error::success();
}

/// The functions amp-run compiles: --entry, and --eval-entry (or
/// @predict when there is one) into `evalName`; why they cannot be (empty
/// when they can): missing, or declarations without a body.
static std::string findFunctions(ModuleOp module, std::string &evalName) {
  auto lookup = [&](StringRef name) {
    return module.lookupSymbol<func::FuncOp>(name);
  };
  if (!lookup(entryName))
    return "no function @" + entryName + " in '" + inputFile +
           "' (use --entry)";
  evalName = evalEntry;
  if (evalName.empty() && lookup("predict"))
    evalName = "predict";
  if (!evalName.empty() && !lookup(evalName))
    return "no function @" + evalName + " (--eval-entry)";
  for (StringRef name : {StringRef(entryName), StringRef(evalName)})
    if (!name.empty() && lookup(name).isExternal())
      return "@" + name.str() + " in '" + inputFile +
             "' is a declaration: the function amp-run compiles needs a body";
  return "";
}

static int runMain(int argc, char **argv) {
  hideForeignOptions();
  if (!parseCommandLine(argc, argv))
    return 1;
  amp::initializeJitTarget();

  if (const cl::opt<std::string> *flag = flagGivenEmpty())
    return fatal("--" + flag->ArgStr + "= needs a value");
  train::RunOptions options = runOptions();
  if (train::Status bad = train::checkRunOptions(options))
    return fatal(bad.message());
  if (std::string bad = checkFiles(); !bad.empty())
    return fatal(bad);
  bool validating = validate.getNumOccurrences() > 0;
  if (std::string bad = checkModes(validating); !bad.empty())
    return fatal(bad);
  ValidationSteps checks;
  if (std::string bad = readValidationFlags(validating, checks); !bad.empty())
    return fatal(bad);

  // The process group (alone, or one rank of a launcher's job) and the
  // device.
  auto started = train::Job::start("amp-run", options);
  if (!started)
    return fatal(started.message());
  train::Job job = std::move(*started);
  if (validating && job.size() > 1)
    return job.fatal("--validate compares steps in one process: run it "
                     "without mpirun");

  // Parse and compile.
  DialectRegistry registry;
  amp::registerAllForJit(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return job.fatal("cannot parse '" + inputFile + "'");
  auto lookup = [&](ModuleOp m, StringRef name) {
    return m.lookupSymbol<func::FuncOp>(name);
  };
  std::string evalName;
  if (std::string bad = findFunctions(*module, evalName); !bad.empty())
    return job.fatal(bad);

  PassManager pm(&context);
  buildTrainingPipeline(pm, job.parallel());
  // Synthetic data takes its class count from the loss's logits.
  checks.lossClasses =
      amp::tg::lossClassCount(lookup(*module, entryName)).value_or(10);
  // --validate: the f32 step with probes, compiled beside the mixed one.
  OwningOpRef<ModuleOp> f32Module;
  if (validating) {
    pm.addPass(gradientProbes());
    f32Module = validationStep(*module, evalName);
    if (!f32Module)
      return job.fatal("instrumenting the f32 step for --validate failed "
                       "(see the diagnostics above)");
  }
  // A mixed run names the op behind a non-finite stop, each rank of a job
  // on its own batch, an accumulating step micro-batch by micro-batch.
  std::unique_ptr<amp::run::NonFiniteExplainer> explainer;
  if (precision != "f32" && !validating)
    explainer = nonFiniteExplainer(*module);
  if (failed(pm.run(*module)))
    return job.fatal("the amp pipeline failed (see the diagnostics above)");
  if (job.size() > 1 && !ranksAgree(*module))
    return job.fatal(amprt_last_error());
  size_t deviceMemory = 0;
  amprt_memory_capacity(job.context(), &deviceMemory);
  for (StringRef name : {StringRef(entryName), StringRef(evalName)})
    if (!name.empty())
      if (llvm::Error error =
              runner::checkSignature(lookup(*module, name), deviceMemory))
        return job.fatal(llvm::toString(std::move(error)));
  train::FunctionSpec trainSpec = runner::specOf(lookup(*module, entryName));
  std::optional<train::FunctionSpec> evalSpec;
  if (!evalName.empty())
    evalSpec = runner::specOf(lookup(*module, evalName));
  auto bound = train::TrainingStep::bind(trainSpec);
  if (!bound)
    return job.fatal(bound.status());
  train::TrainingStep step = std::move(*bound);
  // fp8: the scales and their saturation, read from the step before it is
  // lowered.
  train::CompiledStep compiled;
  compiled.fp8 = runner::fp8HistoriesOf(lookup(*module, entryName));
  compiled.lossClasses = checks.lossClasses;
  if (validating) {
    auto probes = amp::run::readProbes(lookup(*module, entryName));
    if (!probes)
      return job.fatal(llvm::toString(probes.takeError()));
    checks.mixedProbes = std::move(*probes);
  }

  auto jit = lowerAndCompile(*module);
  if (!jit)
    return job.fatal(llvm::toString(jit.takeError()));
  if (!emitObj.empty())
    if (llvm::Error error =
            emitObject(*module, trainSpec, evalSpec, compiled.fp8,
                       checks.lossClasses, job.parallel()))
      return job.fatal(llvm::toString(std::move(error)));
  if (compileOnly)
    return 0;
  if (llvm::Error error = lookUpCompiled(*jit, evalName, evalSpec, compiled))
    return job.fatal(llvm::toString(std::move(error)));
  if (explainer)
    compiled.explainNonFinite = [&](train::TrainingStep &stopped, int64_t s,
                                    amprt_tensor *x, amprt_tensor *y) {
      return explainer->explain(stopped, job.context(), s, x, y);
    };
  if (!validating)
    return train::trainSteps(job, step, compiled, options);

  std::optional<runner::JitModule> f32Jit;
  if (llvm::Error error = compileValidation(*f32Module, evalName, compiled.eval,
                                            step, deviceMemory, checks, f32Jit))
    return job.fatal(llvm::toString(std::move(error)));
  return runValidation(job, step, compiled.train, checks, context);
}
