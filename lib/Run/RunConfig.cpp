//===- RunConfig.cpp - What amp-run is asked to do, checked ---------------===//

#include "amp/Run/RunConfig.h"
#include "FileKind.h"
#include "amp/Transforms/Pipeline.h"
#include <cmath>

namespace amp::run {

LowPrecision RunConfig::lowPrecision() const {
  return *parseOption<LowPrecision>(run.precision);
}

GradComm RunConfig::wireType() const {
  return *parseOption<GradComm>(run.gradComm);
}

bool RunConfig::scalesLoss() const {
  return mixed() && usesLossScaling(lowPrecision()) &&
         lossScaling != LossScalingMode::None;
}

namespace {

/// The files amp-run writes itself, after the work, each with its flag.
std::vector<train::FlagPath> writtenAfterWork(const RunConfig &c) {
  std::string manifest = c.emitObj.empty() ? "" : c.emitObj + ".json";
  return {{"--emit-obj", c.emitObj},
          {"--emit-obj's manifest", manifest},
          {"--validate-fix", c.validateFix},
          {"--validate-annotate", c.validateAnnotate}};
}

/// Why the flags that name files cannot be taken: an input that is not a
/// regular file, an output that cannot be written (checked before the
/// work, not after it) or that is another flag's file.
std::string checkFiles(const RunConfig &c) {
  const std::string &input = c.run.inputFile;
  if (amprt::kindOf(input) == amprt::FileKind::Other)
    return "cannot read '" + input + "': " + amprt::kNotRegularFile;
  // Fail now, not after the work, when one cannot be written (the
  // training library checks the report and the checkpoint).
  std::vector<train::FlagPath> outputs = writtenAfterWork(c);
  for (const train::FlagPath &output : outputs)
    if (train::Status bad = train::checkWritable(output.flag, output.path))
      return bad.message();
  // The manifest fingerprints the object by reading it back, and
  // amp-train loads both: a device or a pipe cannot serve.
  if (!c.emitObj.empty() && amprt::kindOf(c.emitObj) == amprt::FileKind::Other)
    return "cannot write --emit-obj '" + c.emitObj +
           "': the object and its manifest (PATH.json) are files "
           "amp-train reads back; name a regular file";
  std::vector<train::FlagPath> inputs = train::dataInputs(c.run.data);
  inputs.push_back({"the input", input});
  inputs.push_back({"--lists-file", c.listsFile});
  std::string checkpoint =
      c.run.saveDir.empty() ? "" : train::Checkpoint::pathIn(c.run.saveDir);
  outputs.push_back({"--report", c.run.reportPath});
  outputs.push_back({"--save's checkpoint", checkpoint});
  if (train::Status bad = train::checkOutputsApart(inputs, outputs))
    return bad.message();
  return "";
}

/// Why the flags that choose what amp-run does cannot go together.
std::string checkModes(const RunConfig &c) {
  if (!c.mixed() && !c.listsFile.empty())
    return "--lists-file needs --precision=f16, bf16 or fp8";
  if (!c.mixed() && c.padTensorCores)
    return "--pad-tensor-cores needs --precision=f16, bf16 or fp8: "
           "Tensor Cores run low-precision contractions";
  if (c.accumulate < 1)
    return "--accumulate=K needs K >= 1 micro-batches, got " +
           std::to_string(c.accumulate);
  if (c.validating() && c.accumulate != 1)
    return "--validate compares the mixed and f32 steps of one "
           "batch: it takes no --accumulate";
  if (c.compileOnly && (c.validating() || !c.run.reportPath.empty()))
    return "--compile-only stops before training: it takes no "
           "--validate and no --report";
  return "";
}

/// Why --validate's flags cannot be taken, or why a validation flag was
/// given without --validate.
std::string checkValidation(const RunConfig &c) {
  if (!c.validating()) {
    if (!c.validateFix.empty() || !c.validateAnnotate.empty() ||
        c.tolerancesGiven)
      return "--validate-fix, --validate-annotate and the tolerance "
             "options need --validate";
    return "";
  }
  if (!c.mixed())
    return "--validate compares a mixed-precision step with f32: "
           "give --precision=f16, bf16 or fp8";
  if (*c.validateSteps < 1)
    return "--validate=N needs a step count >= 1, got '" +
           (c.validateText.empty() ? std::to_string(*c.validateSteps)
                                   : c.validateText) +
           "'";
  const ValidationTolerances &t = c.tolerances;
  for (double tolerance : {t.relativeF16, t.relativeBF16, t.flushed})
    if (!std::isfinite(tolerance) || tolerance <= 0)
      return "the --validate-tol-* and --validate-max-flushed "
             "tolerances must be finite values > 0";
  const train::RunOptions &r = c.run;
  if (r.dataParallel || r.gradCommGiven || r.bucketBytesGiven ||
      !r.injectFault.empty())
    return "--validate compares steps in one process: it takes no "
           "--data-parallel, --grad-comm, --bucket-bytes or "
           "--inject-fault";
  return "";
}

} // namespace

std::string checkConfig(const RunConfig &config) {
  if (train::Status bad = train::checkRunOptions(config.run))
    return bad.message();
  for (auto check : {checkFiles, checkModes, checkValidation})
    if (std::string bad = check(config); !bad.empty())
      return bad;
  return "";
}

} // namespace amp::run
