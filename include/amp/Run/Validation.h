//===- Validation.h - amp-run --validate's findings -------------*- C++ -*-===//
//
// Gathers what the probes of --amp-validation-probes measured over the
// validation steps, judges every probed op against the tolerances, and
// writes the table, the JSON record and the lists-file fix. Host code only:
// amp-run runs the steps and hands each probe's numbers in.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_VALIDATION_H
#define AMP_RUN_VALIDATION_H

#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace amp::run {

/// One probe result of a step function (its amp.probe attribute).
struct ProbeInfo {
  enum class Kind { Result, Arithmetic, Input, Gradient };
  Kind kind = Kind::Result;
  unsigned resultNumber = 0;
  int64_t id = 0, index = 0;
  /// The op's precision class (allow, infer, clear).
  std::string op, loc, precision, cls;
  /// An input probe of an FP8 operand: its format (f8E4M3FN, f8E5M2).
  std::string fp8;
  bool backward = false;
};

/// `loc("dir/file.mlir":3:5)` as `file.mlir:3:5`, for the table.
std::string shortLocation(llvm::StringRef loc);

/// The probes among @`f`'s results, in result order; an amp.probe that is
/// not what --amp-validation-probes writes is an error.
llvm::Expected<std::vector<ProbeInfo>> readProbes(mlir::func::FuncOp f);

struct ValidationTolerances {
  /// Largest relative RMS error (||low - f32|| / ||f32||) an op may have,
  /// per low-precision type.
  double relativeF16 = 1e-2, relativeBF16 = 8e-2;
  /// Largest fraction of an op's values that may flush to zero.
  double flushed = 1e-2;
};

/// amprt_numeric_error's statistics summed over steps.
struct ErrorSums {
  double elements = 0, diffSq = 0, refSq = 0, maxDiff = 0, maxRef = 0;
  double overflow = 0, nan = 0, flushed = 0, subnormal = 0, refNonFinite = 0;
  void add(const float (&stats)[AMPRT_NUMERIC_STATS]);
  double relative() const;
  double relativeMax() const;
  double flushedFraction() const;
};

class Validation {
public:
  Validation(std::string precision, ValidationTolerances tolerances)
      : precision(std::move(precision)), tolerances(tolerances) {}

  /// One step's numbers: the probes of the f32 step with their statistics
  /// (10 numbers for op probes, 1 for gradients), the mixed step's gradient
  /// probes, both losses, and whether loss scaling skipped the mixed step.
  /// Backward probes of a skipped step are not judged: the scale was too
  /// large for that batch, which loss scaling handles by backing off.
  void addStep(
      const std::vector<std::pair<ProbeInfo, std::vector<float>>> &f32Probes,
      const std::vector<std::pair<ProbeInfo, float>> &mixedGradients,
      float f32Loss, float mixedLoss, bool skipped);

  /// Judges every op; call once after the last step.
  void finish();
  unsigned failingOps() const;
  void print(llvm::raw_ostream &os) const;
  llvm::json::Value toJSON() const;
  /// {"deny": [every failing op's name]}, for --lists-file.
  llvm::json::Value listsFix() const;
  unsigned warnedOps() const;
  /// The printed locations of the failing ops.
  std::vector<std::string> failingLocations() const;

private:
  struct OpRow {
    std::string op, loc, precision, cls;
    /// The FP8 formats its operands go through (precision=fp8), e.g.
    /// "f8E4M3FN" or "f8E4M3FN/f8E5M2"; empty otherwise.
    std::string fp8;
    bool backward = false;
    /// Against the f32 result; against the f32 op on the same rounded
    /// inputs (the op's own arithmetic); its operands cast.
    ErrorSums result, arithmetic, input;
    int64_t judgedSteps = 0;
    // Set by finish().
    bool failed = false, inputsFailed = false, warned = false;
    bool unjudged = false;
    double score = 0;
    std::string reason;
  };
  struct StepRecord {
    int64_t step;
    float f32Loss, mixedLoss;
    bool skipped;
  };
  double tolerance() const;
  /// An op's tolerance: its own precision's (an fp8 op computes in bf16).
  double tolerance(const std::string &opPrecision) const;

  std::string precision;
  ValidationTolerances tolerances;
  std::map<int64_t, OpRow> rows;
  std::vector<const OpRow *> ordered;
  std::vector<StepRecord> steps;
  /// Per param argument: the gradient norms of the judged steps.
  std::map<int64_t, std::vector<std::pair<double, double>>> gradientNorms;
};

} // namespace amp::run

#endif // AMP_RUN_VALIDATION_H
