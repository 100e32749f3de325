//===- StepRunnerTest.cpp - Binding, start state and carrying, checked ----===//
//
// amp::runner against steps small enough to compute by hand: binding by
// tg.role refuses what it cannot bind, the start state follows tg.init /
// tg.init_value / the host's values, state is carried from step to step,
// and a non-finite loss that loss scaling does not explain keeps the last
// good state; a function run beside the step sees its state and changes
// none, and "output" results come back to the caller. Also: a runtime
// lowering of another dialect that forgets its results is an error, not a
// null handle.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/StepRunner.h"
#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/InitAll.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace mlir;
namespace tg = amp::tg;
namespace runner = amp::runner;

namespace {

// w' = w + reshape(x); loss = sum(w'). The label and the learning rate are
// bound but unused; the rate is not state, so it is not returned.
const char *kStep = R"mlir(
func.func @train_step(
    %w: tensor<2xf32> {tg.role = "param", tg.init = "ones"},
    %lr: tensor<f32> {tg.role = "lr", tg.init_value = 0.5 : f32},
    %x: tensor<1x2xf32> {tg.role = "input"},
    %y: tensor<1xi32> {tg.role = "label"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<2xf32> {tg.role = "param"}) {
  %xr = tg.reshape %x : tensor<1x2xf32> -> tensor<2xf32>
  %nw = tg.add %w, %xr : tensor<2xf32>
  %l = tg.reduce_sum %nw {dims = array<i64: 0>} : tensor<2xf32>
  return %l, %nw : tensor<f32>, tensor<2xf32>
}
)mlir";

class StepRunnerTest : public ::testing::Test {
protected:
  StepRunnerTest() {
    DialectRegistry registry;
    amp::registerAllForJit(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    amp::initializeJitTarget();
  }
  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, context.get());
  }
  llvm::Expected<runner::TrainingStep> bind(ModuleOp module) {
    auto f = module.lookupSymbol<func::FuncOp>("train_step");
    return runner::toExpected(runner::TrainingStep::bind(runner::specOf(f)));
  }
  std::string bindError(const char *text) {
    OwningOpRef<ModuleOp> module = parse(text);
    EXPECT_TRUE(module);
    auto step = bind(*module);
    if (step)
      return "";
    return llvm::toString(step.takeError());
  }
  static std::vector<float> read(amprt_tensor *t) {
    std::vector<float> v(amprt_tensor_numel(t));
    EXPECT_EQ(amprt_tensor_read(t, v.data(), v.size() * 4), AMPRT_OK);
    return v;
  }
  std::unique_ptr<MLIRContext> context;
};

TEST_F(StepRunnerTest, BindRefusesWhatItCannotBind) {
  EXPECT_NE(bindError(R"mlir(
func.func @train_step(%x: tensor<2xf32> {tg.role = "input"})
    -> (tensor<f32> {tg.role = "loss"}) {
  %l = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<2xf32>
  return %l : tensor<f32>
})mlir")
                .find("needs arguments with tg.role \"input\" and \"label\""),
            std::string::npos);
  EXPECT_NE(bindError(R"mlir(
func.func @train_step(%x: tensor<2xf32> {tg.role = "input"},
                      %y: tensor<2xi32> {tg.role = "label"},
                      %z: tensor<2xf32>)
    -> (tensor<f32> {tg.role = "loss"}) {
  %l = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<2xf32>
  return %l : tensor<f32>
})mlir")
                .find("argument 2 has no tg.role"),
            std::string::npos);
  EXPECT_NE(bindError(R"mlir(
func.func @train_step(%w: tensor<2xf32> {tg.role = "param"},
                      %x: tensor<2xf32> {tg.role = "input"},
                      %y: tensor<2xi32> {tg.role = "label"})
    -> (tensor<f32> {tg.role = "loss"}) {
  %l = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<2xf32>
  return %l : tensor<f32>
})mlir")
                .find("returns 0 params/state values for 1 such arguments"),
            std::string::npos);
}

TEST_F(StepRunnerTest, StartStateFollowsTheIRUnlessOverridden) {
  auto ctx = runner::createContext(AMPRT_DEVICE_CPU); // outlives the step
  ASSERT_TRUE(!!ctx);
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  auto step = bind(*module);
  ASSERT_TRUE(!!step) << llvm::toString(step.takeError());
  std::mt19937 rng(0);
  runner::TrainingStep::StartValues start;
  start.learningRate = 0.25;
  ASSERT_FALSE(!!step->initialize(ctx->get(), rng, start));
  EXPECT_EQ(read(step->argument(0)), (std::vector<float>{1, 1})); // "ones"
  EXPECT_EQ(read(step->argument(1)), (std::vector<float>{0.5f})); // IR's
  EXPECT_EQ(step->argument(2), nullptr); // the batch is bound per step

  start.overrideLearningRate = true;
  ASSERT_FALSE(!!step->initialize(ctx->get(), rng, start));
  EXPECT_EQ(read(step->argument(1)), (std::vector<float>{0.25f}));
}

