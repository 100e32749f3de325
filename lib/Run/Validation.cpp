//===- Validation.cpp - amp-run --validate's findings ---------------------===//

#include "amp/Run/Validation.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <cmath>
#include <set>

using namespace mlir;

namespace amp::run {

llvm::Expected<std::vector<ProbeInfo>> readProbes(func::FuncOp f) {
  std::vector<ProbeInfo> probes;
  for (unsigned i = 0; i < f.getNumResults(); ++i) {
    auto dict =
        f.getResultAttrOfType<DictionaryAttr>(i, AMPDialect::kProbeAttrName);
    if (!dict)
      continue;
    ProbeInfo p;
    p.resultNumber = i;
    auto text = [&](StringRef key) {
      auto s = dict.getAs<StringAttr>(key);
      return s ? s.getValue().str() : std::string();
    };
    auto number = [&](StringRef key) {
      auto n = dict.getAs<IntegerAttr>(key);
      return n ? n.getInt() : int64_t(-1);
    };
    std::string kind = text("kind");
    p.kind = kind == "input"        ? ProbeInfo::Kind::Input
             : kind == "gradient"   ? ProbeInfo::Kind::Gradient
             : kind == "arithmetic" ? ProbeInfo::Kind::Arithmetic
                                    : ProbeInfo::Kind::Result;
    p.id = number("id");
    p.index = number("index");
    p.op = text("op");
    p.loc = text("loc");
    p.precision = text("precision");
    p.cls = text("class");
    p.fp8 = text("fp8");
    auto backward = dict.getAs<BoolAttr>("backward");
    p.backward = backward && backward.getValue();
    auto type = cast<RankedTensorType>(f.getResultTypes()[i]);
    int64_t expected =
        p.kind == ProbeInfo::Kind::Gradient ? 1 : AMPRT_NUMERIC_STATS;
    if (type.getNumElements() != expected || p.id < 0)
      return llvm::createStringError(
          "result #" + std::to_string(i) + " of @" + f.getName().str() +
          " carries an amp.probe that --amp-validation-probes did not write");
    probes.push_back(std::move(p));
  }
  return probes;
}

void ErrorSums::add(const float (&s)[AMPRT_NUMERIC_STATS]) {
  elements += s[AMPRT_NUMERIC_ELEMENTS];
  diffSq += double(s[AMPRT_NUMERIC_DIFF_NORM]) * s[AMPRT_NUMERIC_DIFF_NORM];
  refSq += double(s[AMPRT_NUMERIC_REF_NORM]) * s[AMPRT_NUMERIC_REF_NORM];
  maxDiff = std::max(maxDiff, double(s[AMPRT_NUMERIC_MAX_DIFF]));
  maxRef = std::max(maxRef, double(s[AMPRT_NUMERIC_MAX_REF]));
  overflow += s[AMPRT_NUMERIC_OVERFLOW];
  nan += s[AMPRT_NUMERIC_NAN];
  flushed += s[AMPRT_NUMERIC_FLUSHED];
  subnormal += s[AMPRT_NUMERIC_SUBNORMAL];
  refNonFinite += s[AMPRT_NUMERIC_REF_NONFINITE];
}

std::string shortLocation(StringRef loc) {
  if (!loc.consume_front("loc(\"") || !loc.consume_back(")"))
    return loc.str();
  auto [path, position] = loc.rsplit('"');
  size_t slash = path.rfind('/');
  if (slash != StringRef::npos)
    path = path.drop_front(slash + 1);
  return (path + position).str();
}

static double ratio(double num, double den) {
  if (num == 0)
    return 0;
  return den > 0 ? num / den : INFINITY;
}

double ErrorSums::relative() const {
  return ratio(std::sqrt(diffSq), std::sqrt(refSq));
}
double ErrorSums::relativeMax() const { return ratio(maxDiff, maxRef); }
double ErrorSums::flushedFraction() const { return ratio(flushed, elements); }

void Validation::addStep(
    const std::vector<std::pair<ProbeInfo, std::vector<float>>> &f32Probes,
    const std::vector<std::pair<ProbeInfo, float>> &mixedGradients,
    float f32Loss, float mixedLoss, bool skipped) {
  steps.push_back({(int64_t)steps.size(), f32Loss, mixedLoss, skipped});
  std::map<int64_t, double> f32Norms;
  for (const auto &[probe, values] : f32Probes) {
    if (probe.kind == ProbeInfo::Kind::Gradient) {
      f32Norms[probe.index] = std::sqrt(std::max(0.0f, values[0]));
      continue;
    }
    OpRow &row = rows[probe.id];
    row.op = probe.op;
    row.loc = probe.loc;
    row.precision = probe.precision;
    row.cls = probe.cls;
    if (!probe.fp8.empty() && row.fp8.find(probe.fp8) == std::string::npos)
      row.fp8 += (row.fp8.empty() ? "" : "/") + probe.fp8;
    row.backward = probe.backward;
    if (probe.backward && skipped)
      continue;
    float stats[AMPRT_NUMERIC_STATS];
    std::copy_n(values.begin(), AMPRT_NUMERIC_STATS, stats);
    (probe.kind == ProbeInfo::Kind::Input        ? row.input
     : probe.kind == ProbeInfo::Kind::Arithmetic ? row.arithmetic
                                                 : row.result)
        .add(stats);
  }
  // Each op counts the step once (a result probe or, for ops with several
  // results, the first).
  std::set<int64_t> judged;
  for (const auto &[probe, values] : f32Probes)
    if (probe.kind != ProbeInfo::Kind::Gradient &&
        !(probe.backward && skipped) && judged.insert(probe.id).second)
      ++rows[probe.id].judgedSteps;
  if (skipped)
    return;
  for (const auto &[probe, value] : mixedGradients)
    if (f32Norms.count(probe.index))
      gradientNorms[probe.index].push_back(
          {f32Norms[probe.index], std::sqrt(std::max(0.0f, value))});
}

double Validation::tolerance() const {
  // fp8 steps compute in bf16 (their contraction operands are FP8).
  return tolerance(precision == "fp8" ? "bf16" : precision);
}

double Validation::tolerance(const std::string &opPrecision) const {
  return opPrecision == "bf16" ? tolerances.relativeBF16
                               : tolerances.relativeF16;
}

void Validation::finish() {
  ordered.clear();
  for (auto &[id, row] : rows) {
    std::string reason, type = row.precision;
    double tol = tolerance(row.precision);
    // An FP8 operand's fit is FP8's (range and the shared scale's flushes).
    std::string inputType = row.fp8.empty() ? type : row.fp8;
    auto add = [&](const std::string &part) {
      reason += (reason.empty() ? "" : "; ") + part;
    };
    const ErrorSums &r = row.result;
    double score = 0;
    if (r.nan > 0)
      add(llvm::formatv("{0:f0} values NaN where f32 has none", r.nan).str());
    if (r.overflow > 0)
      add(llvm::formatv("{0:f0} values overflow {1}", r.overflow, type).str());
    if (r.nan + r.overflow > 0)
      score = 1e30 + r.nan + r.overflow;
    const ErrorSums &own = row.arithmetic;
    if (own.relative() > tol) {
      add(llvm::formatv("its own {0} arithmetic is off by {1:e2} (> {2:e2})",
                        type, own.relative(), tol)
              .str());
      score = std::max(score, own.relative() / tol);
    }
    if (r.flushedFraction() > tolerances.flushed) {
      add(llvm::formatv("{0:f1}% of values flush to zero",
                        100 * r.flushedFraction())
              .str());
      score = std::max(score, r.flushedFraction() / tolerances.flushed);
    }
    const ErrorSums &in = row.input;
    row.inputsFailed =
        in.overflow + in.nan > 0 || in.flushedFraction() > tolerances.flushed;
    if (row.inputsFailed)
      add(llvm::formatv(
              "its f32 inputs do not fit {0} ({1:f0} values overflow, "
              "{2:f1}% flush to zero when cast): look at their "
              "producers first",
              inputType, in.overflow + in.nan, 100 * in.flushedFraction())
              .str());
    if (row.judgedSteps == 0) {
      row.unjudged = true;
      row.reason = "not judged: loss scaling skipped every step (a forward "
                   "op broke first?)";
      ordered.push_back(&row);
      continue;
    }
    row.failed = !reason.empty();
    // An op that computes well but whose result moves with the rounding of
    // its inputs (a sum that cancels to near zero, a normalisation of
    // values that differ in their last digits) is worth a look, but only
    // what uses the result can tell whether it matters: a warning. Clear
    // ops compute nothing; their differences are ties between rounded
    // inputs (which of two equal maxima a max-pool gradient picks).
    row.warned = !row.failed && r.relative() > tol && row.cls != "clear";
    if (row.warned)
      reason = llvm::formatv("sensitive to rounding its inputs to {0}: "
                             "{1:e2} from f32 although its own arithmetic "
                             "is within {2:e2}; check the end-to-end "
                             "figures",
                             type, r.relative(), own.relative())
                   .str();
    row.score = row.failed ? score : r.relative() / tol;
    row.reason = reason.empty() ? "within tolerance" : reason;
    ordered.push_back(&row);
  }
  // Ops that break on inputs that fit come first: they are the causes.
  // Then ops whose inputs already do not fit, then the rest, worst first.
  auto group = [](const OpRow *row) {
    return row->failed     ? (row->inputsFailed ? 1 : 0)
           : row->warned   ? 2
           : row->unjudged ? 4
                           : 3;
  };
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const OpRow *a, const OpRow *b) {
                     if (group(a) != group(b))
                       return group(a) < group(b);
                     return a->score > b->score;
                   });
}

