//===- Fp8Report.cpp - What delayed FP8 scaling did during a run ----------===//

#include "Fp8Report.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amprt_fp8.h"

using namespace mlir;

namespace amp::run {

static llvm::Expected<std::vector<float>> readFloats(amprt_tensor *t) {
  std::vector<float> values(amprt_tensor_numel(t));
  if (amprt_tensor_read(t, values.data(), values.size() * sizeof(float)) !=
      AMPRT_OK)
    return llvm::createStringError(std::string("reading an amax history: ") +
                                   amprt_last_error());
  return values;
}

Fp8ScaleTracker::Fp8ScaleTracker(func::FuncOp step) {
  if (!step)
    return;
  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i) {
    if (tg::getArgumentRole(step, i) != tg::Role::AmaxHistory)
      continue;
    for (Operation *user : step.getArgument(i).getUsers()) {
      auto scale = dyn_cast<Fp8ScaleOp>(user);
      if (!scale)
        continue;
      History h;
      h.argument = i;
      llvm::raw_string_ostream(h.format) << scale.getFormat();
      h.fp8Max = isa<Float8E5M2Type>(scale.getFormat()) ? amprt::kFp8E5M2Max
                                                        : amprt::kFp8E4M3Max;
      h.margin = static_cast<int>(scale.getMargin());
      histories.push_back(h);
      break;
    }
  }
}

llvm::Error Fp8ScaleTracker::beforeStep(amprt_tensor *const *arguments) {
  for (History &h : histories) {
    auto values = readFloats(arguments[h.argument]);
    if (!values)
      return values.takeError();
    h.scaleBefore = amprt::fp8ScaleFor(
        amprt::historyMax(values->data(), values->size()), h.fp8Max, h.margin);
  }
  return llvm::Error::success();
}

llvm::Error Fp8ScaleTracker::afterStep(amprt_tensor *const *arguments) {
  for (History &h : histories) {
    auto values = readFloats(arguments[h.argument]);
    if (!values)
      return values.takeError();
    // A skipped (non-finite) amax is not recorded: the newest entry is then
    // an older step's, already counted; it cannot have grown.
    if (!values->empty() && (*values)[0] * h.scaleBefore > h.fp8Max)
      ++h.saturated;
  }
  return llvm::Error::success();
}

llvm::json::Array
Fp8ScaleTracker::toJson(amprt_tensor *const *arguments) const {
  llvm::json::Array out;
  for (const History &h : histories) {
    auto values = readFloats(arguments[h.argument]);
    if (!values) {
      llvm::consumeError(values.takeError());
      continue;
    }
    float amax = amprt::historyMax(values->data(), values->size());
    out.push_back(llvm::json::Object{
        {"argument", h.argument},
        {"format", h.format},
        {"final_scale", amprt::fp8ScaleFor(amax, h.fp8Max, h.margin)},
        {"final_amax_max", amax},
        {"steps_saturated", h.saturated}});
  }
  return out;
}

} // namespace amp::run
