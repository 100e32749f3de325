//===- FusedToRuntime.cpp - How the amprt ops run -------------------------===//
//
// Each amprt op is one call of the runtime entry it is named after,
// attached as its RuntimeLoweringOpInterface. An amprt.cast_on_read makes
// no call: --amp-lower-to-runtime gives its result its input's tensor.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace amp;

namespace {

LogicalResult lower(RuntimeLoweringBuilder &rt, rt::ViewOp view) {
  auto type = cast<RankedTensorType>(view.getType());
  rt.setHandle(view.getY(), rt.call(AMPRT_ENTRY(amprt_tensor_view),
                                    {rt.context(), rt.handle(view.getX()),
                                     rt.constI32(type.getRank()),
                                     rt.i64Array(type.getShape())}));
  return success();
}

LogicalResult lower(RuntimeLoweringBuilder &rt, rt::StridedBatchMatmulOp op) {
  Value c = rt.newTensor(op.getType());
  rt.setHandle(op.getC(), c);
  int64_t rank = ((int64_t)op.getCView().size() - 1) / 2;
  // Built in argument order, so the IR does not depend on the compiler's
  // order of evaluating call arguments.
  Value ctx = rt.context(), rankValue = rt.constI32(rank);
  Value a = rt.handle(op.getA()), aView = rt.i64Array(op.getAView());
  Value b = rt.handle(op.getB()), bView = rt.i64Array(op.getBView());
  Value cView = rt.i64Array(op.getCView());
  rt.callChecked(AMPRT_ENTRY(amprt_batch_matmul_strided),
                 {ctx, rankValue, a, aView, b, bView, c, cView});
  return success();
}

/// The views' rank: each is {offset, shape[rank], strides[rank]}.
int64_t viewRank(ArrayRef<int64_t> view) {
  return ((int64_t)view.size() - 1) / 2;
}

/// The arguments both attention entries start with: the context, the
/// rank, the causal flag, the scores' scale, then q, k and v each with
/// its view.
struct AttentionArgs {
  Value ctx, rank, causal, scale, q, qView, k, kView, v, vView;
};

/// Built in argument order (a braced list is evaluated left to right).
template <typename OpT>
AttentionArgs attentionArgs(RuntimeLoweringBuilder &rt, OpT op) {
  return {rt.context(),
          rt.constI32(viewRank(op.getQView())),
          rt.constI32(op.getCausal()),
          rt.constF64(op.getScale().convertToDouble()),
          rt.handle(op.getQ()),
          rt.i64Array(op.getQView()),
          rt.handle(op.getK()),
          rt.i64Array(op.getKView()),
          rt.handle(op.getV()),
          rt.i64Array(op.getVView())};
}

LogicalResult lower(RuntimeLoweringBuilder &rt, rt::AttentionOp op) {
  Value o = rt.newTensor(op.getType());
  rt.setHandle(op.getO(), o);
  AttentionArgs a = attentionArgs(rt, op);
  Value oView = rt.i64Array(op.getOView());
  rt.callChecked(AMPRT_ENTRY(amprt_attention),
                 {a.ctx, a.rank, a.causal, a.scale, a.q, a.qView, a.k, a.kView,
                  a.v, a.vView, o, oView});
  return success();
}

LogicalResult lower(RuntimeLoweringBuilder &rt, rt::AttentionGradOp op) {
  SmallVector<Value> g = rt.newResults(op);
  AttentionArgs a = attentionArgs(rt, op);
  Value gradO = rt.handle(op.getGradO());
  Value gradOView = rt.i64Array(op.getGradOView());
  Value dqView = rt.i64Array(op.getGradQView());
  Value dkView = rt.i64Array(op.getGradKView());
  Value dvView = rt.i64Array(op.getGradVView());
  rt.callChecked(AMPRT_ENTRY(amprt_attention_grad),
                 {a.ctx, a.rank, a.causal, a.scale, a.q, a.qView, a.k, a.kView,
                  a.v, a.vView, gradO, gradOView, g[0], dqView, g[1], dkView,
                  g[2], dvView});
  return success();
}

LogicalResult lower(RuntimeLoweringBuilder &rt, rt::UnscaleAllFiniteOp op) {
  SmallVector<Value> grads =
      llvm::map_to_vector(op.getGs(), [&](Value g) { return rt.handle(g); });
  SmallVector<Value> results = rt.newResults(op);
  Value finite = results.pop_back_val();
  rt.callChecked(AMPRT_ENTRY(amprt_unscale_all_finite),
                 {rt.context(), rt.ptrArray(grads), rt.constI32(grads.size()),
                  rt.handle(op.getScale()), rt.ptrArray(results), finite});
  return success();
}

/// A matmul's or convolution's epilogue entry: `_bias` without an
/// activation, `_bias_act` (a null bias allowed) with one.
LogicalResult lower(RuntimeLoweringBuilder &rt, rt::ProductEpilogueOp op) {
  Value ctx = rt.context();
  auto outer = [&](Value inner) { return rt.handle(op.outer(inner)); };
  Value y = rt.newTensor(op.getResult(0).getType());
  rt.setHandle(op.getResult(0), y);
  auto biasAdd = cast_or_null<tg::BiasAddOp>(op.getBiasAdd());
  Value bias = biasAdd ? outer(biasAdd.getB()) : Value();
  auto matmul = dyn_cast<tg::MatmulOp>(op.getProduct());
  auto conv = dyn_cast<tg::Conv2DOp>(op.getProduct());
  auto convArgs = [&] {
    return std::array<Value, 4>{rt.i64Array(conv.getStrides()),
                                rt.i64Array(conv.getPadding()),
                                rt.i64Array(conv.getDilations()),
                                rt.constI32(abi::layoutCode(conv.getLayout()))};
  };
  Operation *activation = op.getActivation();
  if (!activation) {
    if (matmul) {
      rt.callChecked(AMPRT_ENTRY(amprt_matmul_bias),
                     {ctx, outer(matmul.getA()), outer(matmul.getB()),
                      rt.constI32(matmul.getTransposeA()),
                      rt.constI32(matmul.getTransposeB()), bias, y});
      return success();
    }
    Value x = outer(conv.getX()), w = outer(conv.getW());
    auto [strides, padding, dilations, layout] = convArgs();
    rt.callChecked(AMPRT_ENTRY(amprt_conv2d_bias),
                   {ctx, x, w, bias, strides, padding, dilations, layout, y});
    return success();
  }
  if (!bias)
    bias = rt.nullPointer();
  Value pre;
  if (op.getNumResults() == 2) {
    pre = rt.newTensor(op.getResult(1).getType());
    rt.setHandle(op.getResult(1), pre);
  } else {
    pre = rt.nullPointer();
  }
  ElementwiseStep code = *rt::epilogueActivationOf(activation);
  Value act = rt.constI32(code.code), alpha = rt.constF64(code.alpha);
  if (matmul) {
    rt.callChecked(AMPRT_ENTRY(amprt_matmul_bias_act),
                   {ctx, outer(matmul.getA()), outer(matmul.getB()),
                    rt.constI32(matmul.getTransposeA()),
                    rt.constI32(matmul.getTransposeB()), bias, act, alpha, pre,
                    y});
    return success();
  }
  Value x = outer(conv.getX()), w = outer(conv.getW());
  auto [strides, padding, dilations, layout] = convArgs();
  rt.callChecked(AMPRT_ENTRY(amprt_conv2d_bias_act),
                 {ctx, x, w, bias, strides, padding, dilations, layout, act,
                  alpha, pre, y});
  return success();
}

/// The chain's program: per step its code and the indices of its operands
/// among the inputs and then the steps' results.
LogicalResult lower(RuntimeLoweringBuilder &rt, rt::ElementwiseChainOp op) {
  Block &body = op.getBody().front();
  llvm::DenseMap<Value, int64_t> index;
  for (BlockArgument arg : body.getArguments())
    index[arg] = arg.getArgNumber();
  SmallVector<int64_t> program;
  SmallVector<double> alphas;
  for (Operation &step : body.without_terminator()) {
    ElementwiseStep code = *rt::chainStepOf(&step);
    int64_t a = index.lookup(step.getOperand(0));
    int64_t b =
        step.getNumOperands() > 1 ? index.lookup(step.getOperand(1)) : a;
    program.append({code.code, a, b});
    alphas.push_back(code.alpha);
    index[step.getResult(0)] = body.getNumArguments() + alphas.size() - 1;
  }
  SmallVector<Value> inputs = llvm::map_to_vector(
      op.getInputs(), [&](Value v) { return rt.handle(v); });
  // Built in argument order, so the IR does not depend on the compiler's
  // order of evaluating call arguments.
  Value inputArray = rt.ptrArray(inputs);
  Value numInputs = rt.constI32(inputs.size());
  Value programArray = rt.i64Array(program);
  Value alphaArray = rt.f64Array(alphas);
  Value numSteps = rt.constI32(alphas.size());
  Value y = rt.resultOver(op.getResult(), op.getInputs());
  rt.callChecked(AMPRT_ENTRY(amprt_elementwise_chain),
                 {rt.context(), inputArray, numInputs, programArray, alphaArray,
                  numSteps, y});
  return success();
}

template <typename OpT>
struct FusedModel
    : RuntimeLoweringOpInterface::ExternalModel<FusedModel<OpT>, OpT> {
  LogicalResult lowerToRuntime(Operation *op,
                               RuntimeLoweringBuilder &lowering) const {
    return lower(lowering, cast<OpT>(op));
  }
};

} // namespace

void amp::registerFusedOpLowerings(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, rt::AMPRTDialect *) {
    rt::ViewOp::attachInterface<FusedModel<rt::ViewOp>>(*context);
    rt::UnscaleAllFiniteOp::attachInterface<FusedModel<rt::UnscaleAllFiniteOp>>(
        *context);
    rt::ProductEpilogueOp::attachInterface<FusedModel<rt::ProductEpilogueOp>>(
        *context);
    rt::StridedBatchMatmulOp::attachInterface<
        FusedModel<rt::StridedBatchMatmulOp>>(*context);
    rt::ElementwiseChainOp::attachInterface<FusedModel<rt::ElementwiseChainOp>>(
        *context);
    rt::AttentionOp::attachInterface<FusedModel<rt::AttentionOp>>(*context);
    rt::AttentionGradOp::attachInterface<FusedModel<rt::AttentionGradOp>>(
        *context);
  });
}
