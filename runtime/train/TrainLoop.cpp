//===- TrainLoop.cpp - Step after step, then the test set and the report --===//

#include "amptrain/Trainer.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

namespace amp::train {

Status startState(Job &job, TrainingStep &step, const RunOptions &options,
                  std::mt19937 &rng) {
  TrainingStep::StartValues start;
  start.learningRate = options.lr;
  // --lr given on the command line wins over the step's own value.
  start.overrideLearningRate = options.lrGiven;
  start.initScale = options.initScale;
  if (Status failed = step.initialize(job.context(), rng, start))
    return failed;
  if (job.size() == 1)
    return Status::success();
  // Every rank starts from rank 0's state (the same seed draws the same
  // values; the broadcast makes that a guarantee, not a coincidence).
  const FunctionSpec &sig = step.signature();
  for (size_t i = 0; i < sig.args.size(); ++i)
    if (amprt_tensor *state = step.argument(i);
        state && sig.args[i].role != Role::Communicator)
      if (amprt_comm_broadcast(state, 0) != AMPRT_OK)
        return runtimeError("broadcasting the initial state");
  return Status::success();
}

/// The sizes and times of a run, step by step.
/// One step's line of the report: a few words, not a JSON object, so a
/// long run's memory stays small (and none is kept without --report).
struct StepRecord {
  float loss, scale, milliseconds;
  bool skipped;
};

struct RunTotals {
  /// The first step this process ran (a resumed run's checkpoint step).
  int64_t firstStep = 0;
  std::vector<StepRecord> perStep;
  /// Set when a non-finite loss stopped the run: the step and why.
  std::optional<std::pair<int64_t, std::string>> stopped;
  int64_t skipped = 0, skipsAtMinimum = 0;
  bool lastSkipped = false;
  double lastLoss = 0, trainSeconds = 0, wallSeconds = 0;
  size_t peakStepBytes = 0, stepOutputBytes = 0, peakActivationBytes = 0;
  uint64_t bytesSent = 0, collectives = 0;
};

/// The message of a loss that went non-finite where loss scaling does not
/// explain it.
static std::string nonFiniteStop(int64_t s, float loss,
                                 const std::string &precision) {
  return "step " + std::to_string(s) + ": the loss is " +
         (std::isnan(loss) ? "NaN" : "inf") + " in the " + precision +
         " step and loss scaling does not explain it (the step was not "
         "skipped); stopping with the last good parameters. " +
         (precision == "f32"
              ? std::string("Lower --lr?")
              : "Run with --validate to find the ops that break in " +
                    precision + ", or lower --lr");
}

/// Why the step that gave `o` stops the run, or nothing: a non-finite loss
/// the step did not skip; a skip with the scale already at its minimum
/// (it did not back off: loss scaling cannot make the step finite, and
/// would skip forever) --min-scale-skips times in a row; with
/// --trap-nonfinite, any skip.
static std::optional<std::string> stopReason(const TrainingStep::Outcome &o,
                                             const RunOptions &options,
                                             int64_t s, RunTotals &run) {
  if (!o.committed && !o.skipped)
    return nonFiniteStop(s, o.loss, options.precision);
  if (options.trapNonFinite && o.skipped) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", o.scaleBefore.value_or(1.0f));
    return "step " + std::to_string(s) + ": --trap-nonfinite: the " +
           options.precision +
           " step is not finite (loss scaling would have skipped it at "
           "scale " +
           scale + "); stopping with the parameters it started from.";
  }
  bool atMinimum = o.skipped && o.scaleBefore && o.scaleAfter &&
                   *o.scaleAfter >= *o.scaleBefore;
  run.skipsAtMinimum = atMinimum ? run.skipsAtMinimum + 1 : 0;
  if (run.skipsAtMinimum < options.minScaleSkips)
    return std::nullopt;
  return nonFiniteStop(s, o.loss, options.precision) + " (the loss scale is " +
         "at its minimum, " + std::to_string(*o.scaleAfter) +
         ", and the last " + std::to_string(run.skipsAtMinimum) +
         " steps overflowed: --min-scale-skips)";
}

