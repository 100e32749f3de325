//===- PrecisionRegistryTest.cpp - Classes registered by op name ----------===//

#include "amp/InitAll.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

std::string runAmp(MLIRContext &context, const char *text) {
  auto module = parseSourceString<ModuleOp>(text, &context);
  EXPECT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(amp::createAutoMixedPrecisionPass());
  EXPECT_TRUE(succeeded(pm.run(*module)));
  std::string s;
  llvm::raw_string_ostream os(s);
  module->print(os);
  return s;
}

TEST(PrecisionRegistry, ClassesByNameJoinThePolicy) {
  DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.allowUnregisteredDialects();
  const char *text = R"mlir(
    func.func @f(%x: tensor<8x8xf32>) -> (tensor<8x8xf32> {tg.role = "output"}) {
      %y = "ext.dense"(%x, %x) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      return %y : tensor<8x8xf32>
    })mlir";
  // Unknown: stays f32.
  EXPECT_EQ(runAmp(context, text).find("f16"), std::string::npos);
  // Registered as allow: runs in f16 with casts around it.
  amp::registerPrecisionClass("ext.dense", amp::PrecisionClass::Allow);
  std::string out = runAmp(context, text);
  EXPECT_NE(out.find("\"ext.dense\"(%0, %0) : (tensor<8x8xf16>, "
                     "tensor<8x8xf16>) -> tensor<8x8xf16>"),
            std::string::npos)
      << out;
  amp::registerPrecisionClass("ext.dense", amp::PrecisionClass::Deny);
  EXPECT_EQ(runAmp(context, text).find("f16"), std::string::npos);
}

} // namespace