unsigned Validation::warnedOps() const {
  return llvm::count_if(ordered, [](const OpRow *row) { return row->warned; });
}

unsigned Validation::failingOps() const {
  return llvm::count_if(ordered, [](const OpRow *row) { return row->failed; });
}

void Validation::print(llvm::raw_ostream &os) const {
  int64_t skipped =
      llvm::count_if(steps, [](const StepRecord &s) { return s.skipped; });
  os << llvm::formatv("validation: {0} {1} steps beside f32, each op fed its "
                      "f32 inputs; relative tolerance {2:e1}, flushed {3}%\n",
                      steps.size(), precision, tolerance(),
                      100 * tolerances.flushed);
  os << llvm::format("%4s  %-4s  %-26s  %-5s  %9s  %9s  %8s  %6s  %7s  %s\n",
                     "#", "", "op", "type", "rel.err", "own.err", "overflow",
                     "NaN", "flushed", "location");
  unsigned shown = 0, passing = 0;
  for (const OpRow *row : ordered) {
    if (!row->failed && !row->warned && !row->unjudged && ++passing > 10)
      continue;
    ++shown;
    const ErrorSums &r = row->result;
    os << llvm::format(
        "%4u  %-4s  %-26s  %-5s  %9.2e  %9.2e  %8.0f  %6.0f  %6.2f%%  %s%s\n",
        shown,
        row->failed     ? "FAIL"
        : row->warned   ? "warn"
        : row->unjudged ? "--"
                        : "ok",
        row->op.c_str(), row->fp8.empty() ? row->precision.c_str() : "fp8",
        r.relative(), row->arithmetic.relative(), r.overflow, r.nan,
        100 * r.flushedFraction(), shortLocation(row->loc).c_str(),
        row->backward ? " (backward)" : "");
    if (row->failed || row->warned || row->unjudged)
      os << "            " << row->reason << "\n";
  }
  if (passing > 10)
    os << llvm::formatv("      ... and {0} more ops within tolerance\n",
                        passing - 10);
  double lossDiff = 0;
  for (const StepRecord &s : steps)
    if (!s.skipped)
      lossDiff =
          std::max(lossDiff, std::fabs(double(s.mixedLoss) - s.f32Loss) /
                                 std::max(1e-30, std::fabs(double(s.f32Loss))));
  double gradDiff = 0, worstF32 = 0, worstMixed = 0;
  int64_t worstParam = -1;
  for (const auto &[param, norms] : gradientNorms)
    for (auto [f32, mixed] : norms) {
      double d = std::fabs(mixed - f32) / std::max(1e-30, f32);
      if (!(d <= gradDiff)) {
        gradDiff = d;
        worstParam = param;
        worstF32 = f32;
        worstMixed = mixed;
      }
    }
  if (skipped == (int64_t)steps.size())
    os << llvm::formatv("end to end: loss scaling skipped all {0} steps: no "
                        "{1} step finished\n",
                        steps.size(), precision);
  else {
    os << llvm::formatv("end to end: loss differs from f32 by at most {0:e2} "
                        "(relative), gradient norms by at most {1:e2}",
                        lossDiff, gradDiff);
    if (worstParam >= 0)
      os << llvm::formatv(" (argument #{0}: {1:e2} in f32, {2:e2} in {3})",
                          worstParam, worstF32, worstMixed, precision);
    os << llvm::formatv("; {0} of {1} steps skipped by loss scaling\n", skipped,
                        steps.size());
  }
  unsigned failing = failingOps();
  if (failing)
    os << llvm::formatv("{0} op(s) fail in {1}: write a fix with "
                        "--validate-fix=lists.json or "
                        "--validate-annotate=out.mlir\n",
                        failing, precision);
  else
    os << llvm::formatv(
        "every op holds in {0}{1}\n", precision,
        warnedOps() ? llvm::formatv(" ({0} warning(s))", warnedOps()).str()
                    : std::string());
}

