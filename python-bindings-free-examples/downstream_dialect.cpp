//===- downstream_dialect.cpp - Another compiler's ops join the policy ----===//
//
// Example 2: a downstream dialect with two ops of its own joins amp's
// precision policy: dn.dense declares itself allow in its ODS (the
// AMP_Precision trait, whose model the dialect attaches when it loads) and
// dn.swish is made infer by an external model, attached without touching
// the op. Both are coloured next to tg ops by the unchanged pass. It also
// gives dn.swish a gradient by attaching GradientOpInterface, so
// --tg-autodiff differentiates through it; without that model the pass
// names the op it cannot differentiate. Last, it gives dn.swish a runtime
// lowering (RuntimeLoweringOpInterface: swish is the runtime's silu step),
// so --amp-lower-to-runtime turns it into a runtime call, or one step of an
// elementwise chain between tg ops; without that model the pass names the
// op it cannot lower.
//
// (FileCheck reads the lines below one by one: no reflowing.)
// clang-format off
// RUN: %amp_bin/example-downstream-dialect | FileCheck %s
// CHECK-LABEL: func.func @mixed
// CHECK: tg.relu {{.*}} : tensor<16x16xf16>
// CHECK: dn.dense {{.*}} : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// CHECK: dn.swish {{.*}} : tensor<16x16xf16>
// CHECK: dn.dense {{.*}} : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// CHECK: tg.exp {{.*}} : tensor<16x16xf32>
//
// The swish rule, d/dx x*s(x) = s + y*(1 - s), after the seed:
// CHECK-LABEL: func.func @train
// CHECK: %[[Y:.*]] = dn.swish %[[H:.*]] : tensor<4x8xf32>
// CHECK: tg.grad_seed
// CHECK: %[[S:.*]] = tg.sigmoid %[[H]] : tensor<4x8xf32>
// CHECK: %[[ONE_MINUS:.*]] = tg.sub %{{.*}}, %[[S]]
// CHECK: %[[T:.*]] = tg.mul %[[Y]], %[[ONE_MINUS]]
// CHECK: %[[D:.*]] = tg.add %[[S]], %[[T]]
// CHECK: %[[DH:.*]] = tg.mul %{{.*}}, %[[D]]
// CHECK: tg.matmul %{{.*}}, %[[DH]] {transpose_a = true}
// CHECK: without a gradient model: tg-autodiff: no gradient rule for 'dn.swish'
//
// CHECK-LABEL: func.func @run(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: %[[X:.*]] = llvm.load
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK: %[[ST:.*]] = call @amprt_silu(%{{.*}}, %[[X]], %[[Y]])
// CHECK: call @amprt_record_status(%{{.*}}, %[[ST]])
// exp, swish and neg run as one chain: steps EXP (2), SILU (13), NEG (0).
// CHECK-LABEL: func.func @chain(
// CHECK-NOT: call @amprt_silu
// CHECK-NOT: call @amprt_exp
// CHECK: arith.constant 13 : i64
// CHECK: call @amprt_elementwise_chain
// CHECK-NOT: call @amprt_neg
// CHECK: return
// CHECK: without a runtime lowering: amp-lower-to-runtime: 'dn.swish' has no runtime lowering
// clang-format on
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Dialect/TG/Transforms/GradientBuilder.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interfaces/GradientOpInterface.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include "DownstreamOpsDialect.h.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.h.inc"

#include "DownstreamOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.cpp.inc"

void dn::DNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >();
  amp::attachDeclaredPrecisionModels<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >(getContext());
}

static const char *kModule = R"mlir(
func.func @mixed(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32> {tg.role = "output"}) {
  %r = tg.relu %x : tensor<16x16xf32>
  %d = dn.dense %r, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = dn.swish %d : tensor<16x16xf32>
  %e = dn.dense %s, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = tg.exp %e : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}
)mlir";

static const char *kTrain = R"mlir(
func.func @train(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32>
  %y = dn.swish %h : tensor<4x8xf32>
  %l = tg.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
)mlir";

static const char *kRun = R"mlir(
func.func @run(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = dn.swish %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tg.exp %x : tensor<4x8xf32>
  %y = dn.swish %e : tensor<4x8xf32>
  %z = tg.neg %y : tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
)mlir";

