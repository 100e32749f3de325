//===- StepRunner.cpp - Run a compiled training step, step after step -----===//

#include "amp/Runner/StepRunner.h"
#include "amp/Conversion/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include <algorithm>
#include <chrono>
#include <cmath>

using namespace mlir;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;

namespace amp::runner {

Error runtimeError(const llvm::Twine &what) {
  return createStringError(what + ": " + amprt_last_error());
}

Expected<ContextPtr> createContext(amprt_device device, int ordinal) {
  amprt_context *context = nullptr;
  if (amprt_context_create(device, ordinal, &context) != AMPRT_OK)
    return createStringError(amprt_last_error());
  return ContextPtr(context);
}

std::optional<amprt_dtype> dtypeOf(Type element) {
  if (std::optional<int32_t> code = runtimeDtypeCode(element))
    return static_cast<amprt_dtype>(*code);
  return std::nullopt;
}

Expected<TensorPtr> makeTensor(amprt_context *context, RankedTensorType type) {
  std::optional<amprt_dtype> dtype = dtypeOf(type.getElementType());
  if (!dtype)
    return createStringError("the runtime holds no tensors of this type");
  SmallVector<int64_t> shape(type.getShape());
  amprt_tensor *tensor = nullptr;
  if (amprt_tensor_create(context, *dtype, shape.size(), shape.data(),
                          &tensor) != AMPRT_OK)
    return createStringError(amprt_last_error());
  return TensorPtr(tensor);
}

/// Writes `count` values of type T converted from `values`.
template <typename T>
static amprt_status writeAs(amprt_tensor *tensor, const float *values,
                            int64_t count) {
  std::vector<T> converted(values, values + count);
  return amprt_tensor_write(tensor, converted.data(), count * sizeof(T));
}

Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                     RankedTensorType type,
                                     const float *values) {
  int64_t n = type.getNumElements();
  Type element = type.getElementType();
  Expected<TensorPtr> tensor = makeTensor(context, type);
  if (!tensor)
    return tensor.takeError();
  amprt_status status = AMPRT_OK;
  if (element.isInteger(64))
    status = writeAs<int64_t>(tensor->get(), values, n);
  else if (element.isInteger(32))
    status = writeAs<int32_t>(tensor->get(), values, n);
  else if (element.isInteger(1))
    status = writeAs<uint8_t>(tensor->get(), values, n);
  else if (element.isF64())
    status = writeAs<double>(tensor->get(), values, n);
  else if (element.isF32())
    status = amprt_tensor_write(tensor->get(), values, n * sizeof(float));
  else {
    auto f32 = RankedTensorType::get(type.getShape(),
                                     Float32Type::get(type.getContext()));
    Expected<TensorPtr> staging = tensorFromFloats(context, f32, values);
    if (!staging)
      return staging.takeError();
    status = amprt_cast(context, staging->get(), tensor->get());
  }
  if (status != AMPRT_OK)
    return createStringError(amprt_last_error());
  return tensor;
}

