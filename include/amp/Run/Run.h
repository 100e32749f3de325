//===- Run.h - amp-run: compile a step and train ----------------*- C++ -*-===//
//
// What amp-run does once its flags are a checked RunConfig: join the
// process group and pick the device, parse the step, compile it
// (Compile.h), then stop (--compile-only), validate it against f32
// (ValidationLoop.h) or train it (the training library's loop, shared with
// amp-train). A host program or a test runs amp-run's whole work with one
// call and no subprocess.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_RUN_H
#define AMP_RUN_RUN_H

#include "amp/Run/RunConfig.h"

namespace amp::run {

/// Runs `config` (which checkConfig accepted); returns the exit status,
/// after an "amp-run: error: ..." line on stderr when it is not 0.
int compileAndRun(const RunConfig &config);

} // namespace amp::run

#endif // AMP_RUN_RUN_H
