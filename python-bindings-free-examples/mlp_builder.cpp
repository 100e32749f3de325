//===- mlp_builder.cpp - Build a training step with the C++ builders ------===//
//
// Example 1: build an MLP training step (matmul, bias, relu, matmul,
// cross-entropy, tg.gradients, SGD) with OpBuilder, run amp's pipeline as
// one call, and print the mixed-precision step.
//
// RUN: %amp_bin/example-mlp-builder | FileCheck %s
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tg.role = "loss_scale"
// CHECK: tg.matmul {{.*}} : tensor<64x784xf16>, tensor<784x256xf16>
// CHECK: tg.relu_grad {{.*}} : tensor<64x256xf16>
// CHECK: amp.all_finite
// CHECK-COUNT-4: tg.sgd_update
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/InitAll.h"
#include "amp/Transforms/Pipeline.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace tg = amp::tg;

int main() {
  DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto f32 = b.getF32Type();
  auto t = [&](ArrayRef<int64_t> shape, Type e) {
    return RankedTensorType::get(shape, e);
  };
  int64_t batch = 64, in = 784, hidden = 256, classes = 10;
  Type w1 = t({in, hidden}, f32), b1 = t({hidden}, f32),
       w2 = t({hidden, classes}, f32), b2 = t({classes}, f32),
       x = t({batch, in}, f32), y = t({batch}, b.getI32Type()),
       lr = t({}, f32);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "train_step",
      b.getFunctionType({w1, b1, w2, b2, x, y, lr}, {lr, w1, b1, w2, b2}));
  auto role = [&](StringRef r) { return b.getNamedAttr("tg.role", b.getStringAttr(r)); };
  for (unsigned i = 0; i < 4; ++i)
    func.setArgAttrs(i, b.getDictionaryAttr({role("param")}));
  func.setArgAttrs(4, b.getDictionaryAttr({role("input")}));
  func.setArgAttrs(5, b.getDictionaryAttr({role("label")}));
  func.setArgAttrs(6, b.getDictionaryAttr({role("lr")}));
  func.setResultAttrs(0, b.getDictionaryAttr({role("loss")}));
  for (unsigned i = 1; i < 5; ++i)
    func.setResultAttrs(i, b.getDictionaryAttr({role("param")}));

  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  auto args = body->getArguments();
  Value h = tg::MatmulOp::create(b, loc, args[4], args[0], false, false);
  Value hb = tg::BiasAddOp::create(b, loc, h, args[1]);
  Value a = tg::ReluOp::create(b, loc, hb);
  Value z = tg::MatmulOp::create(b, loc, a, args[2], false, false);
  Value logits = tg::BiasAddOp::create(b, loc, z, args[3]);
  Value ce = tg::SoftmaxCrossEntropyOp::create(b, loc, logits, args[5]);
  Value loss = tg::ReduceMeanOp::create(b, loc, ce,
                                        b.getDenseI64ArrayAttr({0}),
                                        b.getBoolAttr(false));
  auto grads = tg::GradientsOp::create(
      b, loc, loss, ValueRange{args[0], args[1], args[2], args[3]});
  SmallVector<Value> results{loss};
  for (unsigned i = 0; i < 4; ++i)
    results.push_back(tg::SgdUpdateOp::create(b, loc, args[i],
                                              grads.getResult(i), args[6]));
  func::ReturnOp::create(b, loc, results);
  if (failed(verify(*module)))
    return 1;

  // The whole pipeline, as another compiler would embed it.
  PassManager pm(&context);
  amp::AmpPipelineOptions options;
  options.precision = amp::LowPrecision::F16;
  amp::buildAmpPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
