//===- Fp8Report.h - What delayed FP8 scaling did during a run --*- C++ -*-===//
//
// For the report of an fp8 run: each amax history of the step, the scale it
// gives at the end, and how many steps saturated (the step's amax times the
// scale it quantized with passed the format's largest value: the delayed
// scale lagged behind the data and values clipped).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_RUN_FP8REPORT_H
#define AMP_TOOLS_AMP_RUN_FP8REPORT_H

#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace amp::run {

class Fp8ScaleTracker {
public:
  /// The step's amax_history arguments and the format and margin of the
  /// amp.fp8_scale that reads each.
  explicit Fp8ScaleTracker(mlir::func::FuncOp step);

  bool empty() const { return histories.empty(); }
  /// Before a step: the scales its histories give.
  llvm::Error beforeStep(amprt_tensor *const *arguments);
  /// After it: counts the histories whose new amax saturated.
  llvm::Error afterStep(amprt_tensor *const *arguments);
  /// [{"argument", "format", "final_scale", "final_amax_max",
  ///   "steps_saturated"}...]
  llvm::json::Array toJson(amprt_tensor *const *arguments) const;

private:
  struct History {
    unsigned argument;
    std::string format;
    float fp8Max;
    int margin;
    float scaleBefore = 1.0f;
    int64_t saturated = 0;
  };
  std::vector<History> histories;
};

} // namespace amp::run

#endif // AMP_TOOLS_AMP_RUN_FP8REPORT_H
