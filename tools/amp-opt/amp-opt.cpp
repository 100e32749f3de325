//===- amp-opt.cpp - mlir-opt with the amp dialects and passes ------------===//
//
// Every upstream dialect, extension and pass is registered too, so amp-opt
// reads what other MLIR front ends emit and runs the whole lowering.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  amp::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  amp::registerAllPrecisionModelsAndDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "amp: automatic mixed precision for MLIR training graphs\n",
      registry));
}
