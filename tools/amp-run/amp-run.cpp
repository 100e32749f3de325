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

/// One function's tensor signature and tg.role of every argument/result.
struct Signature {
  std::vector<RankedTensorType> argTypes, resultTypes;
  std::vector<std::optional<tg::Role>> argRoles, resultRoles;
  std::vector<tg::Initializer> argInits;
  /// tg.init_value of each argument (the first value of step state), if any.
  std::vector<std::optional<double>> argInitValues;
};

Signature signatureOf(func::FuncOp f) {
  Signature s;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    s.argTypes.push_back(cast<RankedTensorType>(f.getArgumentTypes()[i]));
    s.argRoles.push_back(tg::getArgumentRole(f, i));
    auto init = f.getArgAttrOfType<StringAttr>(i, "tg.init");
    // The module is verified, so a present tg.init names an initialiser.
    s.argInits.push_back(init ? *tg::symbolizeInitializer(init.getValue())
                              : tg::Initializer::GlorotUniform);
    s.argInitValues.push_back(tg::getInitValue(f, i));
  }
  for (unsigned i = 0; i < f.getNumResults(); ++i) {
    s.resultTypes.push_back(cast<RankedTensorType>(f.getResultTypes()[i]));
    s.resultRoles.push_back(tg::getResultRole(f, i));
  }
  return s;
}

/// The runtime's element type for `element`, if it has one.
std::optional<amprt_dtype> dtypeOf(Type element) {
  if (std::optional<int32_t> code = amp::runtimeDtypeCode(element))
    return static_cast<amprt_dtype>(*code);
  return std::nullopt;
}

/// The host's memory, as the runtime's CPU context reports it.
uint64_t hostMemory() {
  amprt_context *host = nullptr;
  size_t bytes = SIZE_MAX;
  if (amprt_context_create(AMPRT_DEVICE_CPU, 0, &host) == AMPRT_OK)
    amprt_memory_capacity(host, &bytes);
  amprt_context_destroy(host);
  return bytes;
}

/// Every argument and result of `f` must be a statically shaped tensor of a
/// type the runtime holds, and the arguments must fit in the memory of the
/// device they will live on (`memory` bytes). Checked with overflow-safe sizes
/// before anything is allocated, so a hostile shape is an error, not an abort
/// inside an allocator.
std::optional<std::string> checkSignature(func::FuncOp f, uint64_t memory) {
  uint64_t total = 0;
  auto check = [&](Type type, const char *what,
                   unsigned i) -> std::optional<std::string> {
    std::string where = std::string(what) + " #" + std::to_string(i) + " of @" +
                        f.getSymName().str();
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type;
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape())
      return where + " has type " + typeText +
             "; amp-run needs statically shaped tensors";
    std::optional<amprt_dtype> dtype = dtypeOf(ranked.getElementType());
    if (!dtype)
      return where + " has type " + typeText +
             "; the runtime holds f16, bf16, f32, f64, i32, i64 and i1";
    if (llvm::is_contained(ranked.getShape(), 0))
      return where + " (" + typeText +
             ") has no elements; amp-run trains on non-empty tensors (a "
             "batch of at least 1)";
    uint64_t bytes = amprt_dtype_size(*dtype);
    for (int64_t d : ranked.getShape())
      if (__builtin_mul_overflow(bytes, (uint64_t)d, &bytes))
        return where + " (" + typeText + ") is too large to allocate";
    if (bytes > memory)
      return where + " (" + typeText + ") needs " + std::to_string(bytes) +
             " bytes; the device has " + std::to_string(memory);
    if (__builtin_add_overflow(total, bytes, &total) || total > memory)
      return std::string("the ") + what + "s of @" + f.getSymName().str() +
             " up to #" + std::to_string(i) + " need more than " +
             std::to_string(memory) + " bytes, the device's memory";
    return std::nullopt;
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (auto error = check(f.getArgumentTypes()[i], "argument", i))
      return error;
  total = 0; // results replace arguments; each must fit on its own
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (auto error = check(f.getResultTypes()[i], "result", i))
      return error;
  return std::nullopt;
}