/// One step of the loop: the batch, the step, the FP8 bookkeeping, the
/// totals and the progress line.
static Status trainOne(Job &job, TrainingStep &step,
                       const CompiledStep &compiled, BatchSource &batches,
                       Fp8ScaleTracker *fp8, const RunOptions &options,
                       int64_t s, int64_t total, RunTotals &run) {
  bool processFault =
      job.fault().kind == Fault::Exit || job.fault().kind == Fault::Hang;
  if (processFault && job.fault().at(job.rank(), s))
    injectProcessFault(job.fault(), job.tool());
  auto batch = batches.next(s);
  if (!batch)
    return batch.status();
  if (fp8)
    if (Status failed = fp8->beforeStep(step.arguments().data()))
      return failed;
  // The batch stays the loop's: a stop explains itself on it.
  auto &[input, label] = *batch;
  auto outcome =
      step.run(compiled.train, job.context(), input.get(), label.get());
  if (!outcome)
    return failure("step " + std::to_string(s) +
                   " failed: " + outcome.message());
  if (fp8)
    if (Status failed = fp8->afterStep(step.arguments().data()))
      return failed;
  run.peakStepBytes = std::max(run.peakStepBytes, outcome->peakBytes);
  run.stepOutputBytes = std::max(run.stepOutputBytes, outcome->outputBytes);
  run.peakActivationBytes =
      std::max(run.peakActivationBytes, outcome->transientBytes);
  run.trainSeconds += outcome->seconds;
  if (auto stop = stopReason(*outcome, options, s, run)) {
    if (compiled.explainNonFinite)
      *stop += (stop->back() == '.' ? " " : ". ") +
               compiled.explainNonFinite(step, s, input.get(), label.get());
    run.stopped.emplace(s, *stop);
    return failure(*stop);
  }
  float loss = outcome->loss;
  run.skipped += outcome->skipped;
  run.lastSkipped = outcome->skipped;
  run.lastLoss = loss;
  float newScale = outcome->scaleAfter.value_or(1.0f);
  if (!options.reportPath.empty())
    run.perStep.push_back(
        {loss, newScale, float(outcome->seconds * 1e3), outcome->skipped});
  if (job.leader() && ((s + 1) % options.logEvery == 0 || s + 1 == total))
    std::fprintf(stderr,
                 "step %lld/%lld  loss %.4f  scale %g  skipped %lld  %.0f "
                 "samples/s\n",
                 (long long)(s + 1), (long long)total, loss, newScale,
                 (long long)run.skipped,
                 (s + 1) * batches.globalBatch() / run.trainSeconds);
  return Status::success();
}

/// The bytes of every param, fingerprinted: ranks that agree on every
/// update end with the same one.
static Expected<std::string> paramsFingerprint(const TrainingStep &step) {
  std::string bytes;
  for (amprt_tensor *param : step.params()) {
    std::string one(amprt_tensor_numel(param) *
                        amprt_dtype_size(amprt_tensor_dtype(param)),
                    '\0');
    if (amprt_tensor_read(param, one.data(), one.size()) != AMPRT_OK)
      return runtimeError("reading the parameters");
    bytes += one;
  }
  return fingerprintHex(bytes);
}

/// The report's object for the data-parallel job.
static json::Object parallelRecord(const Job &job, const RunOptions &options,
                                   const RunTotals &run, int64_t steps,
                                   int64_t globalBatch) {
  return json::Object{
      {"rank", job.rank()},
      {"ranks", job.size()},
      {"backend", amprt_comm_backend()},
      {"global_batch", globalBatch},
      {"grad_comm", options.gradComm},
      {"bucket_bytes", options.bucketBytes},
      {"reduce_amax", options.precision == "fp8" && options.reduceAmax},
      {"collectives_per_step", steps ? double(run.collectives) / steps : 0.0},
      {"bytes_sent_per_step", steps ? double(run.bytesSent) / steps : 0.0}};
}

