//===- amp-run.cpp - Compile a training step and train with it ------------===//
//
// Reads a tg training step, runs the pipeline at the chosen precision,
// lowers it to the runtime, JITs it, initialises the parameters and trains
// on Fashion-MNIST or synthetic data, evaluating test accuracy through the
// model's `predict` function. Progress goes to stderr and a JSON report to
// --report. Bad input is a clear error and a non-zero exit.
//
//===----------------------------------------------------------------------===//

#include "Dataset.h"
#include "Distributed.h"
#include "Fp8Report.h"
#include "Validation.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Runner/StepRunner.h"
#include "amp/Tools/LargeStack.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/Pipeline.h"
#include "amprt/amprt.h"
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
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<training step .mlir>"));
static cl::opt<std::string> entryName("entry", cl::init("train_step"),
                                      cl::desc("The training step function"));
static cl::opt<std::string> evalEntry(
    "eval-entry", cl::init(""),
    cl::desc("Test-accuracy function (default: predict when present)"));
static cl::opt<std::string> device("device", cl::init(""),
                                   cl::desc("cpu or cuda (default: cuda when "
                                            "a device is present, else cpu)"));
static cl::opt<std::string> precision("precision", cl::init("f16"),
                                      cl::desc("f32, f16, bf16 or fp8 (bf16 "
                                               "with FP8 contraction "
                                               "operands)"));
static cl::opt<int64_t> steps("steps", cl::init(0),
                              cl::desc("Training steps (overrides epochs)"));
static cl::opt<int64_t> epochs("epochs", cl::init(1), cl::desc("Epochs"));
static cl::opt<int64_t> batchFlag("batch", cl::init(0),
                                  cl::desc("Batch size (must equal the input "
                                           "argument's leading dimension)"));
static cl::opt<std::string> data("data", cl::init("synthetic"),
                                 cl::desc("synthetic or fashion-mnist[:DIR]"));
static cl::opt<double> lr("lr", cl::init(0.01), cl::desc("Learning rate"));
static cl::opt<unsigned> seed("seed", cl::init(0), cl::desc("Random seed"));
static cl::opt<std::string> reportPath("report", cl::init(""),
                                       cl::desc("Write a JSON report here"));
static cl::opt<double> initScale("init-scale",
                                 cl::init(amp::loss_scaling::kInitScale),
                                 cl::desc("Initial loss scale (f16)"));
static cl::opt<std::string>
    lossScaling("loss-scaling", cl::init("dynamic"),
                cl::desc("dynamic, static or none (f16 only)"));
static cl::opt<std::string> listsFile(
    "lists-file", cl::init(""),
    cl::desc("A precision lists-file for --amp-auto-mixed-precision (SPEC's "
             "JSON; --validate-fix writes one)"));
static cl::opt<int64_t> logEvery("log-every", cl::init(100),
                                 cl::desc("Progress every N steps"));
static cl::opt<std::string> lowerOptions(
    "lower-options", cl::init(""),
    cl::desc("Options for amp-lower-to-runtime, as its pipeline form takes "
             "them (\"fuse-bias-epilogues=0 reshape-views=0\"): A/B runs of "
             "a lowering choice"));
static cl::opt<std::string>
    emitObj("emit-obj", cl::init(""),
            cl::desc("Also write the compiled step as an object file here"));

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
static cl::opt<double> validateTolF16(
    "validate-tol-f16", cl::init(amp::run::ValidationTolerances().relativeF16),
    cl::desc("Largest relative RMS error of an f16 op (20 f16 roundings)"),
    cl::cat(validateCategory));
static cl::opt<double> validateTolBF16(
    "validate-tol-bf16",
    cl::init(amp::run::ValidationTolerances().relativeBF16),
    cl::desc("Largest relative RMS error of a bf16 op (20 bf16 roundings)"),
    cl::cat(validateCategory));
static cl::opt<double> validateMaxFlushed(
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
static cl::opt<double> commTimeout(
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
             "(exit) or hangs (hang) at step STEP"),
    cl::cat(parallelCategory));