/// State the host carries from step to step (the step returns it).
bool isState(std::optional<tg::Role> role) {
  return role && tg::isCarriedRole(*role);
}

/// Owns runtime tensors and reports failures.
class Host {
public:
  explicit Host(amprt_context *ctx) : ctx(ctx) {}
  amprt_tensor *make(RankedTensorType type) {
    amprt_tensor *t = nullptr;
    SmallVector<int64_t> shape(type.getShape());
    // checkSignature has vetted every element type.
    if (amprt_tensor_create(ctx, *dtypeOf(type.getElementType()), shape.size(),
                            shape.data(), &t) != AMPRT_OK)
      throw std::runtime_error(amprt_last_error());
    return t;
  }
  /// A tensor of `type` holding float values (converted through f32).
  amprt_tensor *fromFloats(RankedTensorType type, const float *values) {
    int64_t n = type.getNumElements();
    Type element = type.getElementType();
    if (element.isInteger(64) || element.isInteger(32)) {
      amprt_tensor *t = make(type);
      if (element.isInteger(64)) {
        std::vector<int64_t> v(values, values + n);
        check(amprt_tensor_write(t, v.data(), n * 8));
      } else {
        std::vector<int32_t> v(values, values + n);
        check(amprt_tensor_write(t, v.data(), n * 4));
      }
      return t;
    }
    auto f32 = RankedTensorType::get(type.getShape(),
                                     Float32Type::get(type.getContext()));
    amprt_tensor *staging = make(f32);
    check(amprt_tensor_write(staging, values, n * sizeof(float)));
    if (type.getElementType().isF32())
      return staging;
    amprt_tensor *t = make(type);
    check(amprt_cast(ctx, staging, t));
    amprt_tensor_release(staging);
    return t;
  }
  void check(amprt_status s) {
    if (s != AMPRT_OK)
      throw std::runtime_error(amprt_last_error());
  }
  float readScalar(amprt_tensor *t) {
    if (amprt_tensor_dtype(t) == AMPRT_I64) {
      int64_t v;
      check(amprt_tensor_read(t, &v, 8));
      return (float)v;
    }
    float v;
    check(amprt_tensor_read(t, &v, 4));
    return v;
  }
  amprt_context *ctx;
};

