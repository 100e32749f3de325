//===- RunConfig.h - What amp-run is asked to do ----------------*- C++ -*-===//
//
// amp-run's flags as one struct: the command line binds each flag to its
// field (tools/amp-run), checkConfig refuses what cannot run, and the rest
// of the library (Compile.h, ValidationLoop.h, Run.h) reads nothing else.
// The training library's part (train::RunOptions) is the struct amp-train
// fills from the same flags.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_RUNCONFIG_H
#define AMP_RUN_RUNCONFIG_H

#include "amp/Run/Validation.h"
#include "amp/Transforms/LossScalingDefaults.h"
#include "amp/Transforms/PassOptions.h"
#include "amptrain/Trainer.h"
#include <optional>
#include <string>

namespace amp::run {

struct RunConfig {
  /// The run: input file, precision, device, data, steps, checkpoints and
  /// the process group, as the training library takes them.
  train::RunOptions run;

  // What is compiled.
  std::string entry = "train_step";
  /// The test-accuracy function; empty: @predict when the module has one.
  std::string evalEntry;
  LossScalingMode lossScaling = LossScalingMode::Dynamic;
  std::string listsFile;
  /// amp-lower-to-runtime's options in its pipeline form.
  std::string lowerOptions;
  /// Micro-batches per optimizer step (--amp-accumulate-gradients).
  int64_t accumulate = 1;
  bool padTensorCores = false;

  // --emit-obj: the compiled step as an object file and its manifest.
  std::string emitObj, emitObjCpu = "x86-64";
  bool compileOnly = false;

  // --validate: the mixed step beside the f32 step instead of training.
  std::optional<int64_t> validateSteps;
  /// --validate's value as the command line gave it, which a refusal
  /// quotes (a word that is no number makes validateSteps 0).
  std::string validateText;
  std::string validateFix, validateAnnotate;
  ValidationTolerances tolerances;
  /// A --validate-tol-* or --validate-max-flushed flag was given.
  bool tolerancesGiven = false;

  bool mixed() const { return run.precision != "f32"; }
  bool validating() const { return validateSteps.has_value(); }
  /// The mixed step's type; the config must be mixed() and checked.
  LowPrecision lowPrecision() const;
  /// Gradients' wire type; the config must be checked.
  GradComm wireType() const;
  /// Whether the compiled step scales its loss.
  bool scalesLoss() const;
};

/// Why `config` cannot run (empty when it can): the training library's
/// checks, then the files (inputs readable, outputs writable and apart
/// from the inputs and each other), the modes that cannot go together, and
/// --validate's flags. Nothing is read or written.
std::string checkConfig(const RunConfig &config);

} // namespace amp::run

#endif // AMP_RUN_RUNCONFIG_H
