//===- TGToRuntime.cpp - How the tg and amp ops run on amprt --------------===//
//
// One lowering per op, attached as its RuntimeLoweringOpInterface: the op's
// results become new runtime tensors and its amprt_ entry is called with its
// operands' handles and its attributes. Every op of the two dialects that
// has a `lower` overload here gets the interface (the op lists come from
// ODS), so a new op needs its overload and nothing else in this file.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/AttachModels.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;
namespace tg = amp::tg;
namespace abi = amp::abi;

namespace amp {
namespace {

/// tg's elementwise ops: the runtime function each computes, as its
/// amprt_elementwise_chain step, one per line of the runtime's op lists
/// (tg::<Kind>Op computes amprt_<name>, chain code AMPRT_CHAIN_<CODE>). The
/// op's lowering (lowerElementwiseStep), its place in elementwise chains
/// and, for an activation, in a product's epilogue all follow from it.
#define AMPRT_UNARY(name, Kind, CODE)                                          \
  ElementwiseStep stepOf(tg::Kind##Op) { return {AMPRT_CHAIN_##CODE}; }
#define AMPRT_UNARY_ALPHA(name, Kind, CODE)                                    \
  ElementwiseStep stepOf(tg::Kind##Op o) {                                     \
    return {AMPRT_CHAIN_##CODE, o.getAlpha().convertToDouble()};               \
  }
#include "amprt/amprt_unary.def"
#define AMPRT_BINARY(name, Kind, CODE)                                         \
  ElementwiseStep stepOf(tg::Kind##Op) { return {AMPRT_CHAIN_##CODE}; }
#include "amprt/amprt_binary.def"

/// Whether OpT is one of them.
template <typename OpT, typename = void>
struct HasStep : std::false_type {};
template <typename OpT>
struct HasStep<OpT, std::void_t<decltype(stepOf(std::declval<OpT>()))>>
    : std::true_type {};

/// The lowerings, one overload of `lower` per op, with short names for what
/// they use of the builder.
class Lowerings {
public:
  explicit Lowerings(RuntimeLoweringBuilder &lowering)
      : lowering(lowering), ctx(lowering.context()) {}

  template <typename OpT,
            typename = std::enable_if_t<HasStep<OpT>::value>>
  LogicalResult lower(OpT o) {
    return lowerElementwiseStep(lowering, o, stepOf(o));
  }

  LogicalResult lower(tg::IsFiniteOp o) {
    return unary(o, AMPRT_ENTRY(amprt_is_finite));
  }
  LogicalResult lower(tg::ReluGradOp o) {
    return mapBinary(o, AMPRT_ENTRY(amprt_relu_grad));
  }
  LogicalResult lower(tg::GeluGradOp o) {
    return mapBinary(o, AMPRT_ENTRY(amprt_gelu_grad));
  }
  LogicalResult lower(tg::TanhGradOp o) {
    return mapBinary(o, AMPRT_ENTRY(amprt_tanh_grad));
  }
  LogicalResult lower(tg::SigmoidGradOp o) {
    return mapBinary(o, AMPRT_ENTRY(amprt_sigmoid_grad));
  }
  LogicalResult lower(tg::LeakyReluGradOp o) {
    Value out = lowering.elementwiseResult(o);
    callChecked(AMPRT_ENTRY(amprt_leaky_relu_grad),
                {ctx, h(o.getDy()), h(o.getX()),
                 constF64(o.getAlpha().convertToDouble()), out});
    return success();
  }
  LogicalResult lower(tg::CompareOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_compare),
                {ctx, constI32(abi::predicateCode(o.getPredicate())),
                 h(o.getA()), h(o.getB()), out[0]});
    return success();
  }
  LogicalResult lower(tg::SelectOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    // The loss-scaling guard picks a whole update or the old state; the
    // update dies here, so its storage moves into the result.
    bool aDies = lowering.diesHere(o.getA()),
         bDies = lowering.diesHere(o.getB());
    if (aDies || bDies) {
      Value aFlag = constI32(aDies), bFlag = constI32(bDies);
      callChecked(AMPRT_ENTRY(amprt_select_moving),
                  {ctx, h(o.getCond()), h(o.getA()), h(o.getB()), out[0], aFlag,
                   bFlag});
    } else {
      callChecked(AMPRT_ENTRY(amprt_select),
                  {ctx, h(o.getCond()), h(o.getA()), h(o.getB()), out[0]});
    }
    return success();
  }
  template <typename OpT> LogicalResult lowerContraction(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::MatmulOp>(op) ? AMPRT_ENTRY(amprt_matmul)
                                       : AMPRT_ENTRY(amprt_batch_matmul);
    callChecked(entry,
                {ctx, h(o.getA()), h(o.getB()), constI32(o.getTransposeA()),
                 constI32(o.getTransposeB()), out[0]});
    return success();
  }
  LogicalResult lower(tg::MatmulOp o) { return lowerContraction(o); }
  LogicalResult lower(tg::BatchMatmulOp o) { return lowerContraction(o); }
  template <typename OpT> LogicalResult lowerConvolution(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::Conv2DOp>(op) ? AMPRT_ENTRY(amprt_conv2d)
                 : isa<tg::Conv2DBackwardInputOp>(op)
                     ? AMPRT_ENTRY(amprt_conv2d_backward_input)
                     : AMPRT_ENTRY(amprt_conv2d_backward_filter);
    callChecked(entry, {ctx, h(op->getOperand(0)), h(op->getOperand(1)),
                        i64Array(o.getStrides()), i64Array(o.getPadding()),
                        i64Array(o.getDilations()),
                        constI32(abi::layoutCode(o.getLayout())), out[0]});
    return success();
  }
  LogicalResult lower(tg::Conv2DOp o) { return lowerConvolution(o); }
  LogicalResult lower(tg::Conv2DBackwardInputOp o) {
    return lowerConvolution(o);
  }
  LogicalResult lower(tg::Conv2DBackwardFilterOp o) {
    return lowerConvolution(o);
  }
  LogicalResult lower(tg::BiasAddOp o) {
    Value out = lowering.elementwiseResult(o);
    callChecked(AMPRT_ENTRY(amprt_bias_add),
                {ctx, h(o.getX()), h(o.getB()),
                 constI32(abi::layoutCode(o.getLayout())), out});
    return success();
  }
  LogicalResult lower(tg::BiasAddGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(
        AMPRT_ENTRY(amprt_bias_add_grad),
        {ctx, h(o.getDy()), constI32(abi::layoutCode(o.getLayout())), out[0]});
    return success();
  }
  template <typename OpT> LogicalResult lowerPool(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::MaxPool2DOp>(op) ? AMPRT_ENTRY(amprt_max_pool2d)
                                          : AMPRT_ENTRY(amprt_avg_pool2d);
    callChecked(entry, {ctx, h(o.getX()), i64Array(o.getWindow()),
                        i64Array(o.getStrides()), i64Array(o.getPadding()),
                        constI32(abi::layoutCode(o.getLayout())), out[0]});
    return success();
  }
  LogicalResult lower(tg::MaxPool2DOp o) { return lowerPool(o); }
  LogicalResult lower(tg::AvgPool2DOp o) { return lowerPool(o); }
  LogicalResult lower(tg::MaxPool2DGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_max_pool2d_grad),
                {ctx, h(o.getDy()), h(o.getX()), h(o.getY()),
                 i64Array(o.getWindow()), i64Array(o.getStrides()),
                 i64Array(o.getPadding()),
                 constI32(abi::layoutCode(o.getLayout())), out[0]});
    return success();
  }
  LogicalResult lower(tg::AvgPool2DGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_avg_pool2d_grad),
                {ctx, h(o.getDy()), i64Array(o.getWindow()),
                 i64Array(o.getStrides()), i64Array(o.getPadding()),
                 constI32(abi::layoutCode(o.getLayout())), out[0]});
    return success();
  }
  LogicalResult lower(tg::BatchNormOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_batch_norm),
                {ctx, h(o.getX()), h(o.getScale()), h(o.getOffset()),
                 constF64(o.getEpsilon().convertToDouble()),
                 constI32(abi::layoutCode(o.getLayout())), out[0], out[1],
                 out[2]});
    return success();
  }
  LogicalResult lower(tg::BatchNormGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_batch_norm_grad),
                {ctx, h(o.getDy()), h(o.getX()), h(o.getScale()),
                 h(o.getMean()), h(o.getInvStd()),
                 constI32(abi::layoutCode(o.getLayout())), out[0], out[1],
                 out[2]});
    return success();
  }
  LogicalResult lower(tg::LayerNormOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_layer_norm),
                {ctx, h(o.getX()), h(o.getGamma()), h(o.getBeta()),
                 constF64(o.getEpsilon().convertToDouble()), out[0], out[1],
                 out[2]});
    return success();
  }
  LogicalResult lower(tg::LayerNormGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_layer_norm_grad),
                {ctx, h(o.getDy()), h(o.getX()), h(o.getGamma()),
                 h(o.getMean()), h(o.getInvStd()), out[0], out[1], out[2]});
    return success();
  }
  template <typename OpT> LogicalResult lowerSoftmax(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::SoftmaxOp>(op) ? AMPRT_ENTRY(amprt_softmax)
                                        : AMPRT_ENTRY(amprt_log_softmax);
    callChecked(entry, {ctx, h(o.getX()), constI64(o.getAxis()), out[0]});
    return success();
  }
  LogicalResult lower(tg::SoftmaxOp o) {
    if (!o.getCausal())
      return lowerSoftmax(o);
    SmallVector<Value> out = newResults(o);
    callChecked(AMPRT_ENTRY(amprt_causal_softmax), {ctx, h(o.getX()), out[0]});
    return success();
  }
  LogicalResult lower(tg::LogSoftmaxOp o) { return lowerSoftmax(o); }
  template <typename OpT> LogicalResult lowerSoftmaxGrad(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::SoftmaxGradOp>(op)
                     ? AMPRT_ENTRY(amprt_softmax_grad)
                     : AMPRT_ENTRY(amprt_log_softmax_grad);
    callChecked(
        entry, {ctx, h(o.getDy()), h(o.getY()), constI64(o.getAxis()), out[0]});
    return success();
  }
  LogicalResult lower(tg::SoftmaxGradOp o) { return lowerSoftmaxGrad(o); }
  LogicalResult lower(tg::LogSoftmaxGradOp o) { return lowerSoftmaxGrad(o); }
  LogicalResult lower(tg::SoftmaxCrossEntropyOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_softmax_cross_entropy),
                {ctx, h(o.getLogits()), h(o.getLabels()), out[0]});
    return success();
  }
  LogicalResult lower(tg::SoftmaxCrossEntropyGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(
        AMPRT_ENTRY(amprt_softmax_cross_entropy_grad),
        {ctx, h(o.getDloss()), h(o.getLogits()), h(o.getLabels()), out[0]});
    return success();
  }
  template <typename OpT> LogicalResult lowerReduction(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::ReduceSumOp>(op)    ? AMPRT_ENTRY(amprt_reduce_sum)
                 : isa<tg::ReduceMeanOp>(op) ? AMPRT_ENTRY(amprt_reduce_mean)
                                             : AMPRT_ENTRY(amprt_reduce_max);
    callChecked(entry, {ctx, h(o.getX()), i64Array(o.getDims()),
                        constI32(o.getDims().size()), out[0]});
    return success();
  }
  LogicalResult lower(tg::ReduceSumOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReduceMeanOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReduceMaxOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReshapeOp o) {
    // The input usually dies here (a matmul's 2-D view of an activation or
    // its gradient): the result then takes its storage instead of a copy.
    if (lowering.diesHere(o.getX()))
      return unary(o, AMPRT_ENTRY(amprt_reshape_moving));
    return unary(o, AMPRT_ENTRY(amprt_reshape));
  }
  LogicalResult lower(tg::BroadcastToOp o) {
    return unary(o, AMPRT_ENTRY(amprt_broadcast_to));
  }
  LogicalResult lower(tg::TransposeOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_transpose),
                {ctx, h(o.getX()), i64Array(o.getPerm()), out[0]});
    return success();
  }
  LogicalResult lower(tg::ConcatOp o) {
    Operation *op = o;
    SmallVector<Value> ins = handles(o.getXs());
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_concat),
                {ctx, ptrArray(ins), constI32(ins.size()),
                 constI64(o.getAxis()), out[0]});
    return success();
  }
  LogicalResult lower(tg::SliceOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    SmallVector<int64_t> strides(o.getOffsets().size(), 1);
    if (o.getStrides())
      strides.assign(o.getStrides()->begin(), o.getStrides()->end());
    callChecked(AMPRT_ENTRY(amprt_slice),
                {ctx, h(o.getX()), i64Array(o.getOffsets()), i64Array(strides),
                 out[0]});
    return success();
  }
  LogicalResult lower(tg::PadOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_pad),
                {ctx, h(o.getX()), i64Array(o.getLow()), i64Array(o.getHigh()),
                 constF64(o.getValue().convertToDouble()), out[0]});
    return success();
  }
  LogicalResult lower(tg::GatherOp o) {
    return binary(o, AMPRT_ENTRY(amprt_gather));
  }
  LogicalResult lower(tg::GatherGradOp o) {
    return binary(o, AMPRT_ENTRY(amprt_gather_grad));
  }
  LogicalResult lower(tg::GradSeedOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_grad_seed), {ctx, out[0]});
    return success();
  }
  LogicalResult lower(tg::SgdUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_sgd_update),
                {ctx, h(o.getParam()), h(o.getGrad()), h(o.getLr()), out[0]});
    return success();
  }
  LogicalResult lower(tg::MomentumUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_momentum_update),
                {ctx, h(o.getParam()), h(o.getGrad()), h(o.getVelocity()),
                 h(o.getLr()), constF64(o.getMomentum().convertToDouble()),
                 constF64(o.getWeightDecay().convertToDouble()),
                 constI32(o.getNesterov()), out[0], out[1]});
    return success();
  }
  LogicalResult lower(tg::AdamUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_adam_update),
                {ctx, h(o.getParam()), h(o.getGrad()), h(o.getM()), h(o.getV()),
                 h(o.getStep()), h(o.getLr()),
                 constF64(o.getBeta1().convertToDouble()),
                 constF64(o.getBeta2().convertToDouble()),
                 constF64(o.getEpsilon().convertToDouble()),
                 constF64(o.getWeightDecay().convertToDouble()), out[0], out[1],
                 out[2]});
    return success();
  }
  LogicalResult lower(tg::ClipByGlobalNormOp o) {
    Operation *op = o;
    SmallVector<Value> ins = handles(o.getGrads());
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_clip_by_global_norm),
                {ctx, ptrArray(ins), constI32(ins.size()),
                 constF64(o.getMaxNorm().convertToDouble()), ptrArray(out)});
    return success();
  }
  LogicalResult lower(tg::AllReduceOp o) {
    Operation *op = o;
    SmallVector<Value> ins = handles(o.getXs());
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_all_reduce),
                {ctx, h(o.getComm()), ptrArray(ins), constI32(ins.size()),
                 constI32(abi::reductionCode(o.getReduction())),
                 ptrArray(out)});
    return success();
  }
  LogicalResult lower(amp::CastOp o) {
    return unary(o, AMPRT_ENTRY(amprt_cast));
  }
  LogicalResult lower(amp::ScaleOp o) {
    return binary(o, AMPRT_ENTRY(amprt_scale));
  }
  LogicalResult lower(amp::UnscaleOp o) {
    return binary(o, AMPRT_ENTRY(amprt_unscale));
  }
  LogicalResult lower(amp::AllFiniteOp o) {
    Operation *op = o;
    SmallVector<Value> ins = handles(o.getGs());
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_all_finite),
                {ctx, ptrArray(ins), constI32(ins.size()), out[0]});
    return success();
  }
  LogicalResult lower(amp::NumericErrorOp o) {
    static_assert(amp::NumericErrorOp::kNumStats == AMPRT_NUMERIC_STATS,
                  "amp.numeric_error's result holds amprt's statistics");
    return binary(o, AMPRT_ENTRY(amprt_numeric_error));
  }
  LogicalResult lower(amp::QuantizeOp o) {
    return binary(o, AMPRT_ENTRY(amprt_quantize));
  }
  LogicalResult lower(amp::DequantizeOp o) {
    return binary(o, AMPRT_ENTRY(amprt_dequantize));
  }
  LogicalResult lower(amp::AmaxOp o) {
    return unary(o, AMPRT_ENTRY(amprt_amax));
  }
  LogicalResult lower(amp::Fp8ScaleOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    // The verifier admits FP8 formats only, each of which has a code.
    callChecked(AMPRT_ENTRY(amprt_fp8_scale),
                {ctx, h(o.getHistory()),
                 constI32(*runtimeDtypeCode(o.getFormat())),
                 constI64(o.getMargin()), out[0]});
    return success();
  }
  LogicalResult lower(amp::ScaledMatmulOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_scaled_matmul),
                {ctx, h(o.getA()), h(o.getScaleA()), h(o.getB()),
                 h(o.getScaleB()), constI32(o.getTransposeA()),
                 constI32(o.getTransposeB()), out[0]});
    return success();
  }
  LogicalResult lower(amp::RecordAmaxOp o) {
    return binary(o, AMPRT_ENTRY(amprt_record_amax));
  }
  LogicalResult lower(amp::UpdateScaleOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_update_scale),
                {ctx, h(o.getScale()), h(o.getGoodSteps()), h(o.getFinite()),
                 constF64(o.getGrowthFactor().convertToDouble()),
                 constF64(o.getBackoffFactor().convertToDouble()),
                 constI64(o.getGrowthInterval()),
                 constF64(o.getMinScale().convertToDouble()),
                 constF64(o.getMaxScale().convertToDouble()), out[0], out[1]});
    return success();
  }

