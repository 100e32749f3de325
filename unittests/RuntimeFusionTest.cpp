//===- RuntimeFusionTest.cpp - The fusion patterns for embedders ----------===//
//
// A compiler that embeds amp applies the populate...Patterns sets with its
// own control function and its own driver. These tests pin what the
// control function is shown, what a refusal leaves, and that the chains
// that form do not depend on the order the driver offers ops in.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/RuntimeFusion.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/InitAll.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// amp's dialects (and the lowerings that name chain steps) and func.
DialectRegistry fusionDialects() {
  DialectRegistry registry;
  amp::registerAllDialects(registry);
  registry.insert<func::FuncDialect>();
  return registry;
}

class RuntimeFusionTest : public ::testing::Test {
protected:
  OwningOpRef<ModuleOp> parse(const char *text) {
    context->loadAllAvailableDialects();
    auto module = parseSourceString<ModuleOp>(text, context.get());
    EXPECT_TRUE(module) << text;
    return module;
  }

  /// Applies `populate`'s patterns with `control` by the greedy driver.
  template <typename Populate>
  void applyGreedily(ModuleOp module, Populate populate,
                     amp::RuntimeFusionControlFn control = {},
                     bool topDown = true) {
    RewritePatternSet patterns(context.get());
    populate(patterns, std::move(control));
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(topDown);
    ASSERT_TRUE(
        succeeded(applyPatternsGreedily(module, std::move(patterns), config)));
    ASSERT_TRUE(succeeded(verify(module)));
  }

  template <typename OpT> static unsigned count(ModuleOp module) {
    unsigned n = 0;
    module.walk([&](OpT) { ++n; });
    return n;
  }

  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  std::unique_ptr<MLIRContext> context =
      std::make_unique<MLIRContext>(fusionDialects());
};

constexpr const char *kDense = R"mlir(
  func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>)
      -> tensor<4x3xf32> {
    %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
    %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
    %y = tg.relu %z : tensor<4x3xf32>
    return %y : tensor<4x3xf32>
  })mlir";

TEST_F(RuntimeFusionTest, ControlSeesTheOpsInBlockOrder) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
      %a = tg.exp %x : tensor<8xf32>
      %b = tg.tanh %a : tensor<8xf32>
      %c = tg.neg %b : tensor<8xf32>
      return %c : tensor<8xf32>
    })mlir");
  std::vector<std::string> shown;
  applyGreedily(*module, amp::populateElementwiseChainPatterns,
                [&](ArrayRef<Operation *> fused) {
                  for (Operation *op : fused)
                    shown.push_back(op->getName().getStringRef().str());
                  return false;
                });
  EXPECT_EQ(shown, (std::vector<std::string>{"tg.exp", "tg.tanh", "tg.neg"}));
  EXPECT_EQ(count<amp::rt::ElementwiseChainOp>(*module), 0u);
  EXPECT_EQ(count<amp::tg::TanhOp>(*module), 1u);
}

TEST_F(RuntimeFusionTest, RefusedEpilogueOffersTheBiasAlone) {
  OwningOpRef<ModuleOp> module = parse(kDense);
  unsigned offers = 0;
  applyGreedily(*module, amp::populateProductEpiloguePatterns,
                [&](ArrayRef<Operation *> fused) {
                  ++offers;
                  return fused.size() < 3;
                });
  EXPECT_EQ(offers, 2u);
  amp::rt::ProductEpilogueOp epilogue;
  module->walk([&](amp::rt::ProductEpilogueOp op) { epilogue = op; });
  ASSERT_TRUE(epilogue);
  EXPECT_TRUE(epilogue.getBiasAdd());
  EXPECT_FALSE(epilogue.getActivation());
  // The relu stays outside, reading the epilogue's result.
  amp::tg::ReluOp relu;
  module->walk([&](amp::tg::ReluOp op) { relu = op; });
  ASSERT_TRUE(relu);
  EXPECT_EQ(relu.getX().getDefiningOp(), epilogue.getOperation());
}

TEST_F(RuntimeFusionTest, NoControlFusesTheWholeEpilogue) {
  OwningOpRef<ModuleOp> module = parse(kDense);
  applyGreedily(*module, amp::populateProductEpiloguePatterns);
  amp::rt::ProductEpilogueOp epilogue;
  module->walk([&](amp::rt::ProductEpilogueOp op) { epilogue = op; });
  ASSERT_TRUE(epilogue);
  EXPECT_TRUE(epilogue.getBiasAdd());
  ASSERT_TRUE(epilogue.getActivation());
  EXPECT_TRUE(isa<amp::tg::ReluOp>(epilogue.getActivation()));
  EXPECT_EQ(epilogue->getNumResults(), 1u); // nothing reads relu's input
}

