//===- TrainingStep.h - Run a compiled step, step after step ----*- C++ -*-===//
//
// What every host of a compiled training step does, in one place: bind the
// batch and the state by tg.role, start the state as the step says
// (tg.init for params, tg.init_value for the loss scale and its counter),
// run the step and carry the returned state into the next one. amp-run,
// amp-train, the pipeline fuzzer's harness and the C++ host example use it.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_TRAININGSTEP_H
#define AMPTRAIN_TRAININGSTEP_H

#include "amptrain/StepSpec.h"
#include "amptrain/Tensors.h"
#include <random>
#include <vector>

namespace amp::train {

/// A compiled step: `int32_t step(ctx, args, results)`, one runtime tensor
/// per argument and result (amp-lower-to-runtime's calling convention).
using StepFn = int32_t (*)(void *, void **, void **);

/// A training step bound by role: one `input` and one `label` argument
/// (given per batch), one scalar f32 `loss` result, and state (params,
/// optimizer state, learning rate, loss scale and its counter) that the
/// step returns, in argument order, and the runner carries to the next
/// step. Owns the state's tensors, which belong to the context they were
/// made on: destroy the TrainingStep before that context.
class TrainingStep {
public:
  /// Binds `signature` (its name is used in errors).
  static Expected<TrainingStep> bind(FunctionSpec signature);

  /// What the step does not say: the learning rate when it has no
  /// tg.init_value (or when `overrideLearningRate`), and the loss scale of
  /// a step scaled by hand without tg.init_value.
  struct StartValues {
    double learningRate = 0.01;
    bool overrideLearningRate = false;
    double initScale = kDefaultInitScale;
  };
  /// Creates every state tensor: params by their tg.init (drawn from
  /// `rng`), other state at its tg.init_value, else zero.
  Status initialize(amprt_context *context, std::mt19937 &rng,
                    const StartValues &start);

  struct Outcome {
    float loss = 0;
    /// The loss scale before and after the step, when the step has one.
    std::optional<float> scaleBefore, scaleAfter;
    /// The step skipped its update: its tg.role "step_applied" result is false
    /// (loss scaling's finite check), or, for a step without one, its loss
    /// scale backed off.
    bool skipped = false;
    /// The step's new state was taken. A non-finite loss that loss
    /// scaling does not explain leaves the state as it was.
    bool committed = false;
    double seconds = 0;
    /// Runtime memory during the step: its peak above what was live
    /// before, what it left live (its results), and the difference.
    size_t peakBytes = 0, outputBytes = 0, transientBytes = 0;
    /// The step's results with tg.role "output" (probes, extra values), by
    /// result number; the other results are state or were released.
    std::vector<std::pair<unsigned, TensorPtr>> outputs;
  };
  /// Runs one step on `input` and `label` (consumed).
  Expected<Outcome> run(StepFn step, amprt_context *context, TensorPtr input,
                        TensorPtr label);
  /// The same on a batch the caller keeps: a compiled step reads its
  /// arguments and never writes or takes their storage, so the batch is
  /// as it was afterwards (the training loop runs a stopped step again).
  Expected<Outcome> run(StepFn step, amprt_context *context,
                        amprt_tensor *input, amprt_tensor *label);

  /// Runs `other`, a function that takes the same arguments as the bound
  /// step (`otherSignature`, checked; it may lack the amax histories and
  /// the communicator), on the current state and this batch,
  /// and returns all its results; the state is left as it was. amp-run
  /// --validate runs the f32 step beside the mixed one this way.
  Expected<std::vector<TensorPtr>> runAside(StepFn other,
                                            const FunctionSpec &otherSignature,
                                            amprt_context *context,
                                            amprt_tensor *input,
                                            amprt_tensor *label) const;

  /// Whether a step that loss scaling skips leaves the state as it was
  /// (its backed-off scale not taken) rather than committing it: what
  /// --trap-nonfinite needs to run the step again as it was.
  void keepStateOnSkip(bool keep) { holdSkipped = keep; }

  const FunctionSpec &signature() const { return sig; }
  const TensorSpec &inputType() const { return sig.args[input].type; }
  const TensorSpec &labelType() const { return sig.args[label].type; }
  bool hasLossScale() const { return scale >= 0; }
  /// The current params, in argument order.
  std::vector<amprt_tensor *> params() const;
  /// The current value of argument `index` (null for input and label).
  amprt_tensor *argument(size_t index) const { return args[index].get(); }
  size_t numArguments() const { return args.size(); }
  /// Every argument's current value (null for input and label).
  std::vector<amprt_tensor *> arguments() const;

private:
  TrainingStep(FunctionSpec signature) : sig(std::move(signature)) {}
  Status claimRoles();

  FunctionSpec sig;
  int input = -1, label = -1, loss = -1, scale = -1, scaleResult = -1,
      applied = -1;
  /// State results map, in order, onto the state arguments.
  std::vector<int> stateArgs, stateResults;
  std::vector<TensorPtr> args;
  bool holdSkipped = false;
};

/// Every argument and result of `f` must be a non-empty tensor, and the
/// arguments (and each result) must fit in `memoryBytes`. Checked with
/// overflow-safe sizes before anything is allocated, so a hostile shape is
/// a failure, not an abort in an allocator.
Status checkFits(const FunctionSpec &f, uint64_t memoryBytes);

/// The values a param starts at: Glorot-uniform, He-normal, zeros or ones,
/// with fans from the shape (OHWI for filters).
std::vector<float> initialValues(const TensorSpec &type, Initializer init,
                                 std::mt19937 &rng);

} // namespace amp::train

#endif // AMPTRAIN_TRAININGSTEP_H
