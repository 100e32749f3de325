//===- train_host.cpp - A host program driving a compiled training step ---===//
//
// Example 4: compile a forward-only training step with the amp pipeline,
// lower it, JIT it, and drive it through the runtime C API — creating the
// tensors, running steps and reading the loss — with no amp-run involved.
//
// RUN: %amp_bin/example-train-host %S/mlp_adam.mlir | FileCheck %s
// CHECK: step 0 loss [[L0:[0-9.]+]]
// CHECK: step 29 loss
// CHECK: loss fell: yes
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/InitAll.h"
#include "amp/Transforms/Pipeline.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include <cstdio>
#include <random>
#include <vector>

using namespace mlir;

static amprt_tensor *tensor(amprt_context *ctx, Type type, float value,
                            std::mt19937 *rng = nullptr) {
  auto t = cast<RankedTensorType>(type);
  amprt_dtype dtype = t.getElementType().isInteger(64)   ? AMPRT_I64
                      : t.getElementType().isInteger(32) ? AMPRT_I32
                                                         : AMPRT_F32;
  std::vector<int64_t> shape(t.getShape().begin(), t.getShape().end());
  amprt_tensor *out = amprt_tensor_new(ctx, dtype, shape.size(), shape.data());
  if (rng && dtype == AMPRT_F32) {
    std::vector<float> v(t.getNumElements());
    std::normal_distribution<float> d(0.0f, value);
    for (float &x : v)
      x = d(*rng);
    amprt_tensor_write(out, v.data(), v.size() * 4);
  } else if (rng) {
    std::vector<int32_t> v(t.getNumElements());
    for (int32_t &x : v)
      x = (*rng)() % 10;
    amprt_tensor_write(out, v.data(), v.size() * 4);
  } else {
    amprt_tensor_fill(out, value);
  }
  return out;
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

  // Mixed precision with static loss scaling, then down to LLVM.
  PassManager pm(&context);
  amp::AmpPipelineOptions options;
  options.precision = "f16";
  options.mode = "static";
  options.initScale = 1024;
  amp::buildAmpPipeline(pm, options);
  amp::buildLowerToLLVMPipeline(pm);
  // Remember the step's signature before lowering changes it.
  auto fn = module->lookupSymbol<func::FuncOp>("train_step");
  std::vector<Type> argTypes(fn.getArgumentTypes().begin(),
                             fn.getArgumentTypes().end());
  // Roles as the dialect's enum (the verifier has checked their names).
  std::vector<std::optional<amp::tg::Role>> roles;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    roles.push_back(amp::tg::getArgumentRole(fn, i));
  unsigned numResults = fn.getNumResults();
  if (failed(pm.run(*module)))
    return 1;
  auto engine = ExecutionEngine::create(*module);
  if (!engine)
    return 1;
  (*engine)->initialize();
  auto sym = (*engine)->lookup("train_step");
  if (!sym)
    return 1;
  auto run = reinterpret_cast<int32_t (*)(void *, void **, void **)>(*sym);

  amprt_context *ctx;
  amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx);
  std::mt19937 rng(0);
  std::vector<amprt_tensor *> args;
  for (size_t i = 0; i < argTypes.size(); ++i) {
    if (roles[i] == amp::tg::Role::Param)
      args.push_back(tensor(ctx, argTypes[i], 0.05f, &rng));
    else if (roles[i] == amp::tg::Role::LearningRate)
      args.push_back(tensor(ctx, argTypes[i], 0.001f));
    else
      args.push_back(tensor(ctx, argTypes[i], 0.0f)); // state, data
  }
  // One fixed batch: the step should fit it.
  for (size_t i = 0; i < argTypes.size(); ++i)
    if (roles[i] == amp::tg::Role::Input || roles[i] == amp::tg::Role::Label) {
      amprt_tensor_release(args[i]);
      args[i] = tensor(ctx, argTypes[i], 1.0f, &rng);
    }
  float first = 0, last = 0;
  std::vector<void *> results(numResults);
  for (int s = 0; s < 30; ++s) {
    if (run(ctx, (void **)args.data(), results.data()) != AMPRT_OK) {
      fprintf(stderr, "step failed: %s\n", amprt_context_error(ctx));
      return 1;
    }
    float loss;
    amprt_tensor_read((amprt_tensor *)results[0], &loss, 4);
    printf("step %d loss %.4f\n", s, loss);
    (s == 0 ? first : last) = loss;
    // Results after the loss replace params and state, in argument order.
    size_t r = 1;
    for (size_t i = 0; i < args.size(); ++i)
      if (roles[i] && amp::tg::isCarriedRole(*roles[i])) {
        amprt_tensor_release(args[i]);
        args[i] = (amprt_tensor *)results[r++];
      }
    amprt_tensor_release((amprt_tensor *)results[0]);
  }
  printf("loss fell: %s\n", last < first ? "yes" : "no");
  for (amprt_tensor *t : args)
    amprt_tensor_release(t);
  amprt_context_destroy(ctx);
  return 0;
}
