//===- Fp8Scales.cpp - What delayed FP8 scaling did during a run ----------===//

#include "amptrain/Fp8Scales.h"
#include "amprt_fp8.h"

namespace amp::train {

static Expected<std::vector<float>> readHistory(amprt_tensor *t) {
  std::vector<float> values(amprt_tensor_numel(t));
  if (amprt_tensor_read(t, values.data(), values.size() * sizeof(float)) !=
      AMPRT_OK)
    return failure(std::string("reading an amax history: ") +
                   amprt_last_error());
  return values;
}

Fp8ScaleTracker::Fp8ScaleTracker(const std::vector<Fp8History> &histories) {
  for (const Fp8History &h : histories)
    tracked.push_back(
        {h, h.format == "f8E5M2" ? amprt::kFp8E5M2Max : amprt::kFp8E4M3Max});
}

Status Fp8ScaleTracker::beforeStep(amprt_tensor *const *arguments) {
  for (Tracked &t : tracked) {
    auto values = readHistory(arguments[t.history.argument]);
    if (!values)
      return values.status();
    t.scaleBefore =
        amprt::fp8ScaleFor(amprt::historyMax(values->data(), values->size()),
                           t.fp8Max, t.history.margin);
  }
  return Status::success();
}

Status Fp8ScaleTracker::afterStep(amprt_tensor *const *arguments) {
  for (Tracked &t : tracked) {
    auto values = readHistory(arguments[t.history.argument]);
    if (!values)
      return values.status();
    // A skipped (non-finite) amax is not recorded: the newest entry is then
    // an older step's, already counted; it cannot have grown.
    if (!values->empty() && (*values)[0] * t.scaleBefore > t.fp8Max)
      ++t.saturated;
  }
  return Status::success();
}

json::Array Fp8ScaleTracker::toJson(amprt_tensor *const *arguments) const {
  json::Array out;
  for (const Tracked &t : tracked) {
    auto values = readHistory(arguments[t.history.argument]);
    if (!values)
      continue;
    float amax = amprt::historyMax(values->data(), values->size());
    out.push_back(json::Object{
        {"argument", t.history.argument},
        {"format", t.history.format},
        {"final_scale", amprt::fp8ScaleFor(amax, t.fp8Max, t.history.margin)},
        {"final_amax_max", amax},
        {"steps_saturated", t.saturated}});
  }
  return out;
}

std::vector<int64_t> Fp8ScaleTracker::saturatedCounts() const {
  std::vector<int64_t> counts;
  for (const Tracked &t : tracked)
    counts.push_back(t.saturated);
  return counts;
}

Status Fp8ScaleTracker::restoreCounts(const std::vector<int64_t> &counts) {
  if (counts.size() != tracked.size())
    return failure("the checkpoint counts " + std::to_string(counts.size()) +
                   " FP8 histories; this step has " +
                   std::to_string(tracked.size()));
  for (size_t i = 0; i < counts.size(); ++i)
    tracked[i].saturated = counts[i];
  return Status::success();
}

} // namespace amp::train
