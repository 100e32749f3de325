//===- NonFinite.cpp - Name the op behind a non-finite step ---------------===//

#include "NonFinite.h"
#include "amptrain/Tensors.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace mlir;

namespace amp::run {

bool readProbeValues(llvm::ArrayRef<ProbeInfo> probes,
                     llvm::ArrayRef<train::TensorPtr> results,
                     ProbeValues &measured) {
  for (const ProbeInfo &probe : probes) {
    amprt_tensor *t = results[probe.resultNumber].get();
    std::vector<float> values(amprt_tensor_numel(t));
    if (amprt_tensor_read(t, values.data(), values.size() * 4) != AMPRT_OK)
      return false;
    measured.push_back({probe, std::move(values)});
  }
  return true;
}

namespace {

/// A probe's statistics as sums (one run: the numbers themselves).
ErrorSums sumsOf(const std::vector<float> &values) {
  ErrorSums sums;
  if (values.size() == AMPRT_NUMERIC_STATS) {
    float stats[AMPRT_NUMERIC_STATS];
    std::copy(values.begin(), values.end(), stats);
    sums.add(stats);
  }
  return sums;
}

bool notFinite(const ErrorSums &s) {
  return s.overflow > 0 || s.nan > 0 || s.refNonFinite > 0;
}

/// What one op's probes saw.
struct OpProbes {
  const ProbeInfo *result = nullptr;
  ErrorSums resultSums;
  std::vector<NonFiniteInput> inputs;
  bool found = false;
};

} // namespace

std::optional<NonFiniteOp> firstNonFinite(const ProbeValues &measured) {
  std::map<int64_t, OpProbes> ops; // by id: program order
  for (const auto &[probe, values] : measured) {
    OpProbes &op = ops[probe.id];
    ErrorSums sums = sumsOf(values);
    if (probe.kind == ProbeInfo::Kind::Result && !op.result) {
      op.result = &probe;
      op.resultSums = sums;
      op.found |= notFinite(sums);
    } else if (probe.kind == ProbeInfo::Kind::Input) {
      op.inputs.push_back({probe.index, sums.maxRef, sums.overflow});
      op.found |= sums.overflow > 0 || sums.refNonFinite > 0;
    }
  }
  for (auto &[id, op] : ops)
    if (op.found && op.result)
      return NonFiniteOp{*op.result, op.resultSums, op.inputs};
  return std::nullopt;
}

std::string describe(const NonFiniteOp &found) {
  const ProbeInfo &op = found.op;
  const ErrorSums &r = found.result;
  std::string text = llvm::formatv(
      "The first op to make a non-finite value: {0} at {1} in {2} ({3})", op.op,
      shortLocation(op.loc), op.precision,
      op.backward ? "backward" : "forward");
  double bad = r.overflow + r.nan;
  double total = r.elements + r.refNonFinite;
  if (bad > 0)
    text += llvm::formatv(
        ": {0} of {1} values {2} in {3}", (int64_t)bad, (int64_t)total,
        r.nan > r.overflow ? "are NaN" : "overflow", op.precision);
  for (const NonFiniteInput &in : found.inputs) {
    text +=
        llvm::formatv("; operand #{0} has |x| <= {1:e2}", in.index, in.maxAbs);
    if (in.overflow > 0)
      text += llvm::formatv(" ({0} values do not fit {1})",
                            (int64_t)in.overflow, op.precision);
  }
  if (r.refNonFinite > 0)
    text += llvm::formatv("; in f32 it is not finite either ({0} values): "
                          "lower the learning rate or fix the model",
                          (int64_t)r.refNonFinite);
  else
    text += llvm::formatv(
        "; in f32 it stays finite (|y| <= {0:e2}): {1}keep it in f32 "
        "(--lists-file with \"deny\": [\"{2}\"], or amp.precision = \"f32\" "
        "on the op)",
        r.maxRef,
        op.backward ? "a smaller loss scale (--init-scale) keeps scaled "
                      "gradients in range, or "
                    : "",
        op.op);
  return text + ".";
}

NonFiniteExplainer::NonFiniteExplainer(Instrument instrument, Lower lower,
                                       std::string entry)
    : instrument(std::move(instrument)), lower(std::move(lower)),
      entry(std::move(entry)) {}

llvm::Error NonFiniteExplainer::compile() {
  auto made = instrument();
  if (!made)
    return made.takeError();
  module = std::move(*made);
  auto f = module->lookupSymbol<func::FuncOp>(entry);
  if (!f)
    return llvm::createStringError("the probed step has no @" + entry);
  spec = runner::specOf(f);
  auto read = readProbes(f);
  if (!read)
    return read.takeError();
  probes = std::move(*read);
  if (llvm::Error error = lower(*module))
    return error;
  auto compiled = runner::JitModule::create(*module, {});
  if (!compiled)
    return compiled.takeError();
  jit = std::move(*compiled);
  auto found = jit->lookup(entry);
  if (!found)
    return found.takeError();
  fn = *found;
  return llvm::Error::success();
}

std::string NonFiniteExplainer::explain(train::TrainingStep &step,
                                        amprt_context *context, int64_t s,
                                        amprt_tensor *input,
                                        amprt_tensor *label) {
  std::string cannot = "(amp-run cannot name the op: ";
  if (!fn)
    if (llvm::Error error = compile())
      return cannot + llvm::toString(std::move(error)) + ")";
  auto results = step.runAside(fn, spec, context, input, label);
  if (!results)
    return cannot + "the probed step failed: " + results.message() + ")";
  ProbeValues measured;
  if (!readProbeValues(probes, *results, measured))
    return cannot + "reading a probe failed: " + amprt_last_error() + ")";
  std::optional<NonFiniteOp> found = firstNonFinite(measured);
  if (!found)
    return "Step " + std::to_string(s) +
           " again, op by op: every op the precision pass lowers stays "
           "finite on its f32 inputs, so the non-finite values come from "
           "the ops kept in f32 or from the loss scale.";
  return describe(*found);
}

} // namespace amp::run