TEST_F(StepRunnerTest, CarriesStateAndKeepsItOnANonFiniteLoss) {
  auto ctx = runner::createContext(AMPRT_DEVICE_CPU); // outlives the step
  ASSERT_TRUE(!!ctx);
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  auto step = bind(*module);
  ASSERT_TRUE(!!step);
  PassManager pm(context.get());
  amp::buildLowerToLLVMPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto jit = runner::JitModule::create(*module, {});
  ASSERT_TRUE(!!jit) << llvm::toString(jit.takeError());
  auto fn = jit->lookup("train_step");
  ASSERT_TRUE(!!fn);
  std::mt19937 rng(0);
  ASSERT_FALSE(!!step->initialize(ctx->get(), rng, {}));
  size_t liveAtStart = 0;
  amprt_memory_stats(ctx->get(), &liveAtStart, nullptr);

  auto once = [&](std::vector<float> x) {
    float label = 0;
    auto input =
        amp::train::tensorFromFloats(ctx->get(), step->inputType(), x.data());
    auto y =
        amp::train::tensorFromFloats(ctx->get(), step->labelType(), &label);
    EXPECT_TRUE(input && y);
    return step->run(*fn, ctx->get(), std::move(*input), std::move(*y));
  };
  auto first = once({1, 2});
  ASSERT_TRUE(!!first);
  EXPECT_EQ(first->loss, 5.0f); // w = [2, 3]
  EXPECT_TRUE(first->committed);
  EXPECT_FALSE(first->scaleAfter.has_value());
  auto second = once({1, 2});
  ASSERT_TRUE(!!second);
  EXPECT_EQ(second->loss, 8.0f); // w = [3, 5]
  EXPECT_EQ(read(step->params()[0]), (std::vector<float>{3, 5}));

  auto bad = once({NAN, 0});
  ASSERT_TRUE(!!bad);
  EXPECT_TRUE(std::isnan(bad->loss));
  EXPECT_FALSE(bad->committed);
  EXPECT_EQ(read(step->params()[0]), (std::vector<float>{3, 5}));
  // Every tensor the runner made or received is released: what is live is
  // the state (w and lr), as before the first step.
  size_t live = 0;
  amprt_memory_stats(ctx->get(), &live, nullptr);
  EXPECT_EQ(live, liveAtStart);
}

// A function run beside the step (amp-run --validate's f32 step) sees the
// current state and the batch, returns all its results, and changes no
// state; the step's "output" results come back in the outcome. A function
// with other arguments is refused.
const char *kAside = R"mlir(
func.func @train_step(
    %w: tensor<2xf32> {tg.role = "param", tg.init = "ones"},
    %lr: tensor<f32> {tg.role = "lr", tg.init_value = 0.5 : f32},
    %x: tensor<1x2xf32> {tg.role = "input"},
    %y: tensor<1xi32> {tg.role = "label"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<2xf32> {tg.role = "param"},
        tensor<2xf32> {tg.role = "output"}) {
  %xr = tg.reshape %x : tensor<1x2xf32> -> tensor<2xf32>
  %nw = tg.add %w, %xr : tensor<2xf32>
  %l = tg.reduce_sum %nw {dims = array<i64: 0>} : tensor<2xf32>
  %twice = tg.add %nw, %nw : tensor<2xf32>
  return %l, %nw, %twice : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}
func.func @beside(
    %w: tensor<2xf32> {tg.role = "param"},
    %lr: tensor<f32> {tg.role = "lr"},
    %x: tensor<1x2xf32> {tg.role = "input"},
    %y: tensor<1xi32> {tg.role = "label"})
    -> (tensor<2xf32> {tg.role = "output"}) {
  %xr = tg.reshape %x : tensor<1x2xf32> -> tensor<2xf32>
  %d = tg.sub %w, %xr : tensor<2xf32>
  return %d : tensor<2xf32>
}
func.func @other(%w: tensor<3xf32> {tg.role = "param"})
    -> (tensor<3xf32> {tg.role = "output"}) {
  return %w : tensor<3xf32>
}
)mlir";

