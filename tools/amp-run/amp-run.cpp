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
#include "amp/Conversion/Passes.h"
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
                                      cl::desc("f32, f16 or bf16"));
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
static cl::opt<int64_t> logEvery("log-every", cl::init(100),
                                 cl::desc("Progress every N steps"));
static cl::opt<std::string>
    emitObj("emit-obj", cl::init(""),
            cl::desc("Also write the compiled step as an object file here"));

namespace {

int fatal(const llvm::Twine &message) {
  llvm::errs() << "amp-run: error: " << message << "\n";
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

/// The fraction of `test` that @`name` (`eval`, compiled as `evalFn`)
/// classifies right with `params`, and the number of examples scored. The
/// function takes the params in order and an input (tg.role "input") and
/// returns logits (tg.role "logits").
llvm::Expected<std::pair<double, int64_t>>
testAccuracy(amprt_context *ctx, StringRef name, const runner::Signature &eval,
             runner::StepFn evalFn, const std::vector<amprt_tensor *> &params,
             const amp::run::Split &test, int64_t features) {
  int evalInput = -1, logitsIndex = -1;
  for (size_t i = 0; i < eval.argRoles.size(); ++i)
    if (eval.argRoles[i] == tg::Role::Input)
      evalInput = i;
  for (size_t i = 0; i < eval.resultRoles.size(); ++i)
    if (eval.resultRoles[i] == tg::Role::Logits)
      logitsIndex = i;
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
    std::vector<amprt_tensor *> args;
    size_t p = 0;
    for (size_t i = 0; i < eval.argTypes.size(); ++i)
      args.push_back((int)i == evalInput ? x->get() : params[p++]);
    std::vector<void *> raw(eval.resultTypes.size(), nullptr);
    int32_t status = evalFn(ctx, (void **)args.data(), raw.data());
    std::vector<runner::TensorPtr> results;
    for (void *r : raw)
      results.emplace_back(static_cast<amprt_tensor *>(r));
    if (status != AMPRT_OK)
      return llvm::createStringError(std::string("evaluation failed: ") +
                                     amprt_context_error(ctx));
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

  if (precision != "f32" && precision != "f16" && precision != "bf16")
    return fatal("--precision must be f32, f16 or bf16, got '" + precision +
                 "'");
  if (steps < 0 || epochs < 1 || batchFlag < 0 || logEvery < 1)
    return fatal("--steps, --batch must be >= 0 and --epochs, --log-every "
                 ">= 1");
  if (!std::isfinite(lr) || lr < 0)
    return fatal("--lr must be a finite value >= 0, got " + std::to_string(lr));
  if (!std::isfinite(initScale) || initScale <= 0)
    return fatal("--init-scale must be a finite value > 0, got " +
                 std::to_string(initScale));
  // The object file is written after compiling: fail now, not after the
  // work, when it cannot be written.
  if (!emitObj.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream probe(emitObj, ec);
    if (ec)
      return fatal("cannot write --emit-obj '" + emitObj +
                   "': " + ec.message());
  }

  // Device.
  std::string deviceName = device;
  if (deviceName.empty())
    deviceName = amprt_cuda_device_count() > 0 ? "cuda" : "cpu";
  if (deviceName != "cpu" && deviceName != "cuda")
    return fatal("--device must be cpu or cuda, got '" + deviceName + "'");
  auto created = runner::createContext(deviceName == "cuda" ? AMPRT_DEVICE_CUDA
                                                            : AMPRT_DEVICE_CPU);
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
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  } else {
    amp::AmpPipelineOptions options;
    options.precision = precision;
    options.mode = lossScaling;
    options.initScale = initScale;
    amp::buildAmpPipeline(pm, options);
  }
  // Synthetic data takes its class count from the loss's logits.
  int64_t lossClasses = amp::tg::lossClassCount(entry).value_or(10);
  if (failed(pm.run(*module)))
    return fatal("the amp pipeline failed (see the diagnostics above)");
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

  PassManager lower(&context);
  amp::buildLowerToLLVMPipeline(lower);
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

  int64_t perEpoch = dataset.train.count / batch;
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

  llvm::json::Array stepRecords;
  int64_t skipped = 0;
  double lastLoss = 0, trainSeconds = 0;
  size_t peakStepBytes = 0, stepOutputBytes = 0, peakActivationBytes = 0;
  std::vector<float> xBatch(batch * features), yBatch(batch);
  auto wallStart = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < totalSteps; ++s) {
    int64_t slot = s % perEpoch;
    if (slot == 0)
      std::shuffle(order.begin(), order.end(), rng);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t e = order[slot * batch + b];
      std::copy_n(&dataset.train.x[e * features], features,
                  &xBatch[b * features]);
      yBatch[b] = dataset.train.y[e];
    }
    auto x = runner::tensorFromFloats(ctx, inputType, xBatch.data());
    if (!x)
      return fatal(x.takeError());
    auto y = runner::tensorFromFloats(ctx, labelType, yBatch.data());
    if (!y)
      return fatal(y.takeError());
    auto outcome = step.run(*stepFn, ctx, std::move(*x), std::move(*y));
    if (!outcome)
      return fatal("step " + std::to_string(s) +
                   " failed: " + llvm::toString(outcome.takeError()));
    peakStepBytes = std::max(peakStepBytes, outcome->peakBytes);
    stepOutputBytes = std::max(stepOutputBytes, outcome->outputBytes);
    peakActivationBytes =
        std::max(peakActivationBytes, outcome->transientBytes);
    trainSeconds += outcome->seconds;
    float loss = outcome->loss;
    if (!outcome->committed)
      return fatal("step " + std::to_string(s) + ": the loss is " +
                   (std::isnan(loss) ? "NaN" : "inf") +
                   " in the f32 forward pass and no loss scaling can be "
                   "blamed; stopping with the last good parameters (lower "
                   "--lr?)");
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
    if ((s + 1) % logEvery == 0 || s + 1 == totalSteps)
      llvm::errs() << llvm::format(
          "step %lld/%lld  loss %.4f  scale %g  skipped %lld  %.0f "
          "samples/s\n",
          (long long)(s + 1), (long long)totalSteps, loss, newScale,
          (long long)skipped, (s + 1) * batch / trainSeconds);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wallStart)
                    .count();

  // Test accuracy through the forward function: params in order, then input.
  double accuracy = -1;
  if (evalFn) {
    auto scored = testAccuracy(ctx, evalName, eval, evalFn, step.params(),
                               dataset.test, features);
    if (!scored)
      return fatal(scored.takeError());
    accuracy = scored->first;
    llvm::errs() << llvm::format("test accuracy %.4f (%lld examples)\n",
                                 accuracy, (long long)scored->second);
  }

  if (!reportPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(reportPath, ec);
    if (ec)
      return fatal("cannot write --report '" + reportPath +
                   "': " + ec.message());
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
        {"samples_per_second", jsonNumber(totalSteps * batch / trainSeconds)},
        {"per_step", std::move(stepRecords)}};
    if (accuracy >= 0)
      report["final_accuracy"] = accuracy;
    out << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
    out.close();
    if (out.has_error()) {
      std::string why = out.error().message();
      out.clear_error();
      return fatal("cannot write --report '" + reportPath + "': " + why);
    }
  }
  return 0;
}
