//===- Fp8Scales.h - What delayed FP8 scaling did during a run --*- C++ -*-===//
//
// For the report of an fp8 run: each amax history of the step, the scale it
// gives at the end, and how many steps saturated (the step's amax times the
// scale it quantized with passed the format's largest value: the delayed
// scale lagged behind the data and values clipped).
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_FP8SCALES_H
#define AMPTRAIN_FP8SCALES_H

#include "amprt/amprt.h"
#include "amptrain/Json.h"
#include "amptrain/Result.h"
#include <string>
#include <vector>

namespace amp::train {

/// One amax history argument of a step and the amp.fp8_scale that reads it.
struct Fp8History {
  unsigned argument = 0;
  /// "f8E4M3FN" or "f8E5M2".
  std::string format;
  int margin = 0;
};

class Fp8ScaleTracker {
public:
  explicit Fp8ScaleTracker(const std::vector<Fp8History> &histories);

  bool empty() const { return tracked.empty(); }
  /// Before a step: the scales its histories give.
  Status beforeStep(amprt_tensor *const *arguments);
  /// After it: counts the histories whose new amax saturated.
  Status afterStep(amprt_tensor *const *arguments);
  /// [{"argument", "format", "final_scale", "final_amax_max",
  ///   "steps_saturated"}...]
  json::Array toJson(amprt_tensor *const *arguments) const;
  /// Each history's saturated steps so far, and their restoring (a
  /// resumed run's report counts the whole run).
  std::vector<int64_t> saturatedCounts() const;
  Status restoreCounts(const std::vector<int64_t> &counts);

private:
  struct Tracked {
    Fp8History history;
    float fp8Max;
    float scaleBefore = 1.0f;
    int64_t saturated = 0;
  };
  std::vector<Tracked> tracked;
};

} // namespace amp::train

#endif // AMPTRAIN_FP8SCALES_H
