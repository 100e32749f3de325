//===- train_host.cpp - A host program driving a compiled training step ---===//
//
// Example 4: compile a forward-only training step with the amp pipeline,
// lower it, JIT it, and train it from a host program of its own with no
// amp-run involved: amp::runner (amp/Runner/StepRunner.h) binds the step's
// arguments by tg.role, starts the params as tg.init says and carries the
// returned state from step to step, over the runtime's C API, with every
// runtime handle owned (RAII).
//
// RUN: %amp_bin/example-train-host %S/mlp_adam.mlir | FileCheck %s
// CHECK: step 0 loss [[L0:[0-9.]+]]
// CHECK: step 29 loss
// CHECK: loss fell: yes
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/InitAll.h"
#include "amp/Runner/StepRunner.h"
#include "amp/Transforms/Pipeline.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <cstdio>
#include <random>
#include <vector>

using namespace mlir;
namespace runner = amp::runner;

static int fail(llvm::Error error) {
  fprintf(stderr, "example-train-host: %s\n",
          llvm::toString(std::move(error)).c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: example-train-host STEP.mlir\n");
    return 2;
  }
  amp::initializeJitTarget();
  DialectRegistry registry;
  amp::registerAllForJit(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  // Runtime tensors belong to their context: it is made first so that it
  // is destroyed last.
  auto ctx = runner::createContext(AMPRT_DEVICE_CPU);
  if (!ctx)
    return fail(ctx.takeError());

  // Mixed precision with static loss scaling.
  PassManager pm(&context);
  amp::AmpPipelineOptions options;
  options.precision = amp::LowPrecision::F16;
  options.mode = amp::LossScalingMode::Static;
  options.initScale = 1024;
  amp::buildAmpPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  // Bind the step by role before lowering changes its signature.
  auto fn = module->lookupSymbol<func::FuncOp>("train_step");
  if (!fn)
    return 1;
  if (llvm::Error error = runner::checkSignature(fn, UINT64_MAX))
    return fail(std::move(error));
  auto step =
      runner::toExpected(runner::TrainingStep::bind(runner::specOf(fn)));
  if (!step)
    return fail(step.takeError());

  // Down to LLVM and into the JIT.
  PassManager lower(&context);
  amp::buildLowerToLLVMPipeline(lower);
  if (failed(lower.run(*module)))
    return 1;
  auto jit = runner::JitModule::create(*module, {});
  if (!jit)
    return fail(jit.takeError());
  auto run = jit->lookup("train_step");
  if (!run)
    return fail(run.takeError());

  std::mt19937 rng(0);
  runner::TrainingStep::StartValues start;
  start.learningRate = 0.001;
  start.overrideLearningRate = true;
  if (llvm::Error error =
          runner::toError(step->initialize(ctx->get(), rng, start)))
    return fail(std::move(error));

  // One fixed batch: the step should fit it.
  amp::train::TensorSpec inputType = step->inputType(),
                         labelType = step->labelType();
  std::vector<float> x(inputType.numel()), y(labelType.numel());
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &v : x)
    v = normal(rng);
  for (float &v : y)
    v = rng() % 10;
  float first = 0, last = 0;
  for (int s = 0; s < 30; ++s) {
    auto input = runner::toExpected(
        amp::train::tensorFromFloats(ctx->get(), inputType, x.data()));
    if (!input)
      return fail(input.takeError());
    auto label = runner::toExpected(
        amp::train::tensorFromFloats(ctx->get(), labelType, y.data()));
    if (!label)
      return fail(label.takeError());
    auto outcome = runner::toExpected(
        step->run(*run, ctx->get(), std::move(*input), std::move(*label)));
    if (!outcome)
      return fail(outcome.takeError());
    printf("step %d loss %.4f\n", s, outcome->loss);
    (s == 0 ? first : last) = outcome->loss;
  }
  printf("loss fell: %s\n", last < first ? "yes" : "no");
  return 0;
}
