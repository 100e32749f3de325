//===- ChangedOpVerifierTest.cpp - The pass's own check of its output -----===//
//
// The pass verifies what it changed, sharing one verification between tg
// and amp ops with the same name, attributes and types. These tests pin
// what makes two ops "the same" (an answer must never be shared across a
// difference the verifier reads), and that a precision model that writes
// invalid IR is reported as a defect instead of handed on.
//
//===----------------------------------------------------------------------===//

#include "ChangedOpVerifier.h"
#include "amp/InitAll.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

class ChangedOpVerifierTest : public ::testing::Test {
protected:
  ChangedOpVerifierTest() {
    DialectRegistry registry;
    amp::registerAllPrecisionModelsAndDialects(registry);
    registry.insert<func::FuncDialect, tensor::TensorDialect>();
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const char *text) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, context.get());
    EXPECT_TRUE(module);
    return module;
  }

  static SmallVector<Operation *> opsOf(ModuleOp module) {
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (!isa<ModuleOp, func::FuncOp, func::ReturnOp>(op))
        ops.push_back(op);
    });
    return ops;
  }

  std::unique_ptr<MLIRContext> context;
};

TEST_F(ChangedOpVerifierTest, EqualOpsShareOneVerification) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>,
                 %d: tensor<4x4xf32>) {
      %0 = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16>
      %1 = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16>
      %2 = tg.matmul %a, %a {transpose_b = true} : tensor<4x8xf16>, tensor<4x8xf16>
      %3 = arith.addf %c, %d : tensor<4x4xf32>
      %4 = arith.addf %c, %d : tensor<4x4xf32>
      return
    })mlir");
  amp::ChangedOpVerifier verifier(context.get());
  for (Operation *op : opsOf(*module))
    EXPECT_TRUE(succeeded(verifier.verify(op, /*withRegions=*/true)));
  // The second matmul shares the first's answer; the transposed one differs
  // by an attribute; arith ops are always verified on their own.
  EXPECT_EQ(verifier.numShared, 1u);
  EXPECT_EQ(verifier.numVerified, 4u);
  EXPECT_FALSE(verifier.foundBroken());
}

TEST_F(ChangedOpVerifierTest, ADifferenceInTypesIsVerifiedAndCaught) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
      %0 = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16>
      %1 = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x4xf16>
      return
    })mlir");
  SmallVector<Operation *> ops = opsOf(*module);
  // A rewrite that gave the second matmul a result type of the wrong
  // shape: same name, operands and attributes as the first, so only the
  // result type tells them apart.
  ops[1]->getResult(0).setType(
      RankedTensorType::get({4, 8}, Float16Type::get(context.get())));
  amp::ChangedOpVerifier verifier(context.get());
  EXPECT_TRUE(succeeded(verifier.verify(ops[0], false)));
  EXPECT_TRUE(failed(verifier.verify(ops[1], false)));
  ASSERT_TRUE(verifier.foundBroken());
  EXPECT_EQ(verifier.getBrokenName().getStringRef(), "tg.matmul");
  EXPECT_NE(verifier.getMessages().find("tg.matmul"), StringRef::npos)
      << verifier.getMessages().str();
  // Every later call fails at once: the first broken op is the one named.
  EXPECT_TRUE(failed(verifier.verify(ops[0], false)));
}

/// A precision model with a defect: it says tensor.splat's result follows
/// the op's precision but its scalar operand does not, so converting it
/// leaves the splat's operand and element types apart.
struct DefectiveSplatModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<DefectiveSplatModel,
                                                     tensor::SplatOp> {
  amp::PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return amp::PrecisionClass::Allow;
  }
  bool isPrecisionOperand(Operation *, unsigned) const { return false; }
  bool supportsPrecision(Operation *, FloatType) const { return true; }
};

TEST_F(ChangedOpVerifierTest, ADefectiveModelIsReportedNotWritten) {
  tensor::SplatOp::attachInterface<DefectiveSplatModel>(*context);
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%s: f32) -> tensor<4xf32> {
      %0 = tensor.splat %s : tensor<4xf32> loc("splat.py":3:1)
      return %0 : tensor<4xf32>
    })mlir");
  std::string errors;
  ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      errors += diag.str() + "\n";
    return success();
  });
  PassManager pm(context.get());
  pm.addPass(amp::createAutoMixedPrecisionPass());
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(errors.find("converting 'tensor.splat' at loc(\"splat.py\":3:1) "
                        "to 'f16' produced invalid IR"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("defect of the pass or of the op's precision model"),
            std::string::npos)
      << errors;
}

} // namespace
