//===- InitAll.cpp - Register every amp dialect and pass ------------------===//

#include "amp/InitAll.h"
#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Dialect/TG/Transforms/GradientBuilder.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/Pipeline.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

void amp::registerAllDialects(mlir::DialectRegistry &registry) {
  registry
      .insert<amp::tg::TGDialect, amp::AMPDialect, amp::rt::AMPRTDialect,
              mlir::arith::ArithDialect>();
  amp::tg::registerGradientRules(registry);
  amp::registerTGToRuntimeLowerings(registry);
}

void amp::registerAllPasses() {
  registerTGTransformsPasses();
  registerAMPTransformsPasses();
  registerAMPConversionPasses();
  registerAmpPipeline();
}

void amp::registerAllPrecisionModelsAndDialects(
    mlir::DialectRegistry &registry) {
  amp::registerAllDialects(registry);
  registerAllPrecisionModels(registry);
}

void amp::registerAllForJit(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllPrecisionModelsAndDialects(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

void amp::initializeJitTarget() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}