namespace {
/// dn.swish's reverse-mode rule, written with tg ops: y = x * s(x), so
/// dy/dx = s + y * (1 - s).
struct SwishGradient
    : amp::GradientOpInterface::ExternalModel<SwishGradient, dn::SwishOp> {
  llvm::LogicalResult emitGradient(mlir::Operation *op,
                                   amp::GradientBuilder &g) const {
    namespace tg = amp::tg;
    auto swish = mlir::cast<dn::SwishOp>(op);
    mlir::OpBuilder &b = g.builder();
    mlir::Location loc = g.getLoc();
    mlir::Value x = swish.getX(), y = swish.getY();
    mlir::Value s = tg::SigmoidOp::create(b, loc, x);
    mlir::Value oneMinusS =
        tg::SubOp::create(b, loc, g.scalar(x.getType(), 1.0), s);
    mlir::Value d =
        tg::AddOp::create(b, loc, s, tg::MulOp::create(b, loc, y, oneMinusS));
    g.accumulate(x, tg::MulOp::create(b, loc, g.adjoint(y), d));
    return mlir::success();
  }
};

/// Runs `pass` on `text` with the dn.swish model `Model` attached or not:
/// with it, prints the result; without it, the pass must fail, and the
/// diagnostic is printed after `refusal`.
template <typename Model>
int runWithAndWithout(const char *text, std::unique_ptr<mlir::Pass> pass,
                      bool withModel, llvm::StringRef refusal) {
  mlir::DialectRegistry registry;
  amp::registerAllDialects(registry);
  registry.insert<mlir::func::FuncDialect, dn::DNDialect>();
  if (withModel)
    registry.addExtension(+[](mlir::MLIRContext *ctx, dn::DNDialect *) {
      dn::SwishOp::attachInterface<Model>(*ctx);
    });
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 1;
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
    diagnostic = d.str();
    return mlir::success();
  });
  mlir::PassManager pm(&context);
  pm.addPass(std::move(pass));
  if (mlir::failed(pm.run(*module))) {
    if (withModel)
      return 1;
    llvm::outs() << refusal << ": " << diagnostic << "\n";
    return 0;
  }
  if (!withModel)
    return 1; // the pass must refuse an op it has no model for
  module->print(llvm::outs());
  return 0;
}

/// dn.swish is the runtime's silu (x * sigmoid(x)): naming that step is
/// its whole lowering, and lets it run in elementwise chains with tg ops
/// and as a product's epilogue. An op with no such runtime function calls
/// its own C function instead, by AMPRT_ENTRY or by name and function type,
/// through RuntimeLoweringBuilder::callChecked.
struct SwishLowering
    : amp::RuntimeLoweringOpInterface::ExternalModel<SwishLowering,
                                                     dn::SwishOp> {
  std::optional<amp::ElementwiseStep>
  getElementwiseStep(mlir::Operation *op) const {
    return amp::ElementwiseStep{AMPRT_CHAIN_SILU};
  }
  llvm::LogicalResult lowerToRuntime(mlir::Operation *op,
                                     amp::RuntimeLoweringBuilder &rt) const {
    return amp::lowerElementwiseStep(rt, op, *getElementwiseStep(op));
  }
};

} // namespace

int main() {
  mlir::DialectRegistry registry;
  amp::registerAllPrecisionModelsAndDialects(registry);
  registry.insert<mlir::func::FuncDialect, dn::DNDialect>();
  // The downstream compiler gives an op a class without touching it.
  registry.addExtension(+[](mlir::MLIRContext *ctx, dn::DNDialect *) {
    amp::attachClassModels<amp::PrecisionClass::Infer, dn::SwishOp>(ctx);
  });
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(amp::createAutoMixedPrecisionPass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  for (bool withModel : {true, false})
    if (runWithAndWithout<SwishGradient>(kTrain, amp::createTGAutodiffPass(),
                                         withModel,
                                         "without a gradient model"))
      return 1;
  for (bool withModel : {true, false})
    if (runWithAndWithout<SwishLowering>(kRun, amp::createLowerToRuntimePass(),
                                         withModel,
                                         "without a runtime lowering"))
      return 1;
  return 0;
}
