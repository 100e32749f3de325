//===- AMPPlugin.cpp - amp as a plugin of stock mlir-opt ------------------===//
//
//   mlir-opt --load-dialect-plugin=lib/AMPPlugin.so \
//            --load-pass-plugin=lib/AMPPlugin.so \
//            step.mlir --amp-pipeline
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "amp", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            amp::registerAllPrecisionModelsAndDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "amp", LLVM_VERSION_STRING,
          []() { amp::registerAllPasses(); }};
}