namespace {

/// This process's place in the job (0 of 1 without a launcher).
int worldRank = 0, worldSize = 1;

/// One line on stderr; under a launcher it names the rank and ends every
/// rank, since the others would otherwise wait in their next collective.
int fatal(const llvm::Twine &message) {
  // One write per line: the ranks share the launcher's stderr, and a line
  // written in pieces interleaves with another rank's.
  std::string line = "amp-run: error: ";
  if (worldSize > 1)
    line += "rank " + std::to_string(worldRank) + ": ";
  line += message.str() + "\n";
  llvm::errs() << line;
  if (worldSize > 1) {
    llvm::errs().flush();
    amprt_comm_abort(1);
  }
  return 1;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

/// A number for the JSON report: JSON has no NaN or infinity, so a
/// non-finite value is written as null (docs/amp-run.md).
llvm::json::Value jsonNumber(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

/// The host's memory, as the runtime's CPU context reports it.
uint64_t hostMemory() {
  size_t bytes = SIZE_MAX;
  if (auto host = runner::createContext(AMPRT_DEVICE_CPU))
    amprt_memory_capacity(host->get(), &bytes);
  else
    llvm::consumeError(host.takeError());
  return bytes;
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

/// Fails now, rather than after the work, when `path` cannot be written.
std::optional<std::string> unwritable(StringRef flag, StringRef path) {
  if (path.empty())
    return std::nullopt;
  std::error_code ec;
  llvm::raw_fd_ostream probe(path, ec);
  if (!ec)
    return std::nullopt;
  return ("cannot write " + flag + " '" + path + "': " + ec.message()).str();
}

/// Writes `value` as indented JSON to `path` (named by `flag` in errors).
llvm::Error writeJSON(StringRef path, StringRef flag, llvm::json::Value value) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + flag + " '" + path +
                                   "': " + ec.message());
  out << llvm::formatv("{0:2}", value) << "\n";
  out.close();
  if (out.has_error()) {
    std::string why = out.error().message();
    out.clear_error();
    return llvm::createStringError("cannot write " + flag + " '" + path +
                                   "': " + why);
  }
  return llvm::Error::success();
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
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return llvm::createStringError("cannot write --validate-annotate '" + path +
                                   "': " + ec.message());
  input->print(out);
  out << "\n";
  return llvm::Error::success();
}

/// Turns an error into amp-run's one-line diagnostic and exit status.
int fatal(llvm::Error error) { return fatal(llvm::toString(std::move(error))); }

/// The --data set, checked against the model's `features` per example.
llvm::Expected<amp::run::Dataset> loadDataset(int64_t features,
                                              int64_t classes) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(message);
  };
  StringRef name = data;
  if (name == "synthetic") {
    uint64_t examples = 4096 + 1024, bytes = 0;
    if (__builtin_mul_overflow(examples + (uint64_t)classes,
                               (uint64_t)features * 4, &bytes) ||
        bytes > hostMemory())
      return error("synthetic data of " + std::to_string(features) +
                   " features per example would need more memory than "
                   "this machine has");
    return amp::run::makeSynthetic(features, classes, 4096, 1024, seed);
  }
  if (!name.starts_with("fashion-mnist"))
    return error("--data must be synthetic or fashion-mnist[:DIR], got '" +
                 name + "'");
  std::string dir = "/usr/share/datasets/fashion-mnist";
  if (name.starts_with("fashion-mnist:"))
    dir = name.substr(strlen("fashion-mnist:")).str();
  auto loaded = amp::run::loadFashionMnist(dir);
  if (!loaded)
    return loaded.takeError();
  if (loaded->train.features != features)
    return error("the model's input holds " + std::to_string(features) +
                 " features per example; Fashion-MNIST has " +
                 std::to_string(loaded->train.features));
  return loaded;
}

/// The last of `roles` that is `role`, or -1.
int lastWithRole(const std::vector<std::optional<tg::Role>> &roles,
                 tg::Role role) {
  for (int i = (int)roles.size() - 1; i >= 0; --i)
    if (roles[i] == role)
      return i;
  return -1;
}

/// Runs an eval function (`evalFn`, `numResults` results) on `params` in
/// order with `input` at argument `inputIndex`, and owns its results.
llvm::Expected<std::vector<runner::TensorPtr>>
runEval(amprt_context *ctx, runner::StepFn evalFn, size_t numResults,
        const std::vector<amprt_tensor *> &params, int inputIndex,
        amprt_tensor *input) {
  std::vector<amprt_tensor *> args;
  size_t p = 0;
  for (size_t i = 0; i < params.size() + 1; ++i)
    args.push_back((int)i == inputIndex ? input : params[p++]);
  std::vector<void *> raw(numResults, nullptr);
  int32_t status = evalFn(ctx, (void **)args.data(), raw.data());
  std::vector<runner::TensorPtr> results;
  for (void *r : raw)
    results.emplace_back(static_cast<amprt_tensor *>(r));
  if (status != AMPRT_OK)
    return llvm::createStringError(amprt_context_error(ctx));
  return results;
}

