// Parses a tiny step, runs amp's pipeline and the runtime from an
// installed amp, checks an amp-run configuration with amp-run's library,
// and prints what it did.
#include "amp/InitAll.h"
#include "amp/Run/RunConfig.h"
#include "amp/Transforms/Pipeline.h"
#include "amprt/amprt.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kStep = R"mlir(
func.func @step(%w: tensor<8x8xf32> {tg.role = "param"}, %x: tensor<8x8xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"}) -> (tensor<f32> {tg.role = "loss"}, tensor<8x8xf32> {tg.role = "param"}) {
  %y = tg.matmul %x, %w : tensor<8x8xf32>
  %l = tg.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<8x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<8x8xf32>
  return %l, %w2 : tensor<f32>, tensor<8x8xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kStep, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  amp::AmpPipelineOptions options;
  amp::buildAmpPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  amprt_context *ctx = nullptr;
  llvm::outs() << "runtime: "
               << (amprt_context_create(AMPRT_DEVICE_CPU, 0, &ctx) == AMPRT_OK
                       ? "ok"
                       : amprt_last_error())
               << "\n";
  amprt_context_destroy(ctx);
  amp::run::RunConfig config;
  config.run.inputFile = "step.mlir";
  config.run.precision = "f8";
  llvm::outs() << "amp-run config: " << amp::run::checkConfig(config) << "\n";
  return 0;
}