TEST_F(StepRunnerTest, RunAsideLeavesTheStateAndOutputsComeBack) {
  auto ctx = runner::createContext(AMPRT_DEVICE_CPU); // outlives the step
  ASSERT_TRUE(!!ctx);
  OwningOpRef<ModuleOp> module = parse(kAside);
  ASSERT_TRUE(module);
  auto step = bind(*module);
  ASSERT_TRUE(!!step) << llvm::toString(step.takeError());
  amp::train::FunctionSpec beside =
      runner::specOf(module->lookupSymbol<func::FuncOp>("beside"));
  amp::train::FunctionSpec other =
      runner::specOf(module->lookupSymbol<func::FuncOp>("other"));
  PassManager pm(context.get());
  amp::buildLowerToLLVMPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto jit = runner::JitModule::create(*module, {});
  ASSERT_TRUE(!!jit) << llvm::toString(jit.takeError());
  auto stepFn = jit->lookup("train_step");
  auto besideFn = jit->lookup("beside");
  auto otherFn = jit->lookup("other");
  ASSERT_TRUE(stepFn && besideFn && otherFn);
  std::mt19937 rng(0);
  ASSERT_FALSE(!!step->initialize(ctx->get(), rng, {}));

  float xv[] = {1, 2}, label = 0;
  auto x = amp::train::tensorFromFloats(ctx->get(), step->inputType(), xv);
  auto y = amp::train::tensorFromFloats(ctx->get(), step->labelType(), &label);
  ASSERT_TRUE(x && y);
  auto aside =
      step->runAside(*besideFn, beside, ctx->get(), x->get(), y->get());
  ASSERT_TRUE(!!aside) << aside.message();
  ASSERT_EQ(aside->size(), 1u);
  EXPECT_EQ(read((*aside)[0].get()), (std::vector<float>{0, -1})); // 1 - x
  EXPECT_EQ(read(step->params()[0]), (std::vector<float>{1, 1}));

  auto refused =
      step->runAside(*otherFn, other, ctx->get(), x->get(), y->get());
  ASSERT_FALSE(!!refused);
  EXPECT_NE(refused.message().find("step's arguments"), std::string::npos);

  auto outcome = step->run(*stepFn, ctx->get(), std::move(*x), std::move(*y));
  ASSERT_TRUE(!!outcome);
  EXPECT_EQ(outcome->loss, 5.0f);
  ASSERT_EQ(outcome->outputs.size(), 1u);
  EXPECT_EQ(outcome->outputs[0].first, 2u);
  EXPECT_EQ(read(outcome->outputs[0].second.get()), (std::vector<float>{4, 6}));
  EXPECT_EQ(read(step->params()[0]), (std::vector<float>{2, 3}));
}

/// A lowering that forgets to allocate its result.
struct ForgetfulLowering
    : amp::RuntimeLoweringOpInterface::ExternalModel<ForgetfulLowering,
                                                     arith::AddFOp> {
  LogicalResult lowerToRuntime(Operation *,
                               amp::RuntimeLoweringBuilder &) const {
    return success();
  }
};

TEST_F(StepRunnerTest, ALoweringThatForgetsItsResultIsAnError) {
  DialectRegistry registry;
  amp::registerAllForJit(registry);
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<ForgetfulLowering>(*ctx);
  });
  MLIRContext local(registry);
  auto module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
})mlir",
                                            &local);
  ASSERT_TRUE(module);
  std::string diagnostic;
  ScopedDiagnosticHandler capture(&local, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  PassManager pm(&local);
  pm.addPass(amp::createLowerToRuntimePass());
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_EQ(diagnostic, "amp-lower-to-runtime: the runtime lowering of "
                        "'arith.addf' gave result #0 no tensor (a lowering "
                        "must call newResults)");
}

} // namespace

// The training library spells tg's roles and initialisers without MLIR: the
// two lists must name the same values, with the same argument/result use.
TEST(StepSpecAgreesWithTG, RolesAndInitializers) {
  for (int32_t i = 0;; ++i) {
    std::optional<tg::Role> role = tg::symbolizeRole(i);
    if (!role)
      break;
    std::optional<amp::train::Role> spelled =
        amp::train::roleNamed(tg::stringifyRole(*role).str());
    ASSERT_TRUE(spelled.has_value()) << tg::stringifyRole(*role).str();
    EXPECT_EQ(amp::train::isArgumentRole(*spelled), tg::isArgumentRole(*role));
    EXPECT_EQ(amp::train::isResultRole(*spelled), tg::isResultRole(*role));
    EXPECT_EQ(amp::train::roleName(*spelled), tg::stringifyRole(*role).str());
  }
  EXPECT_FALSE(tg::symbolizeRole("no_such_role").has_value());
  EXPECT_FALSE(amp::train::roleNamed("no_such_role").has_value());
  for (int32_t i = 0;; ++i) {
    std::optional<tg::Initializer> init = tg::symbolizeInitializer(i);
    if (!init)
      break;
    EXPECT_TRUE(amp::train::initializerNamed(
                    tg::stringifyInitializer(*init).str())
                    .has_value());
  }
}