/// The fraction of `test` that @`name` (`eval`, compiled as `evalFn`)
/// classifies right with `params`, and the number of examples scored. The
/// function takes the params in order and an input (tg.role "input") and
/// returns logits (tg.role "logits").
llvm::Expected<std::pair<double, int64_t>>
testAccuracy(amprt_context *ctx, StringRef name, const runner::Signature &eval,
             runner::StepFn evalFn, const std::vector<amprt_tensor *> &params,
             const amp::run::Split &test, int64_t features) {
  int evalInput = lastWithRole(eval.argRoles, tg::Role::Input);
  int logitsIndex = lastWithRole(eval.resultRoles, tg::Role::Logits);
  if (evalInput < 0 || logitsIndex < 0 ||
      params.size() + 1 != eval.argTypes.size())
    return llvm::createStringError(
        "@" + name +
        " must take the params in order and an input (tg.role \"input\") and "
        "return tg.role \"logits\"");
  RankedTensorType evalInputType = eval.argTypes[evalInput];
  int64_t evalBatch = evalInputType.getDimSize(0);
  RankedTensorType logitsType = eval.resultTypes[logitsIndex];
  int64_t classes = logitsType.getDimSize(1);
  auto logitsF32 = RankedTensorType::get(
      logitsType.getShape(), Float32Type::get(logitsType.getContext()));
  int64_t correct = 0, seen = 0;
  // The last batch wraps around to the first examples so every test
  // example is scored once and batch statistics see real images.
  std::vector<float> xEval(evalBatch * features);
  std::vector<float> values(evalBatch * classes);
  for (int64_t start = 0; start < test.count; start += evalBatch) {
    int64_t real = std::min(evalBatch, test.count - start);
    for (int64_t b = 0; b < evalBatch; ++b)
      std::copy_n(&test.x[((start + b) % test.count) * features], features,
                  &xEval[b * features]);
    auto x = runner::tensorFromFloats(ctx, evalInputType, xEval.data());
    if (!x)
      return x.takeError();
    auto evaluated = runEval(ctx, evalFn, eval.resultTypes.size(), params,
                             evalInput, x->get());
    if (!evaluated)
      return llvm::createStringError("evaluation failed: " +
                                     llvm::toString(evaluated.takeError()));
    std::vector<runner::TensorPtr> results = std::move(*evaluated);
    auto wide = runner::makeTensor(ctx, logitsF32);
    if (!wide)
      return wide.takeError();
    if (amprt_cast(ctx, results[logitsIndex].get(), wide->get()) != AMPRT_OK ||
        amprt_tensor_read(wide->get(), values.data(), values.size() * 4) !=
            AMPRT_OK)
      return runner::runtimeError("reading the logits");
    for (int64_t b = 0; b < real; ++b) {
      int64_t best =
          std::max_element(&values[b * classes], &values[(b + 1) * classes]) -
          &values[b * classes];
      correct += best == test.y[start + b];
    }
    seen += real;
  }
  return std::make_pair(seen ? double(correct) / seen : 0.0, seen);
}

/// The f32 step instrumented for --validate: autodiff, the probes where
/// the precision pass would run (same colouring), loss scaling as the mixed
/// step has it (so backward ops see the same scaled values), and the
/// gradient norms the optimizers receive.
void buildValidationPipeline(PassManager &pm, ArrayRef<std::string> functions) {
  pm.addPass(amp::createTGAutodiffPass());
  amp::ValidationProbesPassOptions probes;
  probes.precision = precision;
  probes.functions.assign(functions.begin(), functions.end());
  probes.listsFile = listsFile;
  pm.addPass(amp::createValidationProbesPass(probes));
  if (precision != "bf16") {
    amp::LossScalingPassOptions scaling;
    scaling.mode = lossScaling;
    scaling.initScale = initScale;
    pm.addPass(amp::createLossScalingPass(scaling));
  }
  pm.addPass(gradientProbes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

} // namespace

static int runMain(int argc, char **argv);

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return amp::runWithLargeStack([&] { return runMain(argc, argv); });
}