/// Glorot-uniform, He-normal, zeros or ones, as tg.init says.
std::vector<float> initialValues(RankedTensorType type, tg::Initializer init,
                                 std::mt19937 &rng) {
  int64_t n = type.getNumElements();
  std::vector<float> v(n, 0.0f);
  ArrayRef<int64_t> s = type.getShape();
  int64_t fanIn = 1, fanOut = 1;
  if (s.size() == 2) {
    fanIn = s[0];
    fanOut = s[1];
  } else if (s.size() == 4) { // OHWI filters
    fanIn = s[1] * s[2] * s[3];
    fanOut = s[0] * s[1] * s[2];
  } else if (!s.empty()) {
    fanIn = fanOut = s.back();
  }
  switch (init) {
  case tg::Initializer::Zeros:
    break;
  case tg::Initializer::Ones:
    std::fill(v.begin(), v.end(), 1.0f);
    break;
  case tg::Initializer::HeNormal: {
    std::normal_distribution<float> d(0.0f, std::sqrt(2.0f / fanIn));
    for (float &x : v)
      x = d(rng);
    break;
  }
  case tg::Initializer::GlorotUniform: {
    float limit = std::sqrt(6.0f / float(fanIn + fanOut));
    std::uniform_real_distribution<float> d(-limit, limit);
    for (float &x : v)
      x = d(rng);
    break;
  }
  }
  return v;
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
  amprt_context *ctx = nullptr;
  if (amprt_context_create(deviceName == "cuda" ? AMPRT_DEVICE_CUDA
                                                : AMPRT_DEVICE_CPU,
                           0, &ctx) != AMPRT_OK)
    return fatal("--device=" + deviceName + ": " + amprt_last_error());

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
      if (auto error = checkSignature(module->lookupSymbol<func::FuncOp>(name),
                                      deviceMemory))
        return fatal(*error);
  Signature step = signatureOf(module->lookupSymbol<func::FuncOp>(entryName));
  Signature eval;
  if (!evalName.empty())
    eval = signatureOf(module->lookupSymbol<func::FuncOp>(evalName));

  PassManager lower(&context);
  amp::buildLowerToLLVMPipeline(lower);
  if (failed(lower.run(*module)))
    return fatal("lowering to the runtime failed");
  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  engineOptions.enableObjectDump = !emitObj.empty();
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return fatal("JIT compilation failed: " +
                 llvm::toString(engine.takeError()));
  (*engine)->initialize();
  if (!emitObj.empty()) {
    (*engine)->dumpToObjectFile(emitObj);
    uint64_t size = 0;
    if (llvm::sys::fs::file_size(emitObj, size) || size == 0)
      return fatal("could not write the object file --emit-obj '" + emitObj +
                   "'");
  }
  using StepFn = int32_t (*)(void *, void **, void **);
  auto stepSym = (*engine)->lookup(entryName);
  if (!stepSym)
    return fatal(llvm::toString(stepSym.takeError()));
  auto stepFn = reinterpret_cast<StepFn>(*stepSym);
  StepFn evalFn = nullptr;
  if (!evalName.empty()) {
    auto sym = (*engine)->lookup(evalName);
    if (!sym)
      return fatal(llvm::toString(sym.takeError()));
    evalFn = reinterpret_cast<StepFn>(*sym);
  }

  // The step's inputs.
  int inputIndex = -1, labelIndex = -1, lossIndex = -1;
  // Each of these roles names one value: a second is refused, not ignored.
  auto claim = [&](int &index, size_t i, StringRef role,
                   StringRef kind) -> std::optional<std::string> {
    if (index >= 0)
      return ("@" + entryName + " has two " + kind + " with tg.role \"" + role +
              "\" (#" + std::to_string(index) + " and #" + std::to_string(i) +
              "); amp-run binds one")
          .str();
    index = i;
    return std::nullopt;
  };
  for (size_t i = 0; i < step.argRoles.size(); ++i) {
    std::optional<std::string> error;
    if (step.argRoles[i] == tg::Role::Input)
      error = claim(inputIndex, i, "input", "arguments");
    if (step.argRoles[i] == tg::Role::Label)
      error = claim(labelIndex, i, "label", "arguments");
    if (error)
      return fatal(*error);
  }
  for (size_t i = 0; i < step.resultRoles.size(); ++i)
    if (step.resultRoles[i] == tg::Role::Loss)
      if (auto error = claim(lossIndex, i, "loss", "results"))
        return fatal(*error);
  if (inputIndex < 0 || labelIndex < 0 || lossIndex < 0)
    return fatal("@" + entryName +
                 " needs arguments with tg.role \"input\" "
                 "and \"label\" and a result with tg.role \"loss\"");
  RankedTensorType inputType = step.argTypes[inputIndex];
  RankedTensorType labelType = step.argTypes[labelIndex];
  RankedTensorType lossType = step.resultTypes[lossIndex];
  if (lossType.getRank() != 0 || !lossType.getElementType().isF32())
    return fatal(
        "the loss (result #" + std::to_string(lossIndex) + " of @" + entryName +
        ", tg.role \"loss\") must be a scalar "
        "tensor<f32>, got " +
        typeString(lossType) + "; reduce it (tg.reduce_mean) and keep it f32");
  if (inputType.getRank() == 0 || inputType.getDimSize(0) < 1)
    return fatal("the input argument (#" + std::to_string(inputIndex) + ", " +
                 typeString(inputType) +
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
  amp::run::Dataset dataset;
  std::string dataName = data;
  if (dataName == "synthetic") {
    uint64_t examples = 4096 + 1024, bytes = 0;
    if (__builtin_mul_overflow(examples + (uint64_t)lossClasses,
                               (uint64_t)features * 4, &bytes) ||
        bytes > hostMemory())
      return fatal("synthetic data of " + std::to_string(features) +
                   " features per example would need more memory than "
                   "this machine has");
    dataset = amp::run::makeSynthetic(features, lossClasses, 4096, 1024, seed);
  } else if (StringRef(dataName).starts_with("fashion-mnist")) {
    std::string dir = "/usr/share/datasets/fashion-mnist";
    if (StringRef(dataName).starts_with("fashion-mnist:"))
      dir = dataName.substr(strlen("fashion-mnist:"));
    auto loaded = amp::run::loadFashionMnist(dir);
    if (!loaded)
      return fatal(llvm::toString(loaded.takeError()));
    dataset = std::move(*loaded);
    if (dataset.train.features != features)
      return fatal("the model's input holds " + std::to_string(features) +
                   " features per example; Fashion-MNIST has " +
                   std::to_string(dataset.train.features));
  } else {
    return fatal("--data must be synthetic or fashion-mnist[:DIR], got '" +
                 dataName + "'");
  }

  Host host(ctx);
  std::mt19937 rng(seed);
  std::vector<amprt_tensor *> state(step.argTypes.size(), nullptr);
  int scaleIndex = -1;
  try {
    for (size_t i = 0; i < step.argTypes.size(); ++i) {
      std::optional<tg::Role> role = step.argRoles[i];
      RankedTensorType type = step.argTypes[i];
      if (!role)
        throw std::runtime_error("argument " + std::to_string(i) +
                                 " has no tg.role: amp-run cannot bind it");
      if (*role == tg::Role::Input || *role == tg::Role::Label)
        continue; // bound per batch
      // State starts at its tg.init_value (what --amp-loss-scaling wrote
      // for the scale), else at zero.
      std::vector<float> values(type.getNumElements(),
                                (float)step.argInitValues[i].value_or(0.0));
      switch (*role) {
      case tg::Role::Input:
      case tg::Role::Label:
        break; // handled above
      case tg::Role::Param:
        values = initialValues(type, step.argInits[i], rng);
        break;
      case tg::Role::LearningRate:
        // --lr given on the command line wins over the IR's value.
        if (lr.getNumOccurrences() || !step.argInitValues[i])
          std::fill(values.begin(), values.end(), (float)lr);
        break;
      case tg::Role::LossScale:
        // A step scaled by hand, without tg.init_value, starts at
        // --init-scale.
        if (!step.argInitValues[i])
          std::fill(values.begin(), values.end(), (float)initScale);
        scaleIndex = i;
        break;
      case tg::Role::OptState:
      case tg::Role::GoodSteps:
        break;
      case tg::Role::Loss:
      case tg::Role::Logits:
      case tg::Role::Output:
        throw std::runtime_error("argument " + std::to_string(i) +
                                 " has a result role");
      }
      state[i] = host.fromFloats(type, values.data());
    }
  } catch (std::exception &e) {
    return fatal(e.what());
  }

  // State results map, in order, onto the state arguments.
  std::vector<int> stateArgs, stateResults;
  for (size_t i = 0; i < step.argRoles.size(); ++i)
    if (isState(step.argRoles[i]))
      stateArgs.push_back(i);
  for (size_t i = 0; i < step.resultRoles.size(); ++i)
    if (isState(step.resultRoles[i]))
      stateResults.push_back(i);
  if (stateArgs.size() != stateResults.size())
    return fatal("@" + entryName + " returns " +
                 std::to_string(stateResults.size()) +
                 " params/state values for " +
                 std::to_string(stateArgs.size()) + " such arguments");

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
  std::vector<float> xBatch(batch * features);
  std::vector<int32_t> yBatch(batch);
  std::vector<void *> results(step.resultTypes.size());
  auto wallStart = std::chrono::steady_clock::now();
  try {
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
      amprt_tensor *x = host.fromFloats(inputType, xBatch.data());
      amprt_tensor *y = host.make(labelType);
      if (labelType.getElementType().isInteger(64)) {
        std::vector<int64_t> wide(yBatch.begin(), yBatch.end());
        host.check(amprt_tensor_write(y, wide.data(), wide.size() * 8));
      } else {
        host.check(amprt_tensor_write(y, yBatch.data(), yBatch.size() * 4));
      }
      state[inputIndex] = x;
      state[labelIndex] = y;

      size_t before = 0, peak = 0;
      amprt_memory_stats(ctx, &before, nullptr);
      amprt_memory_reset_peak(ctx);
      float oldScale = scaleIndex >= 0 ? host.readScalar(state[scaleIndex]) : 0;
      auto t0 = std::chrono::steady_clock::now();
      int32_t status = stepFn(ctx, (void **)state.data(), results.data());
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      size_t after = 0;
      amprt_memory_stats(ctx, &after, &peak);
      peakStepBytes = std::max(peakStepBytes, peak - before);
      // What is live when the step returns is its outputs (new params,
      // optimizer state, loss); the rest of the peak is transient.
      stepOutputBytes = std::max(stepOutputBytes, after - before);
      peakActivationBytes = std::max(peakActivationBytes, peak - after);
      trainSeconds += seconds;
      if (status != AMPRT_OK)
        throw std::runtime_error(std::string("step ") + std::to_string(s) +
                                 " failed: " + amprt_context_error(ctx));
      float loss = host.readScalar((amprt_tensor *)results[lossIndex]);
      float newScale =
          scaleIndex >= 0
              ? host.readScalar(
                    (amprt_tensor *)results[stateResults[std::distance(
                        stateArgs.begin(),
                        std::find(stateArgs.begin(), stateArgs.end(),
                                  scaleIndex))]])
              : 0;
      bool stepSkipped = scaleIndex >= 0 && newScale < oldScale;
      if (!std::isfinite(loss) && !stepSkipped) {
        for (void *r : results)
          amprt_tensor_release((amprt_tensor *)r);
        throw std::runtime_error(
            "step " + std::to_string(s) + ": the loss is " +
            (std::isnan(loss) ? "NaN" : "inf") +
            " in the f32 forward pass and no loss scaling can be blamed; "
            "stopping with the last good parameters (lower --lr?)");
      }
      skipped += stepSkipped;
      lastLoss = loss;
      // Take the new state; drop the old, the batch and the loss.
      for (size_t k = 0; k < stateArgs.size(); ++k) {
        amprt_tensor_release(state[stateArgs[k]]);
        state[stateArgs[k]] = (amprt_tensor *)results[stateResults[k]];
      }
      for (size_t r = 0; r < results.size(); ++r)
        if (std::find(stateResults.begin(), stateResults.end(), (int)r) ==
            stateResults.end())
          amprt_tensor_release((amprt_tensor *)results[r]);
      amprt_tensor_release(x);
      amprt_tensor_release(y);
      state[inputIndex] = state[labelIndex] = nullptr;

      llvm::json::Object record{{"step", s},
                                {"loss", jsonNumber(loss)},
                                {"skipped", stepSkipped},
                                {"time_ms", seconds * 1e3}};
      if (scaleIndex >= 0)
        record["loss_scale"] = jsonNumber(newScale);
      stepRecords.push_back(std::move(record));
      if ((s + 1) % logEvery == 0 || s + 1 == totalSteps)
        llvm::errs() << llvm::format(
            "step %lld/%lld  loss %.4f  scale %g  skipped %lld  %.0f "
            "samples/s\n",
            (long long)(s + 1), (long long)totalSteps, loss,
            scaleIndex >= 0 ? newScale : 1.0f, (long long)skipped,
            (s + 1) * batch / trainSeconds);
    }
  } catch (std::exception &e) {
    return fatal(e.what());
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wallStart)
                    .count();

  // Test accuracy through the forward function: params in order, then input.
  double accuracy = -1;
  if (evalFn) {
    int evalInput = -1, logitsIndex = -1;
    for (size_t i = 0; i < eval.argRoles.size(); ++i)
      if (eval.argRoles[i] == tg::Role::Input)
        evalInput = i;
    for (size_t i = 0; i < eval.resultRoles.size(); ++i)
      if (eval.resultRoles[i] == tg::Role::Logits)
        logitsIndex = i;
    std::vector<amprt_tensor *> params;
    for (size_t i = 0; i < step.argRoles.size(); ++i)
      if (step.argRoles[i] == tg::Role::Param)
        params.push_back(state[i]);
    if (evalInput < 0 || logitsIndex < 0 ||
        params.size() + 1 != eval.argTypes.size())
      return fatal("@" + evalName +
                   " must take the params in order and an "
                   "input (tg.role \"input\") and return tg.role \"logits\"");
    RankedTensorType evalInputType = eval.argTypes[evalInput];
    int64_t evalBatch = evalInputType.getDimSize(0);
    RankedTensorType logitsType = eval.resultTypes[logitsIndex];
    int64_t classes = logitsType.getDimSize(1);
    int64_t correct = 0, seen = 0;
    std::vector<void *> evalResults(eval.resultTypes.size());
    try {
      // The last batch wraps around to the first examples so every test
      // example is scored once and batch statistics see real images.
      std::vector<float> xEval(evalBatch * features);
      for (int64_t start = 0; start < dataset.test.count; start += evalBatch) {
        int64_t real = std::min(evalBatch, dataset.test.count - start);
        for (int64_t b = 0; b < evalBatch; ++b)
          std::copy_n(
              &dataset.test.x[((start + b) % dataset.test.count) * features],
              features, &xEval[b * features]);
        amprt_tensor *x = host.fromFloats(evalInputType, xEval.data());
        std::vector<amprt_tensor *> args;
        size_t p = 0;
        for (size_t i = 0; i < eval.argTypes.size(); ++i)
          args.push_back((int)i == evalInput ? x : params[p++]);
        if (evalFn(ctx, (void **)args.data(), evalResults.data()) != AMPRT_OK)
          throw std::runtime_error(std::string("evaluation failed: ") +
                                   amprt_context_error(ctx));
        auto f32 = RankedTensorType::get(logitsType.getShape(),
                                         Float32Type::get(&context));
        amprt_tensor *logits = (amprt_tensor *)evalResults[logitsIndex];
        amprt_tensor *wide = host.make(f32);
        host.check(amprt_cast(ctx, logits, wide));
        std::vector<float> values(evalBatch * classes);
        host.check(amprt_tensor_read(wide, values.data(), values.size() * 4));
        for (int64_t b = 0; b < real; ++b) {
          int64_t best = std::max_element(&values[b * classes],
                                          &values[(b + 1) * classes]) -
                         &values[b * classes];
          correct += best == dataset.test.y[start + b];
        }
        seen += real;
        amprt_tensor_release(wide);
        for (void *r : evalResults)
          amprt_tensor_release((amprt_tensor *)r);
        amprt_tensor_release(x);
      }
    } catch (std::exception &e) {
      return fatal(e.what());
    }
    accuracy = seen ? double(correct) / seen : 0;
    llvm::errs() << llvm::format("test accuracy %.4f (%lld examples)\n",
                                 accuracy, (long long)seen);
  }

  size_t current = 0, peak = 0;
  amprt_memory_stats(ctx, &current, &peak);
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
  for (amprt_tensor *t : state)
    amprt_tensor_release(t);
  amprt_context_destroy(ctx);
  return 0;
}
