//===- LowerToRuntimeTest.cpp - The lowering's conversion, from outside ---===//
//
// --amp-lower-to-runtime converts steps with dialect conversion. A rule of
// another dialect that fails has said why: the user sees its error once,
// not followed by the driver's "failed to legalize"; one that fails
// silently leaves that message. A rule that forgets a result is named. And the
// driver's folding stays off: the releases were planned on the ops as they are.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/InitAll.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// A rule that emits an error and fails (for arith.negf on tensors).
struct FailingRule
    : amp::RuntimeLoweringOpInterface::ExternalModel<FailingRule,
                                                     arith::NegFOp> {
  LogicalResult lowerToRuntime(Operation *op,
                               amp::RuntimeLoweringBuilder &) const {
    return op->emitError("this rule cannot lower negf");
  }
};

/// A rule that fails without a word (for arith.subf).
struct SilentRule
    : amp::RuntimeLoweringOpInterface::ExternalModel<SilentRule,
                                                     arith::SubFOp> {
  LogicalResult lowerToRuntime(Operation *,
                               amp::RuntimeLoweringBuilder &) const {
    return failure();
  }
};

/// A rule that calls nothing and makes no result (for arith.addf).
struct ForgetfulRule
    : amp::RuntimeLoweringOpInterface::ExternalModel<ForgetfulRule,
                                                     arith::AddFOp> {
  LogicalResult lowerToRuntime(Operation *,
                               amp::RuntimeLoweringBuilder &) const {
    return success();
  }
};

class LowerToRuntimeTest : public ::testing::Test {
protected:
  LowerToRuntimeTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    amp::registerTGToRuntimeLowerings(registry);
    registry.insert<func::FuncDialect, arith::ArithDialect>();
    registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
      arith::NegFOp::attachInterface<FailingRule>(*ctx);
      arith::AddFOp::attachInterface<ForgetfulRule>(*ctx);
      arith::SubFOp::attachInterface<SilentRule>(*ctx);
    });
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Runs --amp-lower-to-runtime=`options` on `text`; the errors it
  /// reports.
  std::vector<std::string> lower(const char *text, bool &ok,
                                 StringRef options = "") {
    std::vector<std::string> errors;
    ScopedDiagnosticHandler collect(context.get(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        errors.push_back(d.str());
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, context.get());
    EXPECT_TRUE(module) << text;
    PassManager pm(context.get());
    std::unique_ptr<Pass> pass = amp::createLowerToRuntimePass();
    EXPECT_TRUE(succeeded(pass->initializeOptions(
        options, [](const Twine &) { return failure(); })));
    pm.addPass(std::move(pass));
    ok = module && succeeded(pm.run(*module));
    if (ok)
      printed = print(*module);
    return errors;
  }

  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  std::unique_ptr<MLIRContext> context;
  std::string printed;
};

TEST_F(LowerToRuntimeTest, AFailingRuleIsReportedOnce) {
  bool ok = true;
  std::vector<std::string> errors = lower(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tg.exp %x : tensor<4xf32>
      %z = arith.negf %y : tensor<4xf32>
      return %z : tensor<4xf32>
    })mlir",
                                          ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "this rule cannot lower negf");
}

TEST_F(LowerToRuntimeTest, ARuleThatFailsSilentlyLeavesTheDriversError) {
  bool ok = true;
  std::vector<std::string> errors = lower(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = arith.subf %x, %x : tensor<4xf32>
      return %y : tensor<4xf32>
    })mlir",
                                          ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("failed to legalize operation 'arith.subf'"),
            std::string::npos)
      << errors[0];
}

TEST_F(LowerToRuntimeTest, ARuleThatMakesNoResultIsNamed) {
  bool ok = true;
  std::vector<std::string> errors = lower(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = arith.addf %x, %x : tensor<4xf32>
      return %y : tensor<4xf32>
    })mlir",
                                          ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("the runtime lowering of 'arith.addf' gave result "
                           "#0 no tensor"),
            std::string::npos)
      << errors[0];
}

TEST_F(LowerToRuntimeTest, OpsAreLoweredAsTheyAreNotFolded) {
  // tg.neg of tg.neg folds to its input; lowered (chains off), both
  // negations run.
  bool ok = false;
  std::vector<std::string> errors = lower(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = tg.neg %x : tensor<4xf32>
      %b = tg.neg %a : tensor<4xf32>
      %c = tg.exp %b : tensor<4xf32>
      return %c : tensor<4xf32>
    })mlir",
                                          ok, "fuse-elementwise-chains=0");
  ASSERT_TRUE(ok) << (errors.empty() ? "" : errors[0]);
  size_t first = printed.find("call @amprt_neg(");
  ASSERT_NE(first, std::string::npos) << printed;
  EXPECT_NE(printed.find("call @amprt_neg(", first + 1), std::string::npos)
      << printed;
}

} // namespace