private:
  /// The common shapes: y = f(x) and c = f(a, b), one result.
  template <typename Fn>
  LogicalResult unary(Operation *op, abi::Entry<Fn> entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry, {ctx, h(op->getOperand(0)), out[0]});
    return success();
  }
  template <typename Fn>
  LogicalResult binary(Operation *op, abi::Entry<Fn> entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry,
                {ctx, h(op->getOperand(0)), h(op->getOperand(1)), out[0]});
    return success();
  }
  /// The same for elementwise maps, whose result may take the storage of
  /// an operand that dies here (RuntimeLoweringBuilder::elementwiseResult).
  template <typename Fn>
  LogicalResult mapBinary(Operation *op, abi::Entry<Fn> entry) {
    Value out = lowering.elementwiseResult(op);
    callChecked(entry, {ctx, h(op->getOperand(0)), h(op->getOperand(1)), out});
    return success();
  }
  template <typename Fn, size_t N>
  void callChecked(abi::Entry<Fn> entry, const Value (&args)[N]) {
    lowering.callChecked(entry, args);
  }
  SmallVector<Value> newResults(Operation *op) {
    return lowering.newResults(op);
  }
  Value h(Value v) { return lowering.handle(v); }
  SmallVector<Value> handles(ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return h(v); });
  }
  Value constI32(int64_t v) { return lowering.constI32(v); }
  Value constI64(int64_t v) { return lowering.constI64(v); }
  Value constF64(double v) { return lowering.constF64(v); }
  Value i64Array(ArrayRef<int64_t> values) { return lowering.i64Array(values); }
  Value ptrArray(ValueRange values) { return lowering.ptrArray(values); }

  RuntimeLoweringBuilder &lowering;
  Value ctx;
};

/// Whether Lowerings has an overload for OpT.
template <typename OpT, typename = void>
struct HasLowering : std::false_type {};
template <typename OpT>
struct HasLowering<OpT, std::void_t<decltype(std::declval<Lowerings &>().lower(
                            std::declval<OpT>()))>> : std::true_type {};

template <typename OpT>
struct LoweringModel
    : RuntimeLoweringOpInterface::ExternalModel<LoweringModel<OpT>, OpT> {
  LogicalResult lowerToRuntime(Operation *op,
                               RuntimeLoweringBuilder &lowering) const {
    return Lowerings(lowering).lower(cast<OpT>(op));
  }
  std::optional<ElementwiseStep> getElementwiseStep(Operation *op) const {
    if constexpr (HasStep<OpT>::value)
      return stepOf(cast<OpT>(op));
    return std::nullopt;
  }
};

} // namespace

void registerTGToRuntimeLowerings(DialectRegistry &registry) {
  attachModelsToTGAndAMPOps<LoweringModel, HasLowering>(registry);
  registerFusedOpLowerings(registry);
}

} // namespace amp
