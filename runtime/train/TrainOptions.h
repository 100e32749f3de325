//===- TrainOptions.h - amp-train's command line ----------------*- C++ -*-===//
//
// amp-train takes amp-run's flags, so that a script moves from one to the
// other by changing the tool's name. The flags that shaped the compiled
// code (precision, loss scaling, data parallelism) are accepted only when
// they say what the manifest says: the compiled step cannot change them.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_TRAINOPTIONS_H
#define AMPTRAIN_TRAINOPTIONS_H

#include "amptrain/Manifest.h"
#include "amptrain/Trainer.h"
#include <map>

namespace amp::train {

struct CommandLine {
  /// The step: an object from amp-run --emit-obj (linked into a shared
  /// library on load) or that shared library.
  std::string step;
  /// --manifest, else STEP.json.
  std::string manifest;
  RunOptions run;
  /// Flags given, by name, with their text (for the compiled-in checks).
  std::map<std::string, std::string> given;
  bool help = false;
};

/// Parses `argv`; a failure names the flag.
Expected<CommandLine> parseCommandLine(int argc, char **argv);

/// Fails when a flag that shaped the compiled code says otherwise than
/// `manifest`; fills those options from it.
Status applyManifest(CommandLine &line, const Manifest &manifest);

/// The --help text.
const char *usage();

} // namespace amp::train

#endif // AMPTRAIN_TRAINOPTIONS_H