/// Record `s` of the report's per_step list.
static json::Value stepRecord(const StepRecord &r, int64_t s, bool lossScale) {
  json::Object record{{"step", s},
                      {"loss", r.loss},
                      {"skipped", r.skipped},
                      {"time_ms", r.milliseconds}};
  if (lossScale)
    record["loss_scale"] = r.scale;
  return record;
}

/// Writes `report` with the per_step list last, made and written a record at
/// a time: a long run's list is never held as JSON values or text.
static Status writeReportFile(const std::string &path,
                              const json::Object &report, const RunTotals &run,
                              bool lossScale) {
  return writeFileFrom(path, "--report", [&](std::FILE *file) {
    auto write = [&](std::string_view text) {
      return std::fwrite(text.data(), 1, text.size(), file) == text.size();
    };
    auto record = [&](size_t s) {
      return stepRecord(run.perStep[s], run.firstStep + (int64_t)s, lossScale);
    };
    return json::printWithLongArray(report, "per_step", run.perStep.size(),
                                    record, write) &&
           write("\n");
  });
}

/// Rank 0 writes the report; a path with {rank} gets one from every rank.
static Status writeReport(const Job &job, const TrainingStep &step,
                          const Fp8ScaleTracker &fp8, const RunOptions &options,
                          const RunTotals &run, int64_t steps, int64_t batch,
                          int64_t globalBatch, const Evaluation &evaluation) {
  std::string path = options.reportPath;
  bool perRank = path.find("{rank}") != std::string::npos;
  for (size_t at; (at = path.find("{rank}")) != std::string::npos;)
    path.replace(at, 6, std::to_string(job.rank()));
  if (path.empty() || !(job.leader() || perRank))
    return Status::success();
  Expected<std::string> params = paramsFingerprint(step);
  if (!params)
    return params.status();
  json::Object report{
      {"file", options.inputFile},
      {"precision", options.precision},
      {"device", job.deviceName()},
      {"batch", batch},
      {"steps", steps},
      {"skipped_steps", run.skipped},
      {"final_loss", run.lastLoss},
      {"peak_step_bytes", (int64_t)run.peakStepBytes},
      {"step_output_bytes", (int64_t)run.stepOutputBytes},
      {"peak_activation_bytes", (int64_t)run.peakActivationBytes},
      {"train_seconds", run.trainSeconds},
      {"wall_seconds", run.wallSeconds},
      {"samples_per_second", steps * globalBatch / run.trainSeconds},
      {"fp8_scales", fp8.toJson(step.arguments().data())},
      {"params_fingerprint", *params}};
  if (run.stopped)
    report["stopped"] = json::Object{{"step", run.stopped->first},
                                     {"reason", run.stopped->second}};
  if (run.firstStep > 0)
    report["resumed_from"] = run.firstStep;
  if (job.parallel())
    report["data_parallel"] =
        parallelRecord(job, options, run, steps, globalBatch);
  if (evaluation.accuracy)
    report["final_accuracy"] = *evaluation.accuracy;
  if (evaluation.validationLoss) {
    report["final_val_loss"] = *evaluation.validationLoss;
    report["final_val_bits_per_byte"] = *evaluation.validationLoss / M_LN2;
    report["val_windows"] = evaluation.scored;
  }
  return writeReportFile(path, report, run, step.hasLossScale());
}

/// --inject-fault=save-exit: this rank exits halfway through writing the
/// checkpoint, as a killed run would.
static void exitHalfway(void *job) {
  const Job &j = *static_cast<const Job *>(job);
  injectProcessFault(j.fault(), j.tool());
}

