//===- Resume.cpp - What a run saves, and how it goes on from it ----------===//
//
// A checkpoint's tensors are the step's state arguments (everything but the
// batch and the communicator), matched on resume by role and by their
// order among the arguments of that role, so a step recompiled from the
// same source in another precision still finds its params and optimizer
// state.
//
//===----------------------------------------------------------------------===//

#include "amptrain/Trainer.h"
#include <map>
#include <sstream>

namespace amp::train {

namespace {

bool isSaved(const ValueSpec &arg) {
  return arg.role && *arg.role != Role::Input && *arg.role != Role::Label &&
         *arg.role != Role::Communicator;
}

/// State a run in another precision may lack: it starts afresh there.
bool belongsToPrecision(Role role) {
  return role == Role::LossScale || role == Role::GoodSteps ||
         role == Role::AmaxHistory;
}

/// "param #3 (argument 5)": an argument as the messages name it.
std::string nameOf(Role role, int ordinal, int64_t argument) {
  return std::string(roleName(role)) + " #" + std::to_string(ordinal) +
         " (argument " + std::to_string(argument) + ")";
}

/// The step's saved arguments by (role, ordinal among that role).
std::map<std::pair<Role, int>, int64_t> argumentsByRole(const FunctionSpec &f) {
  std::map<std::pair<Role, int>, int64_t> found;
  std::map<Role, int> count;
  for (size_t i = 0; i < f.args.size(); ++i)
    if (isSaved(f.args[i]))
      found[{*f.args[i].role, count[*f.args[i].role]++}] = i;
  return found;
}

Status checkRun(const Checkpoint &c, const RunOptions &o, const Job &job,
                int64_t batch) {
  auto differs = [](const std::string &what, const std::string &saved,
                    const std::string &now) {
    return failure("--resume: the checkpoint's " + what + " is " + saved +
                   ", this run's " + now);
  };
  if (c.ranks != job.size())
    return differs("job", std::to_string(c.ranks) + " ranks",
                   std::to_string(job.size()) +
                       " (each rank's batches depend on the job's size)");
  if (c.batch != batch)
    return differs("batch", std::to_string(c.batch) + " examples a step",
                   std::to_string(batch) +
                       " (the model's batch or --accumulate differs, so the "
                       "steps would not continue the same batches)");
  if (c.data != o.data)
    return differs("--data", "'" + c.data + "'", "'" + o.data + "'");
  if (c.seed != (int64_t)o.seed)
    return differs("--seed", std::to_string(c.seed), std::to_string(o.seed));
  if (c.precision != o.precision && !o.resumeOtherPrecision)
    return failure("--resume: the checkpoint was saved by a " + c.precision +
                   " run and this one is " + o.precision +
                   ": --resume-other-precision goes on from it (params and "
                   "optimizer state carry over; loss-scale and FP8 state "
                   "the checkpoint lacks start afresh)");
  return Status::success();
}

} // namespace

Expected<Checkpoint> captureCheckpoint(const TrainingStep &step,
                                       const RunOptions &options,
                                       const Job &job, int64_t steps,
                                       const std::mt19937 &rng,
                                       const BatchSource &batches) {
  Checkpoint c;
  c.step = steps;
  c.precision = options.precision;
  c.data = options.data;
  c.seed = options.seed;
  c.ranks = job.size();
  c.batch = batches.globalBatch();
  c.signature = signatureFingerprint(step.signature());
  const FunctionSpec &sig = step.signature();
  for (size_t i = 0; i < sig.args.size(); ++i) {
    if (!isSaved(sig.args[i]))
      continue;
    Checkpoint::Tensor t{(int64_t)i, *sig.args[i].role, sig.args[i].type, {}};
    t.bytes.resize(t.type.numel() * amprt_dtype_size(t.type.dtype));
    if (amprt_tensor_read(step.argument(i), t.bytes.data(), t.bytes.size()) !=
        AMPRT_OK)
      return runtimeError("reading the state for the checkpoint");
    c.tensors.push_back(std::move(t));
  }
  std::ostringstream generator;
  generator << rng;
  c.generator = generator.str();
  c.order = batches.state();
  return c;
}

Expected<int64_t> resumeRun(const Checkpoint &c, TrainingStep &step,
                            const RunOptions &options, const Job &job,
                            std::mt19937 &rng, BatchSource &batches) {
  if (Status bad = checkRun(c, options, job, batches.globalBatch()))
    return bad;
  std::map<std::pair<Role, int>, int64_t> wanted =
      argumentsByRole(step.signature());
  std::map<Role, int> count;
  for (const Checkpoint::Tensor &t : c.tensors) {
    int ordinal = count[t.role]++;
    auto at = wanted.find({t.role, ordinal});
    if (at == wanted.end()) {
      if (belongsToPrecision(t.role) && options.resumeOtherPrecision)
        continue; // state of the precision left behind
      return failure("--resume: the checkpoint holds " +
                     nameOf(t.role, ordinal, t.argument) +
                     ", which this step does not have");
    }
    const TensorSpec &type = step.signature().args[at->second].type;
    if (type != t.type)
      return failure("--resume: the checkpoint's " +
                     nameOf(t.role, ordinal, t.argument) + " is " +
                     t.type.str() + "; this step's is " + type.str());
    if (amprt_tensor_write(step.argument(at->second), t.bytes.data(),
                           t.bytes.size()) != AMPRT_OK)
      return runtimeError("restoring the state from the checkpoint");
    wanted.erase(at);
  }
  for (const auto &[key, argument] : wanted)
    if (!(belongsToPrecision(key.first) && options.resumeOtherPrecision))
      return failure("--resume: this step's " +
                     nameOf(key.first, key.second, argument) +
                     " is not in the checkpoint");
  std::istringstream generator(c.generator);
  generator >> rng;
  if (!generator)
    return failure("--resume: the checkpoint's generator state is not one");
  if (Status bad = batches.restore(c.order))
    return failure("--resume: " + bad.message());
  return c.step;
}

} // namespace amp::train