constexpr const char *kAttention = R"mlir(
  func.func @attention(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>,
                       %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
      -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>,
          tensor<2x4x5xf32>) {
    %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
    %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
    %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
    %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
    %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
    %ds = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
    %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
    %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
    return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
  })mlir";

TEST_F(RuntimeFusionTest, AttentionControlSeesForwardAndGradientTogether) {
  OwningOpRef<ModuleOp> module = parse(kAttention);
  std::vector<std::string> shown;
  applyGreedily(*module, amp::populateAttentionPatterns,
                [&](ArrayRef<Operation *> fused) {
                  for (Operation *op : fused)
                    shown.push_back(op->getName().getStringRef().str());
                  return false;
                });
  std::string product = "tg.batch_matmul";
  EXPECT_EQ(shown, (std::vector<std::string>{
                       product, "tg.softmax", product, product, product,
                       "tg.softmax_grad", product, product}));
  EXPECT_EQ(count<amp::rt::AttentionOp>(*module), 0u);
  EXPECT_EQ(count<amp::tg::SoftmaxGradOp>(*module), 1u);

  applyGreedily(*module, amp::populateAttentionPatterns);
  EXPECT_EQ(count<amp::rt::AttentionOp>(*module), 1u);
  EXPECT_EQ(count<amp::rt::AttentionGradOp>(*module), 1u);
  EXPECT_EQ(count<amp::tg::SoftmaxOp>(*module), 0u);
  EXPECT_EQ(count<amp::tg::BatchMatmulOp>(*module), 0u);
}

// Eighteen steps in a line, a sum of nine inputs, and two sums whose sum
// reads nine: whichever way the greedy driver walks, the chains are those
// fuseForRuntime makes (a chain made first never lets a root above it
// take in what the unfused block would not).
TEST_F(RuntimeFusionTest, ChainsDoNotDependOnTheOrderOpsAreOffered) {
  std::string text = "func.func @f(%x: tensor<8xf32>";
  for (int i = 0; i < 9; ++i)
    text += ", %a" + std::to_string(i) + ": tensor<8xf32>";
  text += ") -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {\n";
  std::string prev = "%x";
  const char *unary[] = {"neg", "abs", "exp", "tanh"};
  for (int i = 0; i < 18; ++i) {
    std::string v = "%v" + std::to_string(i);
    text += v + " = tg." + unary[i % 4] + " " + prev + " : tensor<8xf32>\n";
    prev = v;
  }
  std::string sum = "%a0";
  for (int i = 1; i < 9; ++i) {
    std::string s = "%s" + std::to_string(i);
    text += s + " = tg.add " + sum + ", %a" + std::to_string(i) +
            " : tensor<8xf32>\n";
    sum = s;
  }
  // Two sums of five and four inputs, added: nine inputs for the root.
  for (int i = 1; i < 5; ++i)
    text += "%y" + std::to_string(i) + " = tg.add " +
            (i == 1 ? std::string("%a0") : "%y" + std::to_string(i - 1)) +
            ", %a" + std::to_string(i) + " : tensor<8xf32>\n";
  for (int i = 1; i < 4; ++i)
    text += "%w" + std::to_string(i) + " = tg.add " +
            (i == 1 ? std::string("%a5") : "%w" + std::to_string(i - 1)) +
            ", %a" + std::to_string(i + 5) + " : tensor<8xf32>\n";
  text += "%z = tg.add %y4, %w3 : tensor<8xf32>\n";
  text += "return " + prev + ", " + sum +
          ", %z : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>\n}";

  OwningOpRef<ModuleOp> reference = parse(text.c_str());
  // Only adds here: the other families have nothing to fuse.
  amp::RuntimeFusionOptions chainsOnly;
  for (auto func : reference->getOps<func::FuncOp>())
    amp::fuseForRuntime(func, chainsOnly);
  // The line's two, the big sum's one, the two small sums' two.
  EXPECT_EQ(count<amp::rt::ElementwiseChainOp>(*reference), 5u);
  for (bool topDown : {true, false}) {
    OwningOpRef<ModuleOp> module = parse(text.c_str());
    applyGreedily(*module, amp::populateElementwiseChainPatterns, {}, topDown);
    EXPECT_EQ(print(*module), print(*reference)) << "top down: " << topDown;
  }
}

} // namespace
