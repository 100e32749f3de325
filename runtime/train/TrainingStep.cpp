//===- TrainingStep.cpp - Run a compiled step, step after step ------------===//

#include "amptrain/TrainingStep.h"
#include <algorithm>
#include <chrono>
#include <cmath>

namespace amp::train {

Status TrainingStep::claimRoles() {
  const std::string at = "@" + sig.name;
  // Each of these roles names one value: a second is refused, not ignored.
  auto claim = [&](int &index, size_t i, const char *role,
                   const char *kind) -> Status {
    if (index >= 0)
      return failure(at + " has two " + kind + " with tg.role \"" + role +
                     "\" (#" + std::to_string(index) + " and #" +
                     std::to_string(i) + "); amp-run binds one");
    index = i;
    return Status::success();
  };
  for (size_t i = 0; i < sig.args.size(); ++i) {
    std::optional<Role> role = sig.args[i].role;
    if (role == Role::Input)
      if (Status s = claim(input, i, "input", "arguments"))
        return s;
    if (role == Role::Label)
      if (Status s = claim(label, i, "label", "arguments"))
        return s;
    if (role == Role::LossScale)
      scale = i;
  }
  for (size_t i = 0; i < sig.results.size(); ++i) {
    if (sig.results[i].role == Role::Loss)
      if (Status s = claim(loss, i, "loss", "results"))
        return s;
    if (sig.results[i].role == Role::Applied)
      if (Status s = claim(applied, i, "step_applied", "results"))
        return s;
  }
  if (applied >= 0 && (sig.results[applied].type.numel() != 1 ||
                       sig.results[applied].type.dtype != AMPRT_I1))
    return failure("the result with tg.role \"step_applied\" (#" +
                   std::to_string(applied) + " of " + at +
                   ") must be a scalar tensor<i1>");
  if (input < 0 || label < 0 || loss < 0)
    return failure(at + " needs arguments with tg.role \"input\" and "
                        "\"label\" and a result with tg.role \"loss\"");
  const TensorSpec &lossType = sig.results[loss].type;
  if (lossType.rank() != 0 || lossType.dtype != AMPRT_F32)
    return failure("the loss (result #" + std::to_string(loss) + " of " + at +
                   ", tg.role \"loss\") must be a scalar tensor<f32>, got " +
                   lossType.str() +
                   "; reduce it (tg.reduce_mean) and keep it f32");
  return Status::success();
}

Expected<TrainingStep> TrainingStep::bind(FunctionSpec signature) {
  TrainingStep step(std::move(signature));
  const FunctionSpec &s = step.sig;
  if (Status failed = step.claimRoles())
    return failed;
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (!s.args[i].role)
      return failure("argument " + std::to_string(i) +
                     " has no tg.role: amp-run cannot bind it");
    if (!isArgumentRole(*s.args[i].role))
      return failure("argument " + std::to_string(i) + " has a result role");
  }
  auto carried = [](std::optional<Role> role) {
    return role && isCarriedRole(*role);
  };
  for (size_t i = 0; i < s.args.size(); ++i)
    if (carried(s.args[i].role))
      step.stateArgs.push_back(i);
  for (size_t i = 0; i < s.results.size(); ++i)
    if (carried(s.results[i].role))
      step.stateResults.push_back(i);
  if (step.stateArgs.size() != step.stateResults.size())
    return failure("@" + s.name + " returns " +
                   std::to_string(step.stateResults.size()) +
                   " params/state values for " +
                   std::to_string(step.stateArgs.size()) + " such arguments");
  // The loss scale is carried: the result holding its next value is the one
  // at its position among the state arguments.
  for (size_t k = 0; k < step.stateArgs.size(); ++k)
    if (step.stateArgs[k] == step.scale)
      step.scaleResult = step.stateResults[k];
  step.args.resize(s.args.size());
  return step;
}

Status checkFits(const FunctionSpec &f, uint64_t memory) {
  auto check = [&](const std::vector<ValueSpec> &values,
                   const char *what) -> Status {
    uint64_t total = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorSpec &type = values[i].type;
      std::string where = std::string(what) + " #" + std::to_string(i) +
                          " of @" + f.name + " (" + type.str() + ")";
      uint64_t bytes = amprt_dtype_size(type.dtype);
      for (int64_t d : type.shape) {
        if (d < 1)
          return failure(where + " has no elements");
        if (__builtin_mul_overflow(bytes, (uint64_t)d, &bytes))
          return failure(where + " is too large to allocate");
      }
      if (bytes > memory)
        return failure(where + " needs " + std::to_string(bytes) +
                       " bytes; the device has " + std::to_string(memory));
      // Results replace arguments: each result must fit on its own.
      if (std::string(what) == "argument" &&
          (__builtin_add_overflow(total, bytes, &total) || total > memory))
        return failure(std::string("the arguments of @") + f.name + " up to #" +
                       std::to_string(i) + " need more than " +
                       std::to_string(memory) + " bytes, the device's memory");
    }
    return Status::success();
  };
  if (Status failed = check(f.args, "argument"))
    return failed;
  return check(f.results, "result");
}

