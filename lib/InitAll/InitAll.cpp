//===- InitAll.cpp - Register every amp dialect and pass ------------------===//

#include "amp/InitAll.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Conversion/Passes.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/Pipeline.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"

void amp::registerAllDialects(mlir::DialectRegistry &registry) {
  registry
      .insert<amp::tg::TGDialect, amp::AMPDialect, mlir::arith::ArithDialect>();
}

void amp::registerAllPasses() {
  registerAMPTransformsPasses();
  registerAMPConversionPasses();
  registerAmpPipeline();
}

void amp::registerAllPrecisionModelsAndDialects(mlir::DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllPrecisionModels(registry);
}
