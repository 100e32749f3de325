//===- Passes.h - Lowering amp to its runtime -------------------*- C++ -*-===//

#ifndef AMP_CONVERSION_PASSES_H
#define AMP_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace amp {

#define GEN_PASS_DECL
#include "amp/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Conversion/Passes.h.inc"

/// The whole path from lowered-to-runtime IR to the LLVM dialect:
/// amp-lower-to-runtime, convert-to-llvm, reconcile-unrealized-casts. One
/// function so amp-run and embedders lower alike.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm);
/// The same with amp-lower-to-runtime's options as its textual pipeline
/// form takes them ("fuse-bias-epilogues=0 reshape-views=0"), for A/B runs
/// of a lowering choice (amp-run's --lower-options). Fails, having said why
/// through `errorHandler`, on an unknown option or a bad value.
mlir::LogicalResult buildLowerToLLVMPipeline(
    mlir::OpPassManager &pm, llvm::StringRef lowerToRuntimeOptions,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

/// The runtime's element-type code (amprt_dtype in amprt/amprt.h) for
/// tensors of `element`, if the runtime holds that type. The lowering emits
/// these codes; tools that create the runtime tensors a step takes use the
/// same mapping.
std::optional<int32_t> runtimeDtypeCode(mlir::Type element);

} // namespace amp

#endif // AMP_CONVERSION_PASSES_H
