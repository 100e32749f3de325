//===- NonFinite.h - Name the op behind a non-finite step -------*- C++ -*-===//
//
// When a run stops on a step that is not finite (a NaN or inf loss the
// step did not skip, skips at the minimum loss scale, or any skip under
// --trap-nonfinite), amp-run runs that step again on its batch and state as
// --validate's f32 step: every op the precision pass lowers is computed in
// f32 beside a copy of it in the low precision fed the op's f32 inputs
// (--amp-validation-probes). The first op in program order (forward ops,
// then backward) whose low-precision result overflows or turns NaN, whose
// operands do not fit the low precision, or whose f32 result is not finite
// either, is the one named: before it every value is finite, so it is the
// first to make one that is not.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_NONFINITE_H
#define AMP_RUN_NONFINITE_H

#include "amp/Run/Validation.h"
#include "amp/Runner/StepRunner.h"
#include "amptrain/TrainingStep.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace amp::run {

/// One probe's values after a run of the probed step.
using ProbeValues = std::vector<std::pair<ProbeInfo, std::vector<float>>>;

/// Appends the values of `probes` among `results` to `measured`; false
/// when one cannot be read.
bool readProbeValues(llvm::ArrayRef<ProbeInfo> probes,
                     llvm::ArrayRef<train::TensorPtr> results,
                     ProbeValues &measured);

/// An operand of the op a step's probes found first.
struct NonFiniteInput {
  int64_t index = 0;
  /// Its largest magnitude in f32, and how many of its values overflow
  /// when cast to the low precision.
  double maxAbs = 0, overflow = 0;
};

/// The first op whose values are not finite, with what its probes saw.
struct NonFiniteOp {
  ProbeInfo op;
  /// The low-precision result against the f32 one.
  ErrorSums result;
  std::vector<NonFiniteInput> inputs;
};

/// The op of lowest id (program order) whose result probe counts an
/// overflow, a NaN or a non-finite f32 value, or whose operand probes
/// count an overflow; none when every probed op stayed finite.
std::optional<NonFiniteOp> firstNonFinite(const ProbeValues &measured);

/// One sentence for the stop's message: the op and where it is (in
/// `batch`, a micro-batch, when not empty), its precision, forward or
/// backward, how many of its values are not finite, its operands' largest
/// magnitudes, and whether f32 overflows too.
std::string describe(const NonFiniteOp &found, const std::string &batch = "");

/// Runs a stopped step again as the probed f32 step, compiled on first
/// use, and names the first op that is not finite.
class NonFiniteExplainer {
public:
  /// Makes the probed step (the input module instrumented, not lowered).
  using Instrument =
      std::function<llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>()>;
  /// Lowers it to the LLVM dialect and JIT-compiles it.
  using Compile =
      std::function<llvm::Expected<runner::JitModule>(mlir::ModuleOp)>;

  NonFiniteExplainer(Instrument instrument, Compile compile, std::string entry);

  /// The sentence for step `s` (its batch `input`, `label`, and `step`'s
  /// state as the step started), or why no op can be named. A batch of K
  /// of the probed step's (gradient accumulation) is probed micro-batch by
  /// micro-batch, and the first micro-batch with such an op is named.
  std::string explain(train::TrainingStep &step, amprt_context *context,
                      int64_t s, amprt_tensor *input, amprt_tensor *label);

private:
  llvm::Error compile();
  /// The probed step on one batch: the first op not finite, if any.
  llvm::Expected<std::optional<NonFiniteOp>> probe(train::TrainingStep &step,
                                                   amprt_context *context,
                                                   amprt_tensor *input,
                                                   amprt_tensor *label);

  Instrument instrument;
  Compile lowerAndCompile;
  std::string entry;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::optional<runner::JitModule> jit;
  train::FunctionSpec spec;
  train::StepFn fn = nullptr;
  std::vector<ProbeInfo> probes;
};

} // namespace amp::run

#endif // AMP_RUN_NONFINITE_H
