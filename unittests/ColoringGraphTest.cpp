//===- ColoringGraphTest.cpp - The graph forgets erased ops ---------------===//
//
// The colouring graph knows ops by address. The pass erases ops the
// conversion left unused and then makes new ones (FP8 quantizations), which
// may take an erased op's address; the report and remarks must not describe
// such an op as the erased one. A graph that forgets an op no longer finds
// it, by node or by the reason it stayed out.
//
//===----------------------------------------------------------------------===//

#include "ConstantConversion.h"
#include "PrecisionColoring.h"
#include "amp/InitAll.h"
#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

constexpr const char *kStep = R"mlir(
func.func @f(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %m = tg.matmul %x, %w : tensor<8x8xf32>
  %t = tg.tanh %m : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}
)mlir";

TEST(ColoringGraph, ForgetsAnErasedOp) {
  DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<func::FuncDialect, tensor::TensorDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kStep, &context);
  ASSERT_TRUE(module);
  auto function = cast<func::FuncOp>(&module->getBody()->front());
  FailureOr<amp::PrecisionPolicy> policy = amp::PrecisionPolicy::create(
      &context, function.getLoc(), amp::LowPrecision::F16,
      amp::PrecisionLevel::Default, {}, "");
  ASSERT_TRUE(succeeded(policy));
  amp::ConstantConverter constants(amp::ConstantOverflow::KeepF32);
  amp::ColoringGraph graph(*policy, constants);
  ASSERT_TRUE(succeeded(graph.build(function)));

  auto ops = function.getBody().front().without_terminator();
  Operation *empty = &*ops.begin();
  Operation *matmul = &*std::next(ops.begin());
  ASSERT_EQ(graph.outsideReason(empty),
            "empty tensor: users in another precision get their own");
  ASSERT_NE(graph.lookup(matmul), nullptr);

  graph.forget({empty, matmul});
  EXPECT_EQ(graph.outsideReason(empty), "");
  EXPECT_EQ(graph.lookup(matmul), nullptr);
}

} // namespace
