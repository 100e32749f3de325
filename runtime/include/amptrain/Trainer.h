//===- Trainer.h - The training loop of amp-run and amp-train ---*- C++ -*-===//
//
// Everything a trainer does once a step is compiled, with no MLIR: the run's
// options and their checks, the process group and the device, the data, the
// epoch/step loop with its loss-scale state and non-finite stop, progress,
// test accuracy and the JSON report. amp-run calls it after its JIT; amp-train
// calls it on a step compiled ahead of time, so the same flags give the same
// run and the same report.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_TRAINER_H
#define AMPTRAIN_TRAINER_H

#include "amptrain/Checkpoint.h"
#include "amptrain/Dataset.h"
#include "amptrain/Distributed.h"
#include "amptrain/Fp8Scales.h"
#include "amptrain/TrainingStep.h"
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>

namespace amp::train {

/// A run's flags, named as amp-run's command line names them.
struct RunOptions {
  std::string inputFile; // the report's "file"
  std::string precision = "f16";
  std::string device; // --device: "", "cpu" or "cuda"
  int64_t steps = 0, epochs = 1, batch = 0, logEvery = 100;
  std::string data = "synthetic";
  double lr = 0.01;
  bool lrGiven = false; // --lr given: it wins over the step's tg.init_value
  unsigned seed = 0;
  std::string reportPath;
  double initScale = kDefaultInitScale;
  // The process group.
  std::string comm = "auto";
  double commTimeout = 300;
  bool dataParallel = false, reduceAmax = true;
  std::string gradComm = "f32";
  int64_t bucketBytes = 25 << 20;
  bool gradCommGiven = false, bucketBytesGiven = false;
  std::string injectFault;
  // Checkpoints: --save=DIR (every --save-every steps, 0: at the end only)
  // and --resume=DIR; --resume-other-precision lets a run go on in another
  // precision than the one that saved it.
  std::string saveDir, resumeDir;
  int64_t saveEvery = 0;
  bool resumeOtherPrecision = false;
  /// Steps in a row skipped with the loss scale at its minimum before the
  /// run stops (loss scaling cannot make them finite).
  int64_t minScaleSkips = 1;
  /// Stop at the first step that is not finite, a step loss scaling would
  /// skip included, with the state as it was before it (--trap-nonfinite).
  bool trapNonFinite = false;
};

/// The checks every trainer makes of its flags before any work.
Status checkRunOptions(const RunOptions &options);

/// This process's place in the job and its device.
class Job {
public:
  /// Joins the process group `options` names, picks the device and makes a
  /// context on it. `tool` prefixes diagnostics ("amp-run").
  static Expected<Job> start(const char *tool, const RunOptions &options);

  /// One line "TOOL: error: [rank R: ]message" on stderr; under a launcher
  /// it ends every rank, since the others would wait in their next
  /// collective. Returns the exit status, 1.
  int fatal(const std::string &message) const;
  int fatal(const Status &status) const { return fatal(status.message()); }

