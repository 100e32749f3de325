//===- NonFinite.cpp - Name the op behind a non-finite step ---------------===//

#include "amp/Run/NonFinite.h"
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
    if (probe.kind == ProbeInfo::Kind::Result) {
      // An op of several results: the first that is not finite speaks.
      bool bad = notFinite(sums);
      if (!op.result || (bad && !notFinite(op.resultSums))) {
        op.result = &probe;
        op.resultSums = sums;
      }
      op.found |= bad;
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

std::string describe(const NonFiniteOp &found, const std::string &batch) {
  const ProbeInfo &op = found.op;
  const ErrorSums &r = found.result;
  std::string text = llvm::formatv(
      "The first op to make a non-finite value{0}: {1} at {2} in {3} ({4})",
      batch.empty() ? "" : " (" + batch + ")", op.op, shortLocation(op.loc),
      op.precision, op.backward ? "backward" : "forward");
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

NonFiniteExplainer::NonFiniteExplainer(Instrument instrument, Compile compile,
                                       std::string entry)
    : instrument(std::move(instrument)), lowerAndCompile(std::move(compile)),
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
  auto compiled = lowerAndCompile(*module);
  if (!compiled)
    return compiled.takeError();
  jit = std::move(*compiled);
  auto found = jit->lookup(entry);
  if (!found)
    return found.takeError();
  fn = *found;
  return llvm::Error::success();
}

/// Part `k` of `parts` equal parts of `t` along its first dimension.
static llvm::Expected<train::TensorPtr> slicePart(amprt_context *context,
                                                  const amprt_tensor *t,
                                                  int64_t k, int64_t parts) {
  std::vector<int64_t> shape(amprt_tensor_shape(t),
                             amprt_tensor_shape(t) + amprt_tensor_rank(t));
  std::vector<int64_t> offsets(shape.size(), 0);
  shape[0] /= parts;
  offsets[0] = k * shape[0];
  amprt_tensor *part = nullptr;
  if (amprt_tensor_create(context, amprt_tensor_dtype(t), (int)shape.size(),
                          shape.data(), &part) != AMPRT_OK)
    return llvm::createStringError(amprt_last_error());
  train::TensorPtr owned(part);
  if (amprt_slice(context, t, offsets.data(), nullptr, part) != AMPRT_OK)
    return llvm::createStringError(amprt_last_error());
  return owned;
}

llvm::Expected<std::optional<NonFiniteOp>>
NonFiniteExplainer::probe(train::TrainingStep &step, amprt_context *context,
                          amprt_tensor *input, amprt_tensor *label) {
  auto results = step.runAside(fn, spec, context, input, label);
  if (!results)
    return llvm::createStringError("the probed step failed: " +
                                   results.message());
  ProbeValues measured;
  if (!readProbeValues(probes, *results, measured))
    return llvm::createStringError(std::string("reading a probe failed: ") +
                                   amprt_last_error());
  return firstNonFinite(measured);
}

std::string NonFiniteExplainer::explain(train::TrainingStep &step,
                                        amprt_context *context, int64_t s,
                                        amprt_tensor *input,
                                        amprt_tensor *label) {
  std::string cannot = "(amp-run cannot name the op: ";
  if (!fn)
    if (llvm::Error error = compile())
      return cannot + llvm::toString(std::move(error)) + ")";
  // An accumulating step's batch is K of the probed step's, in order.
  int64_t rows = amprt_tensor_shape(input)[0];
  int64_t micro =
      spec.args[spec.lastArgWithRole(train::Role::Input)].type.shape[0];
  if (micro <= 0 || rows % micro != 0)
    return cannot + "the step's batch is not a whole number of the probed "
                    "step's)";
  int64_t parts = rows / micro;
  for (int64_t k = 0; k < parts; ++k) {
    auto x = slicePart(context, input, k, parts);
    auto y = x ? slicePart(context, label, k, parts) : x.takeError();
    if (!x || !y)
      return cannot + llvm::toString(x ? y.takeError() : x.takeError()) + ")";
    auto found = probe(step, context, x->get(), y->get());
    if (!found)
      return cannot + llvm::toString(found.takeError()) + ")";
    if (*found)
      return describe(**found, parts == 1 ? ""
                                          : "micro-batch " + std::to_string(k) +
                                                " of " + std::to_string(parts));
  }
  return "Step " + std::to_string(s) +
         " again, op by op: every op the precision pass lowers stays "
         "finite on its f32 inputs, so the non-finite values come from "
         "the ops kept in f32 or from the loss scale.";
}

} // namespace amp::run