/// Rank 0 writes the checkpoint of the run after `steps` steps (every rank
/// holds the same state).
static Status saveRun(const Job &job, const TrainingStep &step,
                      const RunOptions &options, int64_t steps,
                      const std::mt19937 &rng, const BatchSource &batches,
                      const RunTotals &run, const Fp8ScaleTracker &fp8) {
  if (!job.leader())
    return Status::success();
  auto checkpoint = captureCheckpoint(step, options, job, steps, rng, batches);
  if (!checkpoint)
    return checkpoint.status();
  checkpoint->skippedSteps = run.skipped;
  checkpoint->fp8Saturated = fp8.saturatedCounts();
  bool crash =
      job.fault().kind == Fault::SaveExit && job.fault().at(job.rank(), steps);
  if (Status bad = checkpoint->save(
          options.saveDir, crash ? exitHalfway : nullptr,
          const_cast<Job *>(&job)))
    return bad;
  std::fprintf(stderr, "saved step %lld to %s\n", (long long)steps,
               Checkpoint::pathIn(options.saveDir).c_str());
  return Status::success();
}

/// Loads --resume's checkpoint and puts the run back at its step.
static Expected<int64_t> resumeFrom(Job &job, TrainingStep &step,
                                    const RunOptions &options,
                                    std::mt19937 &rng, BatchSource &batches,
                                    int64_t total, RunTotals &run,
                                    Fp8ScaleTracker &fp8) {
  auto checkpoint = Checkpoint::load(options.resumeDir);
  if (!checkpoint)
    return checkpoint.status();
  auto first = resumeRun(*checkpoint, step, options, job, rng, batches);
  if (!first)
    return first.status();
  run.skipped = checkpoint->skippedSteps;
  if (checkpoint->precision == options.precision)
    if (Status bad = fp8.restoreCounts(checkpoint->fp8Saturated))
      return failure("--resume: " + bad.message());
  if (*first >= total)
    return failure("--resume: the checkpoint is at step " +
                   std::to_string(*first) + " and the run has " +
                   std::to_string(total) +
                   " steps: nothing is left to train (--steps and --epochs "
                   "count from the original run's start)");
  if (job.leader())
    std::fprintf(stderr, "resumed at step %lld from %s\n", (long long)*first,
                 Checkpoint::pathIn(options.resumeDir).c_str());
  return first;
}

Expected<int64_t> totalSteps(const RunOptions &options, int64_t perEpoch) {
  if (perEpoch < 1)
    return failure("the training split is smaller than one batch");
  int64_t total = options.steps;
  if (options.steps == 0 &&
      __builtin_mul_overflow(perEpoch, options.epochs, &total))
    return failure("--epochs=" + std::to_string(options.epochs) + " at " +
                   std::to_string(perEpoch) +
                   " steps an epoch is more steps than 64 bits count");
  return total;
}

/// A model for --data=text: bytes in [batch, context] i32 or i64, and the
/// next byte of each in [batch * context].
static Status checkTextShapes(const TensorSpec &input,
                              const TensorSpec &label) {
  auto integer = [](const TensorSpec &t) {
    return t.dtype == AMPRT_I32 || t.dtype == AMPRT_I64;
  };
  if (input.rank() != 2 || !integer(input) || input.shape[1] < 1)
    return failure("--data=text needs an input of bytes [batch, context] "
                   "(i32 or i64), got " +
                   input.str());
  int64_t tokens = input.shape[0] * input.shape[1];
  if (label.rank() != 1 || label.shape[0] != tokens || !integer(label))
    return failure("--data=text needs a label of the next bytes [" +
                   std::to_string(tokens) + "] (batch x context), got " +
                   label.str());
  return Status::success();
}

