//===- StepRunner.h - Run a compiled step, step after step ----*- C++ -*-===//
//
// What every host of a compiled step does, in one place: read the step's
// signature and tg.role of each argument and result, refuse what the
// runtime cannot hold, bind the batch and the state by role, start the
// state as the IR says (tg.init for params, tg.init_value for the loss
// scale and its counter), run the step and carry the returned state into
// the next one. Runtime contexts and tensors are owned by RAII handles, so
// every exit path -- an error in the middle of training included -- frees
// them. amp-run, the pipeline fuzzer's harness and the C++ host example use
// it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_STEPRUNNER_H
#define AMP_RUNNER_STEPRUNNER_H

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Transforms/LossScalingDefaults.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <random>
#include <vector>

namespace amp::runner {

//===----------------------------------------------------------------------===//
// Owning handles
//===----------------------------------------------------------------------===//

struct ContextDeleter {
  void operator()(amprt_context *context) const {
    amprt_context_destroy(context);
  }
};
struct TensorDeleter {
  void operator()(amprt_tensor *tensor) const { amprt_tensor_release(tensor); }
};
using ContextPtr = std::unique_ptr<amprt_context, ContextDeleter>;
using TensorPtr = std::unique_ptr<amprt_tensor, TensorDeleter>;

/// A runtime context on `device`; the error says why there is none.
llvm::Expected<ContextPtr> createContext(amprt_device device, int ordinal = 0);

/// The runtime's element type for `element`, if it holds that type.
std::optional<amprt_dtype> dtypeOf(mlir::Type element);
/// A new, uninitialised runtime tensor of `type`.
llvm::Expected<TensorPtr> makeTensor(amprt_context *context,
                                     mlir::RankedTensorType type);
/// A tensor of `type` holding `values` (one per element, row-major):
/// integers are written as they are, 16-bit floats are cast from an f32
/// copy on the device, as the step's own casts round.
llvm::Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                           mlir::RankedTensorType type,
                                           const float *values);
/// The single value of a rank-0 (or one-element) f32 or i64 tensor.
llvm::Expected<float> readScalar(amprt_tensor *tensor);
/// An error carrying the runtime's last error message after `what`.
llvm::Error runtimeError(const llvm::Twine &what);

//===----------------------------------------------------------------------===//
// The step's signature
//===----------------------------------------------------------------------===//

/// A compiled step: `int32_t step(ctx, args, results)`, one runtime tensor
/// per argument and result (amp-lower-to-runtime's calling convention).
using StepFn = int32_t (*)(void *, void **, void **);

/// One function's tensor types and the tg.role, tg.init and tg.init_value
/// of every argument and result.
struct Signature {
  std::vector<mlir::RankedTensorType> argTypes, resultTypes;
  std::vector<std::optional<tg::Role>> argRoles, resultRoles;
  std::vector<tg::Initializer> argInits;
  /// tg.init_value of each argument (the first value of step state).
  std::vector<std::optional<double>> argInitValues;

  /// Reads `f`, which must be verified and have ranked tensor types only
  /// (checkSignature says so before lowering).
  static Signature of(mlir::func::FuncOp f);
};

/// Every argument and result of `f` must be a non-empty, statically shaped
/// tensor of a type the runtime holds, and the arguments must fit in
/// `memoryBytes`. Checked with overflow-safe sizes before anything is
/// allocated, so a hostile shape is an error, not an abort in an allocator.
llvm::Error checkSignature(mlir::func::FuncOp f, uint64_t memoryBytes);

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// A module lowered to the LLVM dialect, JIT-compiled.
class JitModule {
public:
  struct Options {
    llvm::CodeGenOptLevel optLevel = llvm::CodeGenOptLevel::Default;
    /// Keep the object code so dumpToObjectFile can write it.
    bool keepObject = false;
  };
  static llvm::Expected<JitModule> create(mlir::ModuleOp module,
                                          const Options &options);
  /// The compiled step function `name`.
  llvm::Expected<StepFn> lookup(llvm::StringRef name) const;
  /// Writes the object code (Options::keepObject) to `path`.
  llvm::Error dumpToObjectFile(llvm::StringRef path) const;

private:
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

//===----------------------------------------------------------------------===//
// Training, step after step
//===----------------------------------------------------------------------===//

/// A training step bound by role: one `input` and one `label` argument
/// (given per batch), one scalar f32 `loss` result, and state (params,
/// optimizer state, learning rate, loss scale and its counter) that the
/// step returns, in argument order, and the runner carries to the next
/// step. Owns the state's tensors, which belong to the context they were
/// made on: destroy the TrainingStep before that context (declare the
/// ContextPtr first).
class TrainingStep {
public:
  /// Binds `signature`, the signature of @`name` (named in errors).
  static llvm::Expected<TrainingStep> bind(llvm::StringRef name,
                                           Signature signature);

  /// What the IR does not say: the learning rate when it has no
  /// tg.init_value (or when `overrideLearningRate`), and the loss scale of
  /// a step scaled by hand without tg.init_value.
  struct StartValues {
    double learningRate = 0.01;
    bool overrideLearningRate = false;
    double initScale = loss_scaling::kInitScale;
  };
  /// Creates every state tensor: params by their tg.init (drawn from
  /// `rng`), other state at its tg.init_value, else zero.
  llvm::Error initialize(amprt_context *context, std::mt19937 &rng,
                         const StartValues &start);

  struct Outcome {
    float loss = 0;
    /// The loss scale before and after the step, when the step has one.
    std::optional<float> scaleBefore, scaleAfter;
    /// The step skipped its update (the scale backed off).
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
  llvm::Expected<Outcome> run(StepFn step, amprt_context *context,
                              TensorPtr input, TensorPtr label);

  /// Runs `other`, a function that takes the same arguments as the bound
  /// step (`otherSignature`, checked), on the current state and this batch,
  /// and returns all its results; the state is left as it was. amp-run
  /// --validate runs the f32 step beside the mixed one this way.
  llvm::Expected<std::vector<TensorPtr>>
  runAside(StepFn other, const Signature &otherSignature,
           amprt_context *context, amprt_tensor *input,
           amprt_tensor *label) const;

  const Signature &signature() const { return sig; }
  mlir::RankedTensorType inputType() const { return sig.argTypes[input]; }
  mlir::RankedTensorType labelType() const { return sig.argTypes[label]; }
  bool hasLossScale() const { return scale >= 0; }
  /// The current params, in argument order.
  std::vector<amprt_tensor *> params() const;
  /// The current value of argument `index` (null for input and label).
  amprt_tensor *argument(size_t index) const { return args[index].get(); }
  size_t numArguments() const { return args.size(); }

private:
  TrainingStep(Signature signature) : sig(std::move(signature)) {}

  Signature sig;
  int input = -1, label = -1, loss = -1, scale = -1, scaleResult = -1;
  /// State results map, in order, onto the state arguments.
  std::vector<int> stateArgs, stateResults;
  std::vector<TensorPtr> args;
};

} // namespace amp::runner

#endif // AMP_RUNNER_STEPRUNNER_H