static llvm::json::Value number(double v) {
  if (std::isfinite(v))
    return v;
  return nullptr;
}

llvm::json::Value Validation::toJSON() const {
  llvm::json::Array ops;
  for (const OpRow *row : ordered) {
    const ErrorSums &r = row->result, &in = row->input;
    ops.push_back(llvm::json::Object{
        {"op", row->op},
        {"loc", row->loc},
        {"precision", row->precision},
        {"fp8_inputs", row->fp8.empty() ? llvm::json::Value(nullptr)
                                        : llvm::json::Value(row->fp8)},
        {"backward", row->backward},
        {"class", row->cls},
        {"verdict", row->failed     ? "fail"
                    : row->warned   ? "warn"
                    : row->unjudged ? "not judged"
                                    : "ok"},
        {"reason", row->reason},
        {"steps", row->judgedSteps},
        {"elements", r.elements},
        {"relative_rms", number(r.relative())},
        {"relative_max", number(r.relativeMax())},
        {"arithmetic_relative_rms", number(row->arithmetic.relative())},
        {"overflow", r.overflow},
        {"nan", r.nan},
        {"flushed", r.flushed},
        {"subnormal", r.subnormal},
        {"input_overflow", in.overflow + in.nan},
        {"input_flushed", in.flushed},
        {"input_relative_rms", number(in.relative())}});
  }
  llvm::json::Array stepArray;
  for (const StepRecord &s : steps)
    stepArray.push_back(llvm::json::Object{{"step", s.step},
                                           {"f32_loss", number(s.f32Loss)},
                                           {"loss", number(s.mixedLoss)},
                                           {"skipped", s.skipped}});
  llvm::json::Array gradients;
  for (const auto &[param, norms] : gradientNorms)
    for (size_t k = 0; k < norms.size(); ++k)
      gradients.push_back(
          llvm::json::Object{{"argument", param},
                             {"f32_norm", number(norms[k].first)},
                             {"norm", number(norms[k].second)}});
  return llvm::json::Object{
      {"precision", precision},
      {"tolerance",
       llvm::json::Object{{"relative_rms", tolerance()},
                          {"flushed_fraction", tolerances.flushed}}},
      {"failing_ops", (int64_t)failingOps()},
      {"warned_ops", (int64_t)warnedOps()},
      {"ops", std::move(ops)},
      {"steps", std::move(stepArray)},
      {"gradient_norms", std::move(gradients)}};
}

llvm::json::Value Validation::listsFix() const {
  std::set<std::string> names;
  for (const OpRow *row : ordered)
    if (row->failed)
      names.insert(row->op);
  llvm::json::Array deny;
  for (const std::string &name : names)
    deny.push_back(name);
  return llvm::json::Object{{"deny", std::move(deny)}};
}

std::vector<std::string> Validation::failingLocations() const {
  std::vector<std::string> locs;
  for (const OpRow *row : ordered)
    if (row->failed)
      locs.push_back(row->loc);
  return locs;
}

} // namespace amp::run
