//===- amp-tblgen.cpp - TableGen backends for amp's own classes -----------===//
//
// mlir-tblgen's driver with the generators amp adds: pass pipelines whose
// options are their passes' (PassPipelineGen.cpp).
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