Status checkBatch(const TrainingStep &step, const RunOptions &options) {
  const TensorSpec &input = step.inputType(), &label = step.labelType();
  if (input.rank() == 0 || input.shape[0] < 1)
    return failure("the input argument (" + input.str() +
                   ") needs a leading batch dimension of at least 1");
  int64_t batch = input.shape[0];
  if (options.batch && options.batch != batch)
    return failure("--batch=" + std::to_string(options.batch) +
                   " but the model's input batch is " + std::to_string(batch));
  if (textFile(options.data))
    return checkTextShapes(input, label);
  if (label.rank() != 1 || label.shape[0] != batch)
    return failure("the label argument must be [" + std::to_string(batch) +
                   "] class indices");
  return Status::success();
}

int trainSteps(Job &job, TrainingStep &step, const CompiledStep &compiled,
               const RunOptions &options) {
  if (Status bad = checkBatch(step, options))
    return job.fatal(bad);
  int64_t batch = step.inputType().shape[0];
  step.keepStateOnSkip(options.trapNonFinite);
  std::mt19937 rng(options.seed);
  if (Status failed = startState(job, step, options, rng))
    return job.fatal(failed);
  auto data = prepareData(job, step, options, compiled.lossClasses, rng);
  if (!data)
    return job.fatal(data.status());
  BatchSource &batches = *data->batches;
  auto total = totalSteps(options, batches.perEpoch());
  if (!total)
    return job.fatal(total.status());

  RunTotals run;
  Fp8ScaleTracker fp8(compiled.fp8);
  if (!options.resumeDir.empty()) {
    auto first = resumeFrom(job, step, options, rng, batches, *total, run, fp8);
    if (!first)
      return job.fatal(first.status());
    run.firstStep = *first;
  }
  bool trackFp8 =
      (!options.reportPath.empty() || !options.saveDir.empty()) && !fp8.empty();
  amprt_comm_set_timeout(options.commTimeout);
  uint64_t bytesBefore = 0, collectivesBefore = 0;
  amprt_comm_stats(&bytesBefore, &collectivesBefore);
  auto wallStart = std::chrono::steady_clock::now();
  for (int64_t s = run.firstStep; s < *total; ++s) {
    Status failed =
        trainOne(job, step, compiled, batches, trackFp8 ? &fp8 : nullptr,
                 options, s, *total, run);
    if (!failed) {
      // --save-every counts applied steps: a skipped step changed nothing.
      int64_t applied = s + 1 - run.skipped;
      bool due = options.saveEvery > 0 && !run.lastSkipped &&
                 applied % options.saveEvery == 0;
      if (due && s + 1 < *total)
        if (Status bad =
                saveRun(job, step, options, s + 1, rng, batches, run, fp8))
          return job.fatal(bad);
      continue;
    }
    // A stop on a non-finite loss still reports the steps that ran, with
    // the reason, over the last good parameters.
    if (run.stopped)
      if (Status bad = writeReport(job, step, fp8, options, run, s, batch,
                                   batches.globalBatch(), Evaluation()))
        return job.fatal(bad);
    return job.fatal(failed);
  }
  if (!options.saveDir.empty())
    if (Status bad =
            saveRun(job, step, options, *total, rng, batches, run, fp8))
      return job.fatal(bad);
  amprt_comm_stats(&run.bytesSent, &run.collectives);
  run.bytesSent -= bytesBefore;
  run.collectives -= collectivesBefore;
  run.wallSeconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - wallStart)
                        .count();

  Evaluation evaluation;
  if (compiled.eval && job.leader()) { // rank 0 evaluates, once
    auto scored = evaluate(job.context(), *compiled.eval, step.params(), *data);
    if (!scored)
      return job.fatal(scored.status());
    evaluation = *scored;
  }
  if (Status failed = writeReport(job, step, fp8, options, run, *total, batch,
                                  batches.globalBatch(), evaluation))
    return job.fatal(failed);
  if (amprt_comm_finalize() != AMPRT_OK)
    return job.fatal(amprt_last_error());
  return 0;
}

} // namespace amp::train