static int runMain(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "amp-run: train a tg training step\n");
  amp::initializeJitTarget();

  if (precision != "f32" && precision != "f16" && precision != "bf16" &&
      precision != "fp8")
    return fatal("--precision must be f32, f16, bf16 or fp8, got '" +
                 precision + "'");
  if (steps < 0 || epochs < 1 || batchFlag < 0 || logEvery < 1)
    return fatal("--steps, --batch must be >= 0 and --epochs, --log-every "
                 ">= 1");
  if (!std::isfinite(lr) || lr < 0)
    return fatal("--lr must be a finite value >= 0, got " + std::to_string(lr));
  if (!std::isfinite(initScale) || initScale <= 0)
    return fatal("--init-scale must be a finite value > 0, got " +
                 std::to_string(initScale));
  // Files written after the work: fail now, not after it, when one cannot
  // be written.
  for (auto [flag, path] :
       {std::pair<StringRef, StringRef>{"--emit-obj", emitObj},
        {"--validate-fix", validateFix},
        {"--validate-annotate", validateAnnotate}})
    if (std::optional<std::string> why = unwritable(flag, path))
      return fatal(*why);
  if (precision == "f32" && !listsFile.empty())
    return fatal("--lists-file needs --precision=f16, bf16 or fp8");
  bool validating = validate.getNumOccurrences() > 0;
  int64_t validateSteps = 5;
  amp::run::ValidationTolerances tolerances;
  if (validating) {
    if (precision == "f32")
      return fatal("--validate compares a mixed-precision step with f32: "
                   "give --precision=f16, bf16 or fp8");
    if (!validate.empty() &&
        (StringRef(validate).getAsInteger(10, validateSteps) ||
         validateSteps < 1))
      return fatal("--validate=N needs a step count >= 1, got '" + validate +
                   "'");
    tolerances.relativeF16 = validateTolF16;
    tolerances.relativeBF16 = validateTolBF16;
    tolerances.flushed = validateMaxFlushed;
    for (double t :
         {tolerances.relativeF16, tolerances.relativeBF16, tolerances.flushed})
      if (!std::isfinite(t) || t <= 0)
        return fatal("the --validate-tol-* and --validate-max-flushed "
                     "tolerances must be finite values > 0");
  } else if (!validateFix.empty() || !validateAnnotate.empty() ||
             validateTolF16.getNumOccurrences() ||
             validateTolBF16.getNumOccurrences() ||
             validateMaxFlushed.getNumOccurrences()) {
    return fatal("--validate-fix, --validate-annotate and the tolerance "
                 "options need --validate");
  }

  // The process group: alone, or one rank of a launcher's job.
  std::string commName =
      commFlag == "auto" ? amp::run::detectLauncher() : std::string(commFlag);
  if (commName != "self" && commName != "mpi" && commName != "nccl")
    return fatal("--comm must be auto, self, mpi or nccl, got '" + commFlag +
                 "'");
  if (!std::isfinite(commTimeout) || commTimeout <= 0)
    return fatal("--comm-timeout must be a finite number of seconds > 0");
  if (gradComm != "f32" && gradComm != "f16" && gradComm != "bf16")
    return fatal("--grad-comm must be f32, f16 or bf16, got '" + gradComm +
                 "'");
  if (bucketBytes < 1)
    return fatal("--bucket-bytes must be >= 1");
  if (commName == "nccl" &&
      (device.empty() ? amprt_cuda_device_count() == 0 : device != "cuda"))
    return fatal("--comm=nccl all-reduces CUDA tensors: it needs "
                 "--device=cuda (on the CPU, use --comm=mpi)");
  auto fault = amp::run::parseFault(injectFault);
  if (!fault)
    return fatal(fault.takeError());
  // Start-up waits for the slowest rank's compilation; --comm-timeout
  // applies from the first step on.
  constexpr double kStartupTimeout = 600;
  if (amprt_comm_init(commName.c_str(),
                      std::max<double>(commTimeout, kStartupTimeout)) !=
      AMPRT_OK)
    return fatal("--comm=" + commName + ": " + amprt_last_error());
  worldRank = amprt_comm_rank();
  worldSize = amprt_comm_size();
  bool parallel = worldSize > 1 || dataParallel ||
                  gradComm.getNumOccurrences() > 0 ||
                  bucketBytes.getNumOccurrences() > 0;
  if (fault->kind != amp::run::Fault::None && fault->rank >= worldSize)
    return fatal("--inject-fault names rank " + std::to_string(fault->rank) +
                 " of a job of " + std::to_string(worldSize));
  if (validating && worldSize > 1)
    return fatal("--validate compares steps in one process: run it without "
                 "mpirun");
  bool leader = worldRank == 0;

  // Device.
  std::string deviceName = device;
  if (deviceName.empty()) {
    deviceName = amprt_cuda_device_count() > 0 ? "cuda" : "cpu";
    // A driver without a usable device (a backend that did not load, a
    // driver error) is not "no GPU": say why the CPU trains.
    llvm::StringRef why = amprt_cuda_unavailable_reason();
    if (deviceName == "cpu" && leader && !why.starts_with("no CUDA driver"))
      llvm::errs() << "amp-run: warning: training on the CPU: a CUDA driver "
                      "is present but no device is usable: "
                   << why << "\n";
  }
  if (deviceName != "cpu" && deviceName != "cuda")
    return fatal("--device must be cpu or cuda, got '" + deviceName + "'");
  // Ranks on one machine take one GPU each.
  int ordinal = 0;
  if (deviceName == "cuda" && worldSize > 1)
    ordinal = amp::run::localRank() % std::max(1, amprt_cuda_device_count());
  auto created = runner::createContext(
      deviceName == "cuda" ? AMPRT_DEVICE_CUDA : AMPRT_DEVICE_CPU, ordinal);
  if (!created)
    return fatal("--device=" + deviceName + ": " +
                 llvm::toString(created.takeError()));
  runner::ContextPtr ownedContext = std::move(*created);
  amprt_context *ctx = ownedContext.get();

  // Parse and compile.
  DialectRegistry registry;
  amp::registerAllForJit(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return fatal("cannot parse '" + inputFile + "'");
  auto entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!entry)
    return fatal("no function @" + entryName + " in '" + inputFile +
                 "' (use --entry)");
  std::string evalName = evalEntry;
  if (evalName.empty() && module->lookupSymbol<func::FuncOp>("predict"))
    evalName = "predict";
  if (!evalName.empty() && !module->lookupSymbol<func::FuncOp>(evalName))
    return fatal("no function @" + evalName + " (--eval-entry)");

  PassManager pm(&context);
  if (precision == "f32") {
    pm.addPass(amp::createTGAutodiffPass());
    if (parallel) {
      amp::DataParallelPassOptions options;
      options.gradComm = gradComm;
      options.bucketBytes = bucketBytes;
      pm.addPass(amp::createDataParallelPass(options));
    }
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  } else {
    amp::AmpPipelineOptions options;
    options.precision = precision;
    options.mode = lossScaling;
    options.initScale = initScale;
    options.listsFile = listsFile;
    if (parallel) {
      options.dataParallel = true;
      options.gradComm = gradComm;
      options.bucketBytes = bucketBytes;
      options.reduceAmax = reduceAmax;
    }
    amp::buildAmpPipeline(pm, options);
  }
  // Synthetic data takes its class count from the loss's logits.
  int64_t lossClasses = amp::tg::lossClassCount(entry).value_or(10);
  // --validate: the f32 step with probes, compiled beside the mixed one.
  OwningOpRef<ModuleOp> f32Module;
  if (validating) {
    f32Module = module->clone();
    pm.addPass(gradientProbes());
    PassManager f32Pipeline(&context);
    std::vector<std::string> probed = {entryName};
    if (!evalName.empty())
      probed.push_back(evalName);
    buildValidationPipeline(f32Pipeline, probed);
    if (failed(f32Pipeline.run(*f32Module)))
      return fatal("instrumenting the f32 step for --validate failed (see "
                   "the diagnostics above)");
  }
  if (failed(pm.run(*module)))
    return fatal("the amp pipeline failed (see the diagnostics above)");
  // Every rank must run the same collectives in the same order on batches
  // of one shape: compare the compiled step and the flags that shape the
  // run before the first collective of a step could wait on a mismatch.
  if (worldSize > 1) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    os << data << ' ' << seed << ' ' << steps << ' ' << epochs << ' ' << lr;
    if (amprt_comm_agree(amp::run::fingerprint(text),
                         "the compiled step and its flags") != AMPRT_OK)
      return fatal(amprt_last_error());
  }
  size_t deviceMemory = 0;
  amprt_memory_capacity(ctx, &deviceMemory);
  for (StringRef name : {StringRef(entryName), StringRef(evalName)})
    if (!name.empty())
      if (llvm::Error error = runner::checkSignature(
              module->lookupSymbol<func::FuncOp>(name), deviceMemory))
        return fatal(std::move(error));
  runner::Signature eval;
  if (!evalName.empty())
    eval = runner::Signature::of(module->lookupSymbol<func::FuncOp>(evalName));
  auto bound = runner::TrainingStep::bind(
      entryName,
      runner::Signature::of(module->lookupSymbol<func::FuncOp>(entryName)));
  if (!bound)
    return fatal(bound.takeError());
  runner::TrainingStep step = std::move(*bound);
  // fp8: the scales and their saturation, read around each step only when
  // a report asks for them (read from the step before it is lowered).
  amp::run::Fp8ScaleTracker fp8Scales(
      module->lookupSymbol<func::FuncOp>(entryName));
  std::vector<amp::run::ProbeInfo> f32Probes, mixedProbes;
  if (validating) {
    auto probes =
        amp::run::readProbes(module->lookupSymbol<func::FuncOp>(entryName));
    if (!probes)
      return fatal(probes.takeError());
    mixedProbes = std::move(*probes);
  }

  // The lowering, with --lower-options; false with the reason set when
  // they do not parse.
  std::string optionError;
  auto buildLowering = [&](PassManager &pm) {
    return succeeded(amp::buildLowerToLLVMPipeline(
        pm, lowerOptions, [&](const Twine &message) {
          optionError = message.str();
          return failure();
        }));
  };
  PassManager lower(&context);
  if (!buildLowering(lower))
    return fatal("--lower-options: " + optionError);
  if (failed(lower.run(*module)))
    return fatal("lowering to the runtime failed");
  runner::JitModule::Options jitOptions;
  jitOptions.keepObject = !emitObj.empty();
  auto jit = runner::JitModule::create(*module, jitOptions);
  if (!jit)
    return fatal(jit.takeError());
  if (!emitObj.empty())
    if (llvm::Error error = jit->dumpToObjectFile(emitObj))
      return fatal(std::move(error));
  auto stepFn = jit->lookup(entryName);
  if (!stepFn)
    return fatal(stepFn.takeError());
  runner::StepFn evalFn = nullptr;
  if (!evalName.empty()) {
    auto found = jit->lookup(evalName);
    if (!found)
      return fatal(found.takeError());
    evalFn = *found;
  }

  runner::Signature f32Signature;
  std::optional<runner::JitModule> f32Jit;
  runner::StepFn f32StepFn = nullptr, f32EvalFn = nullptr;
  std::vector<amp::run::ProbeInfo> f32EvalProbes;
  int f32EvalInput = -1;
  size_t f32EvalResults = 0;
  if (validating) {
    auto f32Entry = f32Module->lookupSymbol<func::FuncOp>(entryName);
    if (llvm::Error error = runner::checkSignature(f32Entry, deviceMemory))
      return fatal(std::move(error));
    f32Signature = runner::Signature::of(f32Entry);
    auto probes = amp::run::readProbes(f32Entry);
    if (!probes)
      return fatal(probes.takeError());
    f32Probes = std::move(*probes);
    // The eval function's ops are probed too (on the training batch, with
    // the step's params) when it takes a batch of the same shape, so a fix
    // covers the ops that compute the test accuracy.
    if (!evalName.empty()) {
      auto f32Eval = f32Module->lookupSymbol<func::FuncOp>(evalName);
      int evalInput = lastWithRole(eval.argRoles, tg::Role::Input);
      if (evalInput >= 0 && eval.argTypes[evalInput] == step.inputType() &&
          eval.argTypes.size() == step.params().size() + 1) {
        auto evalProbes = amp::run::readProbes(f32Eval);
        if (!evalProbes)
          return fatal(evalProbes.takeError());
        int64_t firstId = 0;
        for (const amp::run::ProbeInfo &p : f32Probes)
          firstId = std::max(firstId, p.id + 1);
        for (amp::run::ProbeInfo &p : *evalProbes)
          p.id += firstId;
        f32EvalProbes = std::move(*evalProbes);
        f32EvalInput = evalInput;
        f32EvalResults = f32Eval.getNumResults();
      }
    }
    PassManager lowerF32(&context);
    if (!buildLowering(lowerF32))
      return fatal("--lower-options: " + optionError);
    if (failed(lowerF32.run(*f32Module)))
      return fatal("lowering the f32 step for --validate failed");
    auto compiled = runner::JitModule::create(*f32Module, {});
    if (!compiled)
      return fatal(compiled.takeError());
    f32Jit = std::move(*compiled);
    auto found = f32Jit->lookup(entryName);
    if (!found)
      return fatal(found.takeError());
    f32StepFn = *found;
  }

  // The step's inputs.
  RankedTensorType inputType = step.inputType();
  RankedTensorType labelType = step.labelType();
  if (inputType.getRank() == 0 || inputType.getDimSize(0) < 1)
    return fatal("the input argument (" + typeString(inputType) +
                 ") needs a leading batch dimension of at least 1");
  int64_t batch = inputType.getDimSize(0);
  if (batchFlag && batchFlag != batch)
    return fatal("--batch=" + std::to_string(batchFlag) +
                 " but the model's input batch is " + std::to_string(batch));
  int64_t features = inputType.getNumElements() / std::max<int64_t>(batch, 1);
  if (labelType.getRank() != 1 || labelType.getDimSize(0) != batch)
    return fatal("the label argument must be [" + std::to_string(batch) +
                 "] class indices");

  // Data.
  auto loaded = loadDataset(features, lossClasses);
  if (!loaded)
    return fatal(loaded.takeError());
  amp::run::Dataset dataset = std::move(*loaded);

  std::mt19937 rng(seed);
  runner::TrainingStep::StartValues start;
  start.learningRate = lr;
  // --lr given on the command line wins over the IR's value.
  start.overrideLearningRate = lr.getNumOccurrences() > 0;
  start.initScale = initScale;
  if (llvm::Error error = step.initialize(ctx, rng, start))
    return fatal(std::move(error));
  // Every rank starts from rank 0's state (the same seed draws the same
  // values; the broadcast makes that a guarantee, not a coincidence).
  if (worldSize > 1) {
    const runner::Signature &sig = step.signature();
    for (size_t i = 0; i < sig.argRoles.size(); ++i)
      if (amprt_tensor *state = step.argument(i);
          state && sig.argRoles[i] != tg::Role::Communicator)
        if (amprt_comm_broadcast(state, 0) != AMPRT_OK)
          return fatal(std::string("broadcasting the initial state: ") +
                       amprt_last_error());
  }

  // Each step reads one global batch of worldSize * batch examples of the
  // epoch's shuffled order (the same on every rank: same seed); rank r
  // takes its r-th slice, so N ranks see what one process with an N times
  // larger batch would.
  int64_t globalBatch = batch * worldSize;
  int64_t perEpoch = dataset.train.count / globalBatch;
  if (perEpoch < 1)
    return fatal("the training split is smaller than one batch");
  int64_t totalSteps = steps;
  if (steps == 0 &&
      __builtin_mul_overflow(perEpoch, (int64_t)epochs, &totalSteps))
    return fatal("--epochs=" + std::to_string(epochs) + " at " +
                 std::to_string(perEpoch) +
                 " steps an epoch is more steps than 64 bits count");
  std::vector<int64_t> order(dataset.train.count);
  std::iota(order.begin(), order.end(), 0);

  // The batch of step `s`: a fresh shuffle of the training split at the
  // start of every epoch.
  std::vector<float> xBatch(batch * features), yBatch(batch);
  auto nextBatch = [&](int64_t s)
      -> llvm::Expected<std::pair<runner::TensorPtr, runner::TensorPtr>> {
    int64_t slot = s % perEpoch;
    if (slot == 0)
      std::shuffle(order.begin(), order.end(), rng);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t e = order[slot * globalBatch + worldRank * batch + b];
      std::copy_n(&dataset.train.x[e * features], features,
                  &xBatch[b * features]);
      yBatch[b] = dataset.train.y[e];
    }
    if (fault->kind == amp::run::Fault::Inf && fault->at(worldRank, s))
      xBatch[0] = INFINITY;
    auto x = runner::tensorFromFloats(ctx, inputType, xBatch.data());
    if (!x)
      return x.takeError();
    auto y = runner::tensorFromFloats(ctx, labelType, yBatch.data());
    if (!y)
      return y.takeError();
    return std::make_pair(std::move(*x), std::move(*y));
  };

  if (validating) {
    if (!f32EvalProbes.empty()) {
      auto found = f32Jit->lookup(evalName);
      if (!found)
        return fatal(found.takeError());
      f32EvalFn = *found;
    }
    amp::run::Validation validation(precision, tolerances);
    // bind() found one in the same function.
    int lossResult = lastWithRole(f32Signature.resultRoles, tg::Role::Loss);
    for (int64_t s = 0; s < validateSteps; ++s) {
      auto batchTensors = nextBatch(s);
      if (!batchTensors)
        return fatal(batchTensors.takeError());
      auto [x, y] = std::move(*batchTensors);
      auto f32Results =
          step.runAside(f32StepFn, f32Signature, ctx, x.get(), y.get());
      if (!f32Results)
        return fatal("the f32 step of --validate failed at step " +
                     std::to_string(s) + ": " +
                     llvm::toString(f32Results.takeError()));
      auto f32Loss = runner::readScalar((*f32Results)[lossResult].get());
      if (!f32Loss)
        return fatal(f32Loss.takeError());
      std::vector<std::pair<amp::run::ProbeInfo, std::vector<float>>> measured;
      auto readProbeValues = [&](ArrayRef<amp::run::ProbeInfo> probes,
                                 ArrayRef<runner::TensorPtr> results) {
        for (const amp::run::ProbeInfo &probe : probes) {
          amprt_tensor *t = results[probe.resultNumber].get();
          std::vector<float> values(amprt_tensor_numel(t));
          if (amprt_tensor_read(t, values.data(), values.size() * 4) !=
              AMPRT_OK)
            return false;
          measured.push_back({probe, std::move(values)});
        }
        return true;
      };
      if (!readProbeValues(f32Probes, *f32Results))
        return fatal(runner::runtimeError("reading a probe"));
      if (f32EvalFn) {
        auto evalResults = runEval(ctx, f32EvalFn, f32EvalResults,
                                   step.params(), f32EvalInput, x.get());
        if (!evalResults)
          return fatal("the f32 @" + evalName + " of --validate failed: " +
                       llvm::toString(evalResults.takeError()));
        if (!readProbeValues(f32EvalProbes, *evalResults))
          return fatal(runner::runtimeError("reading a probe"));
      }
      auto outcome = step.run(*stepFn, ctx, std::move(x), std::move(y));
      if (!outcome)
        return fatal("step " + std::to_string(s) +
                     " failed: " + llvm::toString(outcome.takeError()));
      std::vector<std::pair<amp::run::ProbeInfo, float>> mixedGradients;
      for (const amp::run::ProbeInfo &probe : mixedProbes)
        for (auto &[number, tensor] : outcome->outputs)
          if (number == probe.resultNumber) {
            auto value = runner::readScalar(tensor.get());
            if (!value)
              return fatal(value.takeError());
            mixedGradients.push_back({probe, *value});
          }
      validation.addStep(measured, mixedGradients, *f32Loss, outcome->loss,
                         outcome->skipped || !outcome->committed);
    }
    validation.finish();
    validation.print(llvm::errs());
    if (!reportPath.empty())
      if (llvm::Error error = writeJSON(
              reportPath, "--report",
              llvm::json::Object{{"file", inputFile},
                                 {"precision", precision},
                                 {"device", deviceName},
                                 {"batch", batch},
                                 {"validation", validation.toJSON()}}))
        return fatal(std::move(error));
    if (!validateFix.empty())
      if (llvm::Error error =
              writeJSON(validateFix, "--validate-fix", validation.listsFix()))
        return fatal(std::move(error));
    if (!validateAnnotate.empty())
      if (llvm::Error error = annotateFailures(
              context, validation.failingLocations(), validateAnnotate))
        return fatal(std::move(error));
    return 0;
  }

  llvm::json::Array stepRecords;
  int64_t skipped = 0;
  double lastLoss = 0, trainSeconds = 0;
  size_t peakStepBytes = 0, stepOutputBytes = 0, peakActivationBytes = 0;
  amprt_comm_set_timeout(commTimeout);
  uint64_t bytesBefore = 0, collectivesBefore = 0;
  amprt_comm_stats(&bytesBefore, &collectivesBefore);
  bool trackFp8 = !reportPath.empty() && !fp8Scales.empty();
  auto stepArguments = [&] {
    std::vector<amprt_tensor *> out(step.numArguments());
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = step.argument(i);
    return out;
  };
  auto wallStart = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < totalSteps; ++s) {
    if (fault->kind != amp::run::Fault::Inf && fault->at(worldRank, s))
      amp::run::injectProcessFault(*fault);
    auto batchTensors = nextBatch(s);
    if (!batchTensors)
      return fatal(batchTensors.takeError());
    if (trackFp8)
      if (llvm::Error error = fp8Scales.beforeStep(stepArguments().data()))
        return fatal(std::move(error));
    auto outcome = step.run(*stepFn, ctx, std::move(batchTensors->first),
                            std::move(batchTensors->second));
    if (!outcome)
      return fatal("step " + std::to_string(s) +
                   " failed: " + llvm::toString(outcome.takeError()));
    if (trackFp8)
      if (llvm::Error error = fp8Scales.afterStep(stepArguments().data()))
        return fatal(std::move(error));
    peakStepBytes = std::max(peakStepBytes, outcome->peakBytes);
    stepOutputBytes = std::max(stepOutputBytes, outcome->outputBytes);
    peakActivationBytes =
        std::max(peakActivationBytes, outcome->transientBytes);
    trainSeconds += outcome->seconds;
    float loss = outcome->loss;
    if (!outcome->committed)
      return fatal(
          "step " + std::to_string(s) + ": the loss is " +
          (std::isnan(loss) ? "NaN" : "inf") + " in the " + precision +
          " step and loss scaling does not explain it (the step was not "
          "skipped); stopping with the last good parameters. " +
          (precision == "f32"
               ? std::string("Lower --lr?")
               : "Run with --validate to find the ops that break in " +
                     precision + ", or lower --lr"));
    skipped += outcome->skipped;
    lastLoss = loss;
    float newScale = outcome->scaleAfter.value_or(1.0f);

    llvm::json::Object record{{"step", s},
                              {"loss", jsonNumber(loss)},
                              {"skipped", outcome->skipped},
                              {"time_ms", outcome->seconds * 1e3}};
    if (step.hasLossScale())
      record["loss_scale"] = jsonNumber(newScale);
    stepRecords.push_back(std::move(record));
    if (leader && ((s + 1) % logEvery == 0 || s + 1 == totalSteps))
      llvm::errs() << llvm::format(
          "step %lld/%lld  loss %.4f  scale %g  skipped %lld  %.0f "
          "samples/s\n",
          (long long)(s + 1), (long long)totalSteps, loss, newScale,
          (long long)skipped, (s + 1) * globalBatch / trainSeconds);
  }
  uint64_t bytesAfter = 0, collectivesAfter = 0;
  amprt_comm_stats(&bytesAfter, &collectivesAfter);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wallStart)
                    .count();

  // Test accuracy through the forward function: params in order, then input.
  double accuracy = -1;
  if (evalFn && leader) { // rank 0 evaluates, once
    auto scored = testAccuracy(ctx, evalName, eval, evalFn, step.params(),
                               dataset.test, features);
    if (!scored)
      return fatal(scored.takeError());
    accuracy = scored->first;
    llvm::errs() << llvm::format("test accuracy %.4f (%lld examples)\n",
                                 accuracy, (long long)scored->second);
  }

  // Rank 0 writes the report; a path with {rank} gets one from every rank.
  std::string rankReport = reportPath;
  bool reportPerRank = StringRef(rankReport).contains("{rank}");
  for (size_t at; (at = rankReport.find("{rank}")) != std::string::npos;)
    rankReport.replace(at, 6, std::to_string(worldRank));
  if (!rankReport.empty() && (leader || reportPerRank)) {
    // Ranks that agree on every update end with the same parameters: a
    // fingerprint of their bytes lets a test compare them.
    std::string paramBytes;
    for (amprt_tensor *param : step.params()) {
      std::string bytes(amprt_tensor_numel(param) *
                            amprt_dtype_size(amprt_tensor_dtype(param)),
                        '\0');
      if (amprt_tensor_read(param, bytes.data(), bytes.size()) != AMPRT_OK)
        return fatal(runner::runtimeError("reading the parameters"));
      paramBytes += bytes;
    }
    llvm::json::Object report{
        {"file", inputFile},
        {"precision", precision},
        {"device", deviceName},
        {"batch", batch},
        {"steps", totalSteps},
        {"skipped_steps", skipped},
        {"final_loss", jsonNumber(lastLoss)},
        {"peak_step_bytes", (int64_t)peakStepBytes},
        {"step_output_bytes", (int64_t)stepOutputBytes},
        {"peak_activation_bytes", (int64_t)peakActivationBytes},
        {"train_seconds", trainSeconds},
        {"wall_seconds", wall},
        {"samples_per_second",
         jsonNumber(totalSteps * globalBatch / trainSeconds)},
        {"fp8_scales", fp8Scales.toJson(stepArguments().data())},
        {"params_fingerprint",
         llvm::formatv("{0:x16}", amp::run::fingerprint(paramBytes)).str()},
        {"per_step", std::move(stepRecords)}};
    if (parallel)
      report["data_parallel"] = llvm::json::Object{
          {"rank", worldRank},
          {"ranks", worldSize},
          {"backend", amprt_comm_backend()},
          {"global_batch", globalBatch},
          {"grad_comm", gradComm},
          {"bucket_bytes", (int64_t)bucketBytes},
          {"reduce_amax", precision == "fp8" && reduceAmax},
          {"collectives_per_step",
           totalSteps
               ? double(collectivesAfter - collectivesBefore) / totalSteps
               : 0.0},
          {"bytes_sent_per_step",
           totalSteps ? double(bytesAfter - bytesBefore) / totalSteps : 0.0}};
    if (accuracy >= 0)
      report["final_accuracy"] = accuracy;
    if (llvm::Error error =
            writeJSON(rankReport, "--report", std::move(report)))
      return fatal(std::move(error));
  }
  if (amprt_comm_finalize() != AMPRT_OK)
    return fatal(amprt_last_error());
  return 0;
}
