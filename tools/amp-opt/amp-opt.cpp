//===- amp-opt.cpp - mlir-opt with the amp dialects and passes ------------===//
//
// Every upstream dialect, extension and pass is registered too, so amp-opt
// reads what other MLIR front ends emit and runs the whole lowering. The
// work runs on a thread with a large stack (deeply nested input); the
// output is written whole or not at all, and one that cannot be written is
// an error with a non-zero exit, not an abort.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Support/AtomicFile.h"
#include "amp/Tools/LargeStack.h"
#include "amp/Tools/PassOptionErrors.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

/// A bad pass option reaches upstream's pipeline setup as an error at an
/// unknown location: empty when LLVM's option parser has already printed
/// why the value is bad, and prefixed "<Pass-Options-Parser>: " for an
/// unknown option. Each is said once, as one line from amp-opt.
static void sayPassOptionErrorsPlainly(mlir::MlirOptMainConfig &config) {
  mlir::MlirOptMainConfig upstream = config;
  config.setPassPipelineSetupFn([upstream](mlir::PassManager &pm) {
    mlir::ScopedDiagnosticHandler plain(
        pm.getContext(), [](mlir::Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error ||
              !llvm::isa<mlir::UnknownLoc>(diagnostic.getLocation()))
            return mlir::failure(); // the usual handler prints it
          std::string message = amp::passOptionMessage(diagnostic.str());
          if (!message.empty())
            llvm::errs() << "amp-opt: " << message << "\n";
          return mlir::success();
        });
    return upstream.setupPassPipeline(pm);
  });
}

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
  sayPassOptionErrorsPlainly(config);
  // The output is held until the run succeeds, then written whole: a failed
  // run leaves an existing -o file as it was.
  std::string text;
  llvm::raw_string_ostream output(text);
  if (failed(mlir::MlirOptMain(output, std::move(input), registry, config)))
    return 1;
  if (llvm::Error written = amp::writeFileAtomically(
          outputFilename, [&](llvm::raw_ostream &os) { os << text; })) {
    llvm::errs() << "amp-opt: cannot write '" << outputFilename
                 << "': " << llvm::toString(std::move(written)) << "\n";
    return 1;
  }
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
