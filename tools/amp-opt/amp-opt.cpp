//===- amp-opt.cpp - mlir-opt with the amp dialects and passes ------------===//
//
// Every upstream dialect, extension and pass is registered too, so amp-opt
// reads what other MLIR front ends emit and runs the whole lowering. The
// work runs on a thread with a large stack (deeply nested input), and an
// output that cannot be written is an error with a non-zero exit, not an
// abort.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Tools/LargeStack.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

static int runOpt(int argc, char **argv, mlir::DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "amp: automatic mixed precision for MLIR training graphs\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings print nothing of the input: upstream's driver does them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "amp-opt: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "amp-opt: " << error << "\n";
    return 1;
  }
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->os().flush();
  if (output->os().has_error()) {
    llvm::errs() << "amp-opt: cannot write '" << outputFilename
                 << "': " << output->os().error().message() << "\n";
    // Cleared, or the stream's destructor would abort the process.
    output->os().clear_error();
    return 1;
  }
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  amp::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  amp::registerAllPrecisionModelsAndDialects(registry);

  return amp::runWithLargeStack([&] { return runOpt(argc, argv, registry); });
}