std::vector<float> initialValues(const TensorSpec &type, Initializer init,
                                 std::mt19937 &rng) {
  std::vector<float> v(type.numel(), 0.0f);
  const std::vector<int64_t> &s = type.shape;
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
  case Initializer::Zeros:
    break;
  case Initializer::Ones:
    std::fill(v.begin(), v.end(), 1.0f);
    break;
  case Initializer::HeNormal: {
    std::normal_distribution<float> d(0.0f, std::sqrt(2.0f / fanIn));
    for (float &x : v)
      x = d(rng);
    break;
  }
  case Initializer::GlorotUniform: {
    float limit = std::sqrt(6.0f / float(fanIn + fanOut));
    std::uniform_real_distribution<float> d(-limit, limit);
    for (float &x : v)
      x = d(rng);
    break;
  }
  }
  return v;
}

Status TrainingStep::initialize(amprt_context *context, std::mt19937 &rng,
                                const StartValues &start) {
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const ValueSpec &arg = sig.args[i];
    Role role = *arg.role; // bind() refused arguments without one
    if (role == Role::Input || role == Role::Label)
      continue; // bound per batch
    std::vector<float> values;
    int64_t n = arg.type.numel();
    if (role == Role::Param)
      values = initialValues(arg.type, arg.init, rng);
    else if (role == Role::LearningRate &&
             (start.overrideLearningRate || !arg.initValue))
      values.assign(n, (float)start.learningRate);
    else if (role == Role::LossScale && !arg.initValue)
      values.assign(n, (float)start.initScale);
    else // state starts at its tg.init_value, else at zero
      values.assign(n, (float)arg.initValue.value_or(0.0));
    Expected<TensorPtr> tensor =
        tensorFromFloats(context, arg.type, values.data());
    if (!tensor)
      return tensor.status();
    args[i] = std::move(*tensor);
  }
  return Status::success();
}

std::vector<amprt_tensor *> TrainingStep::params() const {
  std::vector<amprt_tensor *> out;
  for (size_t i = 0; i < sig.args.size(); ++i)
    if (sig.args[i].role == Role::Param)
      out.push_back(args[i].get());
  return out;
}

std::vector<amprt_tensor *> TrainingStep::arguments() const {
  std::vector<amprt_tensor *> out;
  for (const TensorPtr &t : args)
    out.push_back(t.get());
  return out;
}

Expected<TrainingStep::Outcome> TrainingStep::run(StepFn step,
                                                  amprt_context *context,
                                                  TensorPtr inputTensor,
                                                  TensorPtr labelTensor) {
  // The batch is released on every way out of this function.
  return run(step, context, inputTensor.get(), labelTensor.get());
}

