//===- amp-run.cpp - Compile a training step and train with it ------------===//
//
// amp-run's command line over the amp-run library (include/amp/Run): the
// flags fill one RunConfig (CommandLine.h), checkConfig refuses what cannot
// run, and compileAndRun does the work: the pipeline at the chosen
// precision, the lowering and JIT, then training on Fashion-MNIST, text or
// synthetic data, or --validate against f32, with progress on stderr and a
// JSON report to --report. Bad input is a clear error and a non-zero exit.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "amp/Run/Run.h"
#include "amp/Tools/LargeStack.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

static int runMain(int argc, char **argv) {
  amp::run::RunConfig config;
  amp::run::CommandLine flags(config);
  if (!flags.parse(argc, argv))
    return 1;
  if (std::string bad = amp::run::checkConfig(config); !bad.empty()) {
    llvm::errs() << "amp-run: error: " << bad << "\n";
    return 1;
  }
  return amp::run::compileAndRun(config);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return amp::runWithLargeStack([&] { return runMain(argc, argv); });
}