Expected<float> readScalar(amprt_tensor *tensor) {
  if (amprt_tensor_numel(tensor) != 1)
    return createStringError("expected a tensor of one value");
  amprt_status status;
  float value = 0;
  switch (amprt_tensor_dtype(tensor)) {
  case AMPRT_I64: {
    int64_t wide = 0;
    status = amprt_tensor_read(tensor, &wide, sizeof(wide));
    value = (float)wide;
    break;
  }
  case AMPRT_F32:
    status = amprt_tensor_read(tensor, &value, sizeof(value));
    break;
  default:
    return createStringError("expected an f32 or i64 scalar");
  }
  if (status != AMPRT_OK)
    return createStringError(amprt_last_error());
  return value;
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

Signature Signature::of(func::FuncOp f) {
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

Error checkSignature(func::FuncOp f, uint64_t memory) {
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
      return createStringError(*error);
  total = 0; // results replace arguments; each must fit on its own
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (auto error = check(f.getResultTypes()[i], "result", i))
      return createStringError(*error);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// JitModule
//===----------------------------------------------------------------------===//

Expected<JitModule> JitModule::create(ModuleOp module, const Options &options) {
  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = options.optLevel;
  engineOptions.enableObjectDump = options.keepObject;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return createStringError("JIT compilation failed: " +
                             llvm::toString(engine.takeError()));
  (*engine)->initialize();
  JitModule jit;
  jit.engine = std::move(*engine);
  return jit;
}

Expected<StepFn> JitModule::lookup(StringRef name) const {
  auto symbol = engine->lookup(name);
  if (!symbol)
    return symbol.takeError();
  return reinterpret_cast<StepFn>(*symbol);
}

Error JitModule::dumpToObjectFile(StringRef path) const {
  engine->dumpToObjectFile(path);
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size) || size == 0)
    return createStringError("could not write the object file '" + path + "'");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// TrainingStep
//===----------------------------------------------------------------------===//

Expected<TrainingStep> TrainingStep::bind(StringRef name, Signature signature) {
  TrainingStep step(std::move(signature));
  const Signature &s = step.sig;
  // Each of these roles names one value: a second is refused, not ignored.
  auto claim = [&](int &index, size_t i, StringRef role,
                   StringRef kind) -> Error {
    if (index >= 0)
      return createStringError("@" + name + " has two " + kind +
                               " with tg.role \"" + role + "\" (#" +
                               std::to_string(index) + " and #" +
                               std::to_string(i) + "); amp-run binds one");
    index = i;
    return Error::success();
  };
  for (size_t i = 0; i < s.argRoles.size(); ++i) {
    if (s.argRoles[i] == tg::Role::Input)
      if (Error e = claim(step.input, i, "input", "arguments"))
        return std::move(e);
    if (s.argRoles[i] == tg::Role::Label)
      if (Error e = claim(step.label, i, "label", "arguments"))
        return std::move(e);
    if (s.argRoles[i] == tg::Role::LossScale)
      step.scale = i;
  }
  for (size_t i = 0; i < s.resultRoles.size(); ++i)
    if (s.resultRoles[i] == tg::Role::Loss)
      if (Error e = claim(step.loss, i, "loss", "results"))
        return std::move(e);
  if (step.input < 0 || step.label < 0 || step.loss < 0)
    return createStringError("@" + name +
                             " needs arguments with tg.role \"input\" and "
                             "\"label\" and a result with tg.role \"loss\"");
  RankedTensorType lossType = s.resultTypes[step.loss];
  if (lossType.getRank() != 0 || !lossType.getElementType().isF32()) {
    std::string typeText;
    llvm::raw_string_ostream(typeText) << lossType;
    return createStringError(
        "the loss (result #" + std::to_string(step.loss) + " of @" + name +
        ", tg.role \"loss\") must be a scalar tensor<f32>, got " + typeText +
        "; reduce it (tg.reduce_mean) and keep it f32");
  }
  for (size_t i = 0; i < s.argRoles.size(); ++i) {
    if (!s.argRoles[i])
      return createStringError("argument " + std::to_string(i) +
                               " has no tg.role: amp-run cannot bind it");
    if (!tg::isArgumentRole(*s.argRoles[i]))
      return createStringError("argument " + std::to_string(i) +
                               " has a result role");
  }
  auto carried = [](std::optional<tg::Role> role) {
    return role && tg::isCarriedRole(*role);
  };
  for (size_t i = 0; i < s.argRoles.size(); ++i)
    if (carried(s.argRoles[i]))
      step.stateArgs.push_back(i);
  for (size_t i = 0; i < s.resultRoles.size(); ++i)
    if (carried(s.resultRoles[i]))
      step.stateResults.push_back(i);
  if (step.stateArgs.size() != step.stateResults.size())
    return createStringError(
        "@" + name + " returns " + std::to_string(step.stateResults.size()) +
        " params/state values for " + std::to_string(step.stateArgs.size()) +
        " such arguments");
  // The loss scale is carried: the result holding its next value is the one
  // at its position among the state arguments.
  for (size_t k = 0; k < step.stateArgs.size(); ++k)
    if (step.stateArgs[k] == step.scale)
      step.scaleResult = step.stateResults[k];
  step.args.resize(s.argTypes.size());
  return step;
}

/// Glorot-uniform, He-normal, zeros or ones, as tg.init says.
static std::vector<float>
initialValues(RankedTensorType type, tg::Initializer init, std::mt19937 &rng) {
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

Error TrainingStep::initialize(amprt_context *context, std::mt19937 &rng,
                               const StartValues &start) {
  for (size_t i = 0; i < sig.argTypes.size(); ++i) {
    tg::Role role = *sig.argRoles[i]; // bind() refused arguments without one
    RankedTensorType type = sig.argTypes[i];
    if (role == tg::Role::Input || role == tg::Role::Label)
      continue; // bound per batch
    std::optional<double> given = sig.argInitValues[i];
    std::vector<float> values;
    if (role == tg::Role::Param)
      values = initialValues(type, sig.argInits[i], rng);
    else if (role == tg::Role::LearningRate &&
             (start.overrideLearningRate || !given))
      values.assign(type.getNumElements(), (float)start.learningRate);
    else if (role == tg::Role::LossScale && !given)
      values.assign(type.getNumElements(), (float)start.initScale);
    else // state starts at its tg.init_value, else at zero
      values.assign(type.getNumElements(), (float)given.value_or(0.0));
    Expected<TensorPtr> tensor = tensorFromFloats(context, type, values.data());
    if (!tensor)
      return tensor.takeError();
    args[i] = std::move(*tensor);
  }
  return Error::success();
}

std::vector<amprt_tensor *> TrainingStep::params() const {
  std::vector<amprt_tensor *> out;
  for (size_t i = 0; i < sig.argRoles.size(); ++i)
    if (sig.argRoles[i] == tg::Role::Param)
      out.push_back(args[i].get());
  return out;
}

Expected<TrainingStep::Outcome> TrainingStep::run(StepFn step,
                                                  amprt_context *context,
                                                  TensorPtr inputTensor,
                                                  TensorPtr labelTensor) {
  args[input] = std::move(inputTensor);
  args[label] = std::move(labelTensor);
  // The batch is released on every way out of this function.
  llvm::scope_exit dropBatch([&] {
    args[input].reset();
    args[label].reset();
  });
  std::vector<amprt_tensor *> argPtrs;
  for (const TensorPtr &t : args)
    argPtrs.push_back(t.get());

  Outcome out;
  if (scale >= 0) {
    Expected<float> before = readScalar(args[scale].get());
    if (!before)
      return before.takeError();
    out.scaleBefore = *before;
  }
  size_t liveBefore = 0, liveAfter = 0, peak = 0;
  amprt_memory_stats(context, &liveBefore, nullptr);
  amprt_memory_reset_peak(context);
  std::vector<void *> raw(sig.resultTypes.size(), nullptr);
  auto t0 = std::chrono::steady_clock::now();
  int32_t status = step(context, (void **)argPtrs.data(), raw.data());
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  // The results are owned from here on, whatever happens next.
  std::vector<TensorPtr> results;
  for (void *r : raw)
    results.emplace_back(static_cast<amprt_tensor *>(r));
  amprt_memory_stats(context, &liveAfter, &peak);
  out.peakBytes = peak - liveBefore;
  // What is live when the step returns is its outputs (new params,
  // optimizer state, loss); the rest of the peak is transient.
  out.outputBytes = liveAfter - liveBefore;
  out.transientBytes = peak - liveAfter;
  if (status != AMPRT_OK)
    return createStringError(amprt_context_error(context));

  Expected<float> lossValue = readScalar(results[loss].get());
  if (!lossValue)
    return lossValue.takeError();
  out.loss = *lossValue;
  if (scale >= 0) {
    Expected<float> after = readScalar(results[scaleResult].get());
    if (!after)
      return after.takeError();
    out.scaleAfter = *after;
    out.skipped = *out.scaleAfter < *out.scaleBefore;
  }
  for (size_t i = 0; i < sig.resultRoles.size(); ++i)
    if (sig.resultRoles[i] == tg::Role::Output)
      out.outputs.emplace_back(i, std::move(results[i]));
  if (!std::isfinite(out.loss) && !out.skipped)
    return out; // keep the last good state; the caller says what to do
  for (size_t k = 0; k < stateArgs.size(); ++k)
    args[stateArgs[k]] = std::move(results[stateResults[k]]);
  out.committed = true;
  return out;
}

Expected<std::vector<TensorPtr>>
TrainingStep::runAside(StepFn other, const Signature &otherSignature,
                       amprt_context *context, amprt_tensor *inputTensor,
                       amprt_tensor *labelTensor) const {
  // The step's arguments, or all but its FP8 amax histories: an f32 step
  // (amp-run --validate beside an fp8 step) carries no FP8 state.
  std::vector<size_t> passed;
  for (size_t i = 0; i < args.size(); ++i)
    passed.push_back(i);
  if (otherSignature.argTypes != sig.argTypes ||
      otherSignature.argRoles != sig.argRoles) {
    passed.clear();
    Signature without;
    for (size_t i = 0; i < args.size(); ++i) {
      if (sig.argRoles[i] == tg::Role::AmaxHistory)
        continue;
      passed.push_back(i);
      without.argTypes.push_back(sig.argTypes[i]);
      without.argRoles.push_back(sig.argRoles[i]);
    }
    if (otherSignature.argTypes != without.argTypes ||
        otherSignature.argRoles != without.argRoles)
      return createStringError("the function run beside the step must take "
                               "the step's arguments (its amax histories "
                               "aside), with the same types and tg.role");
  }
  std::vector<amprt_tensor *> argPtrs;
  for (size_t i : passed)
    argPtrs.push_back((int)i == input   ? inputTensor
                      : (int)i == label ? labelTensor
                                        : args[i].get());
  std::vector<void *> raw(otherSignature.resultTypes.size(), nullptr);
  int32_t status = other(context, (void **)argPtrs.data(), raw.data());
  std::vector<TensorPtr> results;
  for (void *r : raw)
    results.emplace_back(static_cast<amprt_tensor *>(r));
  if (status != AMPRT_OK)
    return createStringError(amprt_context_error(context));
  return results;
}

} // namespace amp::runner