  amprt_context *context() const { return ctx.get(); }
  const std::string &deviceName() const { return device; }
  int rank() const { return worldRank; }
  int size() const { return worldSize; }
  bool leader() const { return worldRank == 0; }
  /// The step must be compiled for data parallelism.
  bool parallel() const { return dataParallel; }
  const Fault &fault() const { return injected; }
  const char *tool() const { return toolName; }

private:
  const char *toolName = "amp-run";
  ContextPtr ctx;
  std::string device;
  int worldRank = 0, worldSize = 1;
  bool dataParallel = false;
  Fault injected;
};

/// The --data set, checked against the model's `features` per example.
Expected<Dataset> loadData(const RunOptions &options, int64_t features,
                           int64_t classes);

/// The text file --data=text[:FILE] names; none for other data.
std::optional<std::string> textFile(const std::string &data);

/// The batches of a run's steps (input and label tensors).
class BatchSource {
public:
  virtual ~BatchSource() = default;
  /// Steps in an epoch (0 when the data is smaller than a global batch).
  virtual int64_t perEpoch() const = 0;
  virtual int64_t globalBatch() const = 0;
  /// The batch of step `s`.
  virtual Expected<std::pair<TensorPtr, TensorPtr>> next(int64_t s) = 0;
  /// What the batches hold besides the run's generator (the epoch's
  /// example order), for a checkpoint, and its restoring.
  virtual std::vector<int64_t> state() const { return {}; }
  virtual Status restore(const std::vector<int64_t> &state) {
    return state.empty() ? Status::success()
                         : failure("the checkpoint holds an example order, "
                                   "but this run's data has none");
  }
};

/// Examples with class labels: each step reads one global batch of
/// ranks * batch examples of the epoch's shuffled order (the same on every
/// rank: same seed); rank r takes its r-th slice, so N ranks see what one
/// process with an N times larger batch would.
class ExampleBatches : public BatchSource {
public:
  ExampleBatches(const Split &train, const TensorSpec &input,
                 const TensorSpec &label, const Job &job, std::mt19937 &rng);
  int64_t perEpoch() const override { return epochSteps; }
  int64_t globalBatch() const override { return batch * ranks; }
  /// A fresh shuffle at each epoch's start.
  Expected<std::pair<TensorPtr, TensorPtr>> next(int64_t s) override;
  std::vector<int64_t> state() const override { return order; }
  Status restore(const std::vector<int64_t> &state) override;

private:
  const Split &train;
  TensorSpec inputType, labelType;
  const Job &job;
  std::mt19937 &rng;
  int64_t batch, ranks, features, epochSteps;
  std::vector<int64_t> order;
  std::vector<float> x, y;
};

/// Text for a model whose input is [batch, context] bytes and whose label
/// is the next byte of each, [batch * context]: each step draws
/// ranks * batch windows of context + 1 bytes at random (seeded) from the
/// training text, and rank r takes its r-th batch of them. An epoch is as
/// many steps as the training text has bytes per global batch.
class TextBatches : public BatchSource {
public:
  TextBatches(const TextCorpus &text, const TensorSpec &input,
              const TensorSpec &label, const Job &job, std::mt19937 &rng);
  int64_t perEpoch() const override;
  int64_t globalBatch() const override { return batch * ranks; }
  Expected<std::pair<TensorPtr, TensorPtr>> next(int64_t s) override;

private:
  const TextCorpus &text;
  TensorSpec inputType, labelType;
  const Job &job;
  std::mt19937 &rng;
  int64_t batch, context, ranks;
  std::vector<float> x, y;
};

/// A run's data and its batches: examples (Fashion-MNIST or synthetic),
/// or text. Held by pointer: the batches refer to the data, which stays put
/// when a RunData moves.
struct RunData {
  std::unique_ptr<Dataset> examples;
  std::unique_ptr<TextCorpus> text;
  std::unique_ptr<BatchSource> batches;
};

/// Loads --data for `step` (checked against its input and label) and makes
/// the batches, drawn with `rng`.
Expected<RunData> prepareData(const Job &job, const TrainingStep &step,
                              const RunOptions &options, int64_t classes,
                              std::mt19937 &rng);

/// A compiled eval function: params in order and an input (tg.role
/// "input"), returning logits (tg.role "logits"); for text, params, input
/// and label (tg.role "label"), returning the loss (tg.role "loss").
struct EvalFunction {
  FunctionSpec signature;
  StepFn fn = nullptr;
};

/// The compiled step to train and what its report needs.
struct CompiledStep {
  StepFn train = nullptr;
  std::optional<EvalFunction> eval;
  std::vector<Fp8History> fp8;
  /// The classes of synthetic data (the loss's logits).
  int64_t lossClasses = 10;
  /// Names what made step `s` non-finite when the run stops on it: called
  /// with the step's batch while the state is still what the step started
  /// from; its sentence is added to the stop's message and the report.
  /// Empty (amp-train has no compiler to instrument the step with): the
  /// message alone.
  std::function<std::string(TrainingStep &step, int64_t s, amprt_tensor *input,
                            amprt_tensor *label)>
      explainNonFinite;
};

/// Trains `step` (bound, not yet initialised) as `options` say and writes
/// the report; returns the process's exit status, after a diagnostic
/// through `job` when it is not 0.
int trainSteps(Job &job, TrainingStep &step, const CompiledStep &compiled,
               const RunOptions &options);

/// The training input's batch checked against --batch and the label's
/// shape.
Status checkBatch(const TrainingStep &step, const RunOptions &options);

/// The run's state after `steps` steps as a checkpoint (Checkpoint.h).
Expected<Checkpoint> captureCheckpoint(const TrainingStep &step,
                                       const RunOptions &options,
                                       const Job &job, int64_t steps,
                                       const std::mt19937 &rng,
                                       const BatchSource &batches);

/// Puts the run back where --resume's checkpoint left it: the step's state,
/// the generator and the batches. Refuses, naming what differs, a
/// checkpoint of another step (roles, types), data, seed or job size, or of
/// another precision unless --resume-other-precision (then the params and
/// optimizer state carry over and loss-scale and FP8 state the step has
/// but the checkpoint lacks start afresh). Returns the step to go on from.
Expected<int64_t> resumeRun(const Checkpoint &checkpoint, TrainingStep &step,
                            const RunOptions &options, const Job &job,
                            std::mt19937 &rng, BatchSource &batches);

/// The run's step count: --steps, else --epochs of `perEpoch` steps; a
/// failure when an epoch has no step.
Expected<int64_t> totalSteps(const RunOptions &options, int64_t perEpoch);

/// The first state of `step`, drawn from `rng` (seeded with --seed), and on
/// every rank rank 0's.
Status startState(Job &job, TrainingStep &step, const RunOptions &options,
                  std::mt19937 &rng);

/// Runs an eval function on `params` in order with `input` at its input
/// argument (and `label` at its label argument, where it has one), and
/// owns its results.
Expected<std::vector<TensorPtr>>
runEval(amprt_context *ctx, const EvalFunction &eval,
        const std::vector<amprt_tensor *> &params, amprt_tensor *input,
        amprt_tensor *label = nullptr);

/// What rank 0's evaluation measured: test accuracy (examples) or
/// validation loss (text), and how many examples or windows it scored.
struct Evaluation {
  std::optional<double> accuracy, validationLoss;
  int64_t scored = 0;
};

/// Evaluates the trained `params` with `eval` on the run's held-out data:
/// the test split's accuracy, or the mean loss over the validation text's
/// non-overlapping windows of context + 1 bytes (whole batches of them).
Expected<Evaluation> evaluate(amprt_context *ctx, const EvalFunction &eval,
                              const std::vector<amprt_tensor *> &params,
                              const RunData &data);

/// Writes `bytes` to `path` (named by `flag` in errors): to a temporary
/// file beside it, then renamed over it, so a failed write leaves what was
/// there; a device or a pipe (/dev/stdout) is written in place; through a
/// symlink, the file it names is replaced.
Status writeFile(const std::string &path, const std::string &flag,
                 std::string_view bytes);

/// The same with the content written in pieces by `content`, which returns
/// false when a write to its FILE fails (a long report is never held whole).
Status writeFileFrom(const std::string &path, const std::string &flag,
                     const std::function<bool(std::FILE *)> &content);

/// Writes `value` as indented JSON to `path` (writeFile).
Status writeJson(const std::string &path, const std::string &flag,
                 const json::Value &value);

/// A failure now, rather than after the work, when `path` cannot be
/// written (`flag` names it).
Status checkWritable(const std::string &flag, const std::string &path);

/// A file a flag names ("--report", "out.json"); an empty path is none.
struct FlagPath {
  std::string flag, path;
};

/// The files --data=`data` reads (each IDX file plain and gzipped), as
/// inputs no output may name; none for synthetic data.
std::vector<FlagPath> dataInputs(const std::string &data);

/// A failure when an output names an input or another output -- the same
/// file, however the path is spelled (its device and inode, or for a file
/// not there yet its folder's and its name) -- which writing it would
/// destroy or overwrite. Devices and pipes (/dev/null, /dev/stdout) may be
/// named more than once.
Status checkOutputsApart(const std::vector<FlagPath> &inputs,
                         const std::vector<FlagPath> &outputs);

} // namespace amp::train

#endif // AMPTRAIN_TRAINER_H
