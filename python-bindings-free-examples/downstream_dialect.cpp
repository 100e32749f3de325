//===- downstream_dialect.cpp - Another compiler's ops join the policy ----===//
//
// Example 2: a downstream dialect with two ops of its own joins amp's
// precision policy by attaching PrecisionPolicyOpInterface as external
// models (dn.dense is allow, dn.swish infer), and is coloured next to tg
// ops by the unchanged pass.
//
// RUN: %amp_bin/example-downstream-dialect | FileCheck %s
// CHECK-LABEL: func.func @mixed
// CHECK: tg.relu {{.*}} : tensor<16x16xf16>
// CHECK: dn.dense {{.*}} : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// CHECK: dn.swish {{.*}} : tensor<16x16xf16>
// CHECK: dn.dense {{.*}} : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// CHECK: tg.exp {{.*}} : tensor<16x16xf32>
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include "DownstreamOpsDialect.h.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.h.inc"

#include "DownstreamOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.cpp.inc"

void dn::DNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >();
}

static const char *kModule = R"mlir(
func.func @mixed(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32> {tg.role = "output"}) {
  %r = tg.relu %x : tensor<16x16xf32>
  %d = dn.dense %r, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = dn.swish %d : tensor<16x16xf32>
  %e = dn.dense %s, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = tg.exp %e : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<mlir::func::FuncDialect, dn::DNDialect>();
  // The downstream compiler gives its ops a class, without touching amp.
  registry.addExtension(+[](mlir::MLIRContext *ctx, dn::DNDialect *) {
    amp::attachClassModels<amp::PrecisionClass::Allow, dn::DenseOp>(ctx);
    amp::attachClassModels<amp::PrecisionClass::Infer, dn::SwishOp>(ctx);
  });
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(amp::createAutoMixedPrecisionPass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