Expected<TrainingStep::Outcome> TrainingStep::run(StepFn step,
                                                  amprt_context *context,
                                                  amprt_tensor *inputTensor,
                                                  amprt_tensor *labelTensor) {
  std::vector<amprt_tensor *> argPtrs = arguments();
  argPtrs[input] = inputTensor;
  argPtrs[label] = labelTensor;

  Outcome out;
  if (scale >= 0) {
    Expected<float> before = readScalar(args[scale].get());
    if (!before)
      return before.status();
    out.scaleBefore = *before;
  }
  size_t liveBefore = 0, liveAfter = 0, peak = 0;
  amprt_memory_stats(context, &liveBefore, nullptr);
  amprt_memory_reset_peak(context);
  std::vector<void *> raw(sig.results.size(), nullptr);
  auto t0 = std::chrono::steady_clock::now();
  int32_t status = step(context, (void **)argPtrs.data(), raw.data());
  // A device step returns once its work is queued: it is timed to the end
  // of that work, as PyTorch's rows bracket each step with
  // torch.cuda.synchronize() (a no-op on the CPU).
  amprt_status finished =
      status == AMPRT_OK ? amprt_synchronize(context) : AMPRT_OK;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  // The results are owned from here on, whatever happens next.
  std::vector<TensorPtr> results = ownResults(raw);
  amprt_memory_stats(context, &liveAfter, &peak);
  out.peakBytes = peak - liveBefore;
  // What is live when the step returns is its outputs (new params,
  // optimizer state, loss); the rest of the peak is transient.
  out.outputBytes = liveAfter - liveBefore;
  out.transientBytes = peak - liveAfter;
  if (status != AMPRT_OK)
    return failure(amprt_context_error(context));
  if (finished != AMPRT_OK)
    return failure(amprt_last_error());

  Expected<float> lossValue = readScalar(results[loss].get());
  if (!lossValue)
    return lossValue.status();
  out.loss = *lossValue;
  if (scale >= 0) {
    Expected<float> after = readScalar(results[scaleResult].get());
    if (!after)
      return after.status();
    out.scaleAfter = *after;
    out.skipped = *out.scaleAfter < *out.scaleBefore;
  }
  // The step's own word where it gives one (loss scaling's finite check).
  if (applied >= 0) {
    Expected<float> flag = readScalar(results[applied].get());
    if (!flag)
      return flag.status();
    out.skipped = *flag == 0;
  }
  for (size_t i = 0; i < sig.results.size(); ++i)
    if (sig.results[i].role == Role::Output)
      out.outputs.emplace_back(i, std::move(results[i]));
  if ((!std::isfinite(out.loss) && !out.skipped) ||
      (out.skipped && holdSkipped))
    return out; // keep the last good state; the caller says what to do
  for (size_t k = 0; k < stateArgs.size(); ++k)
    args[stateArgs[k]] = std::move(results[stateResults[k]]);
  out.committed = true;
  return out;
}

/// Whether `t` has `type`'s element type and shape.
static bool holds(const amprt_tensor *t, const TensorSpec &type) {
  const int64_t *shape = amprt_tensor_shape(t);
  return amprt_tensor_dtype(t) == type.dtype &&
         amprt_tensor_rank(t) == type.rank() &&
         std::equal(type.shape.begin(), type.shape.end(), shape);
}

/// The arguments of the step that `other` takes: all of them, or all but
/// the FP8 amax histories (an f32 step beside an fp8 one carries none)
/// and the communicator (a step of one process beside a data-parallel one).
static std::optional<std::vector<size_t>>
argumentsTakenBy(const FunctionSpec &step, const FunctionSpec &other) {
  std::vector<size_t> passed;
  // Bit 0: without the amax histories; bit 1: without the communicator (a
  // data-parallel step's, which a step of one process does not take).
  for (int skip = 0; skip < 4; ++skip) {
    passed.clear();
    for (size_t i = 0; i < step.args.size(); ++i)
      if (!((skip & 1) && step.args[i].role == Role::AmaxHistory) &&
          !((skip & 2) && step.args[i].role == Role::Communicator))
        passed.push_back(i);
    bool same = passed.size() == other.args.size();
    for (size_t k = 0; same && k < passed.size(); ++k) {
      const ValueSpec &mine = step.args[passed[k]];
      // The batch is the caller's (runAside checks it against `other`).
      bool batch = mine.role == Role::Input || mine.role == Role::Label;
      same = (batch || mine.type == other.args[k].type) &&
             mine.role == other.args[k].role;
    }
    if (same)
      return passed;
  }
  return std::nullopt;
}

Expected<std::vector<TensorPtr>>
TrainingStep::runAside(StepFn other, const FunctionSpec &otherSignature,
                       amprt_context *context, amprt_tensor *inputTensor,
                       amprt_tensor *labelTensor) const {
  std::optional<std::vector<size_t>> passed =
      argumentsTakenBy(sig, otherSignature);
  if (!passed)
    return failure("the function run beside the step must take the step's "
                   "arguments (its amax histories aside), with the same "
                   "types and tg.role");
  for (size_t k = 0; k < passed->size(); ++k) {
    int i = (int)(*passed)[k];
    const amprt_tensor *given = i == input   ? inputTensor
                                : i == label ? labelTensor
                                             : nullptr;
    if (given && !holds(given, otherSignature.args[k].type))
      return failure("the batch given to the function run beside the step "
                     "is not its " +
                     otherSignature.args[k].type.str());
  }
  std::vector<amprt_tensor *> argPtrs;
  for (size_t i : *passed)
    argPtrs.push_back((int)i == input   ? inputTensor
                      : (int)i == label ? labelTensor
                                        : args[i].get());
  std::vector<void *> raw(otherSignature.results.size(), nullptr);
  int32_t status = other(context, (void **)argPtrs.data(), raw.data());
  std::vector<TensorPtr> results = ownResults(raw);
  if (status != AMPRT_OK)
    return failure(amprt_context_error(context));
  return results;
}

} // namespace amp::train
