//===- LowerToRuntime.cpp - tg/amp ops to amprt C API calls ---------------===//
//
// Straight-line training steps become straight-line runtime calls: each op
// allocates its results (amprt_tensor_new), calls its amprt_ entry, and
// records the status on the context, which keeps the first failure; the
// step returns it at the end. Intermediates are released after their last
// use, so peak memory follows the live set, not the whole graph.
//
//===----------------------------------------------------------------------===//

#include "RuntimeABI.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/Passes.h"

namespace amp {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp

using namespace mlir;
namespace tg = amp::tg;
namespace abi = amp::abi;

std::optional<int32_t> amp::runtimeDtypeCode(Type element) {
  if (element.isF32())
    return AMPRT_F32;
  if (element.isF16())
    return AMPRT_F16;
  if (element.isBF16())
    return AMPRT_BF16;
  if (element.isF64())
    return AMPRT_F64;
  if (element.isInteger(32))
    return AMPRT_I32;
  if (element.isInteger(64))
    return AMPRT_I64;
  if (element.isInteger(1))
    return AMPRT_I1;
  return std::nullopt;
}

namespace {

class FunctionLowering {
public:
  FunctionLowering(ModuleOp module, func::FuncOp func)
      : module(module), func(func), b(func.getContext()),
        ptr(LLVM::LLVMPointerType::get(func.getContext())), i32(b.getI32Type()),
        i64(b.getI64Type()), f64(b.getF64Type()) {}

  LogicalResult run();

private:
  // Declarations and constants.
  /// Declares the runtime entry `name` of C type `type` once per module.
  void declare(StringRef name, FunctionType type);
  /// Calls a runtime entry; the argument count is checked when this
  /// compiles, against amprt.h.
  template <typename Fn, typename... Args>
  Value call(abi::Entry<Fn> entry, Args... args) {
    static_assert(sizeof...(Args) == abi::Entry<Fn>::arity,
                  "argument count differs from the amprt.h declaration");
    FunctionType type = entry.type(b.getContext());
    declare(entry.name, type);
    auto op = func::CallOp::create(b, loc, entry.name, type.getResults(),
                                   ValueRange{Value(args)...});
    return op->getNumResults() ? op->getResult(0) : Value();
  }
  /// Calls an entry that returns a status and records it on the context.
  template <typename Fn, typename... Args>
  void callChecked(abi::Entry<Fn> entry, Args... args) {
    static_assert(std::is_same_v<typename abi::Entry<Fn>::Result, amprt_status>,
                  "callChecked is for entries that return amprt_status");
    call(AMPRT_ENTRY(amprt_record_status), ctx, call(entry, args...));
  }
  Value constI32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value constI64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value constF64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value i64Array(ArrayRef<int64_t> values);
  Value ptrArray(ValueRange handles);
  /// A new runtime tensor of `type` for a result.
  Value newTensor(Type type);

  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerConstant(arith::ConstantOp op);
  Value handle(Value v) { return handles.lookup(v); }
  /// Lowers `op` by the `lower` overload of the first of OpTs it is.
  template <typename OpT, typename... Rest>
  LogicalResult lowerOneOf(Operation *op) {
    if (auto o = dyn_cast<OpT>(op))
      return lower(o);
    if constexpr (sizeof...(Rest) > 0)
      return lowerOneOf<Rest...>(op);
    return op->emitError()
           << "amp-lower-to-runtime: '" << op->getName()
           << "' has no runtime lowering (tg-autodiff must run first; "
              "region ops are not supported)";
  }
  /// The common shapes: y = f(x) and c = f(a, b), one result.
  template <typename Fn>
  LogicalResult unary(Operation *op, abi::Entry<Fn> entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry, ctx, h(op->getOperand(0)), out[0]);
    return success();
  }
  template <typename Fn>
  LogicalResult binary(Operation *op, abi::Entry<Fn> entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry, ctx, h(op->getOperand(0)), h(op->getOperand(1)), out[0]);
    return success();
  }
  Value h(Value v) { return handle(v); }

  // One lowering per op: its results become new runtime tensors and its
  // amprt_ entry is called with its operands' handles and attributes.
  LogicalResult lower(arith::ConstantOp o) { return lowerConstant(o); }
  LogicalResult lower(tg::NegOp o) { return unary(o, AMPRT_ENTRY(amprt_neg)); }
  LogicalResult lower(tg::AbsOp o) { return unary(o, AMPRT_ENTRY(amprt_abs)); }
  LogicalResult lower(tg::ExpOp o) { return unary(o, AMPRT_ENTRY(amprt_exp)); }
  LogicalResult lower(tg::LogOp o) { return unary(o, AMPRT_ENTRY(amprt_log)); }
  LogicalResult lower(tg::SqrtOp o) {
    return unary(o, AMPRT_ENTRY(amprt_sqrt));
  }
  LogicalResult lower(tg::RsqrtOp o) {
    return unary(o, AMPRT_ENTRY(amprt_rsqrt));
  }
  LogicalResult lower(tg::SquareOp o) {
    return unary(o, AMPRT_ENTRY(amprt_square));
  }
  LogicalResult lower(tg::ReciprocalOp o) {
    return unary(o, AMPRT_ENTRY(amprt_reciprocal));
  }
  LogicalResult lower(tg::TanhOp o) {
    return unary(o, AMPRT_ENTRY(amprt_tanh));
  }
  LogicalResult lower(tg::SigmoidOp o) {
    return unary(o, AMPRT_ENTRY(amprt_sigmoid));
  }
  LogicalResult lower(tg::ReluOp o) {
    return unary(o, AMPRT_ENTRY(amprt_relu));
  }
  LogicalResult lower(tg::GeluOp o) {
    return unary(o, AMPRT_ENTRY(amprt_gelu));
  }
  LogicalResult lower(tg::SiluOp o) {
    return unary(o, AMPRT_ENTRY(amprt_silu));
  }
  LogicalResult lower(tg::ErfOp o) { return unary(o, AMPRT_ENTRY(amprt_erf)); }
  LogicalResult lower(tg::IsFiniteOp o) {
    return unary(o, AMPRT_ENTRY(amprt_is_finite));
  }
  LogicalResult lower(tg::LeakyReluOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_leaky_relu), ctx, h(o.getX()),
                constF64(o.getAlpha().convertToDouble()), out[0]);
    return success();
  }
  LogicalResult lower(tg::AddOp o) { return binary(o, AMPRT_ENTRY(amprt_add)); }
  LogicalResult lower(tg::SubOp o) { return binary(o, AMPRT_ENTRY(amprt_sub)); }
  LogicalResult lower(tg::MulOp o) { return binary(o, AMPRT_ENTRY(amprt_mul)); }
  LogicalResult lower(tg::DivOp o) { return binary(o, AMPRT_ENTRY(amprt_div)); }
  LogicalResult lower(tg::PowOp o) { return binary(o, AMPRT_ENTRY(amprt_pow)); }
  LogicalResult lower(tg::MaximumOp o) {
    return binary(o, AMPRT_ENTRY(amprt_maximum));
  }
  LogicalResult lower(tg::MinimumOp o) {
    return binary(o, AMPRT_ENTRY(amprt_minimum));
  }
  LogicalResult lower(tg::ReluGradOp o) {
    return binary(o, AMPRT_ENTRY(amprt_relu_grad));
  }
  LogicalResult lower(tg::GeluGradOp o) {
    return binary(o, AMPRT_ENTRY(amprt_gelu_grad));
  }
  LogicalResult lower(tg::TanhGradOp o) {
    return binary(o, AMPRT_ENTRY(amprt_tanh_grad));
  }
  LogicalResult lower(tg::SigmoidGradOp o) {
    return binary(o, AMPRT_ENTRY(amprt_sigmoid_grad));
  }
  LogicalResult lower(tg::LeakyReluGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_leaky_relu_grad), ctx, h(o.getDy()),
                h(o.getX()), constF64(o.getAlpha().convertToDouble()), out[0]);
    return success();
  }
  LogicalResult lower(tg::CompareOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_compare), ctx,
                constI32(abi::predicateCode(o.getPredicate())), h(o.getA()),
                h(o.getB()), out[0]);
    return success();
  }
  LogicalResult lower(tg::SelectOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_select), ctx, h(o.getCond()), h(o.getA()),
                h(o.getB()), out[0]);
    return success();
  }
  template <typename OpT> LogicalResult lowerContraction(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::MatmulOp>(op) ? AMPRT_ENTRY(amprt_matmul)
                                       : AMPRT_ENTRY(amprt_batch_matmul);
    callChecked(entry, ctx, h(o.getA()), h(o.getB()),
                constI32(o.getTransposeA()), constI32(o.getTransposeB()),
                out[0]);
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
    callChecked(entry, ctx, h(op->getOperand(0)), h(op->getOperand(1)),
                i64Array(o.getStrides()), i64Array(o.getPadding()),
                i64Array(o.getDilations()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
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
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_bias_add), ctx, h(o.getX()), h(o.getB()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
    return success();
  }
  LogicalResult lower(tg::BiasAddGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_bias_add_grad), ctx, h(o.getDy()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
    return success();
  }
  template <typename OpT> LogicalResult lowerPool(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::MaxPool2DOp>(op) ? AMPRT_ENTRY(amprt_max_pool2d)
                                          : AMPRT_ENTRY(amprt_avg_pool2d);
    callChecked(entry, ctx, h(o.getX()), i64Array(o.getWindow()),
                i64Array(o.getStrides()), i64Array(o.getPadding()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
    return success();
  }
  LogicalResult lower(tg::MaxPool2DOp o) { return lowerPool(o); }
  LogicalResult lower(tg::AvgPool2DOp o) { return lowerPool(o); }
  LogicalResult lower(tg::MaxPool2DGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_max_pool2d_grad), ctx, h(o.getDy()),
                h(o.getX()), h(o.getY()), i64Array(o.getWindow()),
                i64Array(o.getStrides()), i64Array(o.getPadding()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
    return success();
  }
  LogicalResult lower(tg::AvgPool2DGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_avg_pool2d_grad), ctx, h(o.getDy()),
                i64Array(o.getWindow()), i64Array(o.getStrides()),
                i64Array(o.getPadding()),
                constI32(abi::layoutCode(o.getLayout())), out[0]);
    return success();
  }
  LogicalResult lower(tg::BatchNormOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(
        AMPRT_ENTRY(amprt_batch_norm), ctx, h(o.getX()), h(o.getScale()),
        h(o.getOffset()), constF64(o.getEpsilon().convertToDouble()),
        constI32(abi::layoutCode(o.getLayout())), out[0], out[1], out[2]);
    return success();
  }
  LogicalResult lower(tg::BatchNormGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_batch_norm_grad), ctx, h(o.getDy()),
                h(o.getX()), h(o.getScale()), h(o.getMean()), h(o.getInvStd()),
                constI32(abi::layoutCode(o.getLayout())), out[0], out[1],
                out[2]);
    return success();
  }
  LogicalResult lower(tg::LayerNormOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_layer_norm), ctx, h(o.getX()),
                h(o.getGamma()), h(o.getBeta()),
                constF64(o.getEpsilon().convertToDouble()), out[0], out[1],
                out[2]);
    return success();
  }
  LogicalResult lower(tg::LayerNormGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_layer_norm_grad), ctx, h(o.getDy()),
                h(o.getX()), h(o.getGamma()), h(o.getMean()), h(o.getInvStd()),
                out[0], out[1], out[2]);
    return success();
  }
  template <typename OpT> LogicalResult lowerSoftmax(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::SoftmaxOp>(op) ? AMPRT_ENTRY(amprt_softmax)
                                        : AMPRT_ENTRY(amprt_log_softmax);
    callChecked(entry, ctx, h(o.getX()), constI64(o.getAxis()), out[0]);
    return success();
  }
  LogicalResult lower(tg::SoftmaxOp o) { return lowerSoftmax(o); }
  LogicalResult lower(tg::LogSoftmaxOp o) { return lowerSoftmax(o); }
  template <typename OpT> LogicalResult lowerSoftmaxGrad(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::SoftmaxGradOp>(op)
                     ? AMPRT_ENTRY(amprt_softmax_grad)
                     : AMPRT_ENTRY(amprt_log_softmax_grad);
    callChecked(entry, ctx, h(o.getDy()), h(o.getY()), constI64(o.getAxis()),
                out[0]);
    return success();
  }
  LogicalResult lower(tg::SoftmaxGradOp o) { return lowerSoftmaxGrad(o); }
  LogicalResult lower(tg::LogSoftmaxGradOp o) { return lowerSoftmaxGrad(o); }
  LogicalResult lower(tg::SoftmaxCrossEntropyOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_softmax_cross_entropy), ctx, h(o.getLogits()),
                h(o.getLabels()), out[0]);
    return success();
  }
  LogicalResult lower(tg::SoftmaxCrossEntropyGradOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_softmax_cross_entropy_grad), ctx,
                h(o.getDloss()), h(o.getLogits()), h(o.getLabels()), out[0]);
    return success();
  }
  template <typename OpT> LogicalResult lowerReduction(OpT o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    auto entry = isa<tg::ReduceSumOp>(op)    ? AMPRT_ENTRY(amprt_reduce_sum)
                 : isa<tg::ReduceMeanOp>(op) ? AMPRT_ENTRY(amprt_reduce_mean)
                                             : AMPRT_ENTRY(amprt_reduce_max);
    callChecked(entry, ctx, h(o.getX()), i64Array(o.getDims()),
                constI32(o.getDims().size()), out[0]);
    return success();
  }
  LogicalResult lower(tg::ReduceSumOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReduceMeanOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReduceMaxOp o) { return lowerReduction(o); }
  LogicalResult lower(tg::ReshapeOp o) {
    return unary(o, AMPRT_ENTRY(amprt_reshape));
  }
  LogicalResult lower(tg::BroadcastToOp o) {
    return unary(o, AMPRT_ENTRY(amprt_broadcast_to));
  }
  LogicalResult lower(tg::TransposeOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_transpose), ctx, h(o.getX()),
                i64Array(o.getPerm()), out[0]);
    return success();
  }
  LogicalResult lower(tg::ConcatOp o) {
    Operation *op = o;
    SmallVector<Value> ins;
    for (Value x : o.getXs())
      ins.push_back(h(x));
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_concat), ctx, ptrArray(ins),
                constI32(ins.size()), constI64(o.getAxis()), out[0]);
    return success();
  }
  LogicalResult lower(tg::SliceOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    SmallVector<int64_t> strides(o.getOffsets().size(), 1);
    if (o.getStrides())
      strides.assign(o.getStrides()->begin(), o.getStrides()->end());
    callChecked(AMPRT_ENTRY(amprt_slice), ctx, h(o.getX()),
                i64Array(o.getOffsets()), i64Array(strides), out[0]);
    return success();
  }
  LogicalResult lower(tg::PadOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_pad), ctx, h(o.getX()), i64Array(o.getLow()),
                i64Array(o.getHigh()), constF64(o.getValue().convertToDouble()),
                out[0]);
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
    callChecked(AMPRT_ENTRY(amprt_grad_seed), ctx, out[0]);
    return success();
  }
  LogicalResult lower(tg::SgdUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_sgd_update), ctx, h(o.getParam()),
                h(o.getGrad()), h(o.getLr()), out[0]);
    return success();
  }
  LogicalResult lower(tg::MomentumUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_momentum_update), ctx, h(o.getParam()),
                h(o.getGrad()), h(o.getVelocity()), h(o.getLr()),
                constF64(o.getMomentum().convertToDouble()),
                constI32(o.getNesterov()), out[0], out[1]);
    return success();
  }
  LogicalResult lower(tg::AdamUpdateOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_adam_update), ctx, h(o.getParam()),
                h(o.getGrad()), h(o.getM()), h(o.getV()), h(o.getStep()),
                h(o.getLr()), constF64(o.getBeta1().convertToDouble()),
                constF64(o.getBeta2().convertToDouble()),
                constF64(o.getEpsilon().convertToDouble()),
                constF64(o.getWeightDecay().convertToDouble()), out[0], out[1],
                out[2]);
    return success();
  }
  LogicalResult lower(tg::ClipByGlobalNormOp o) {
    Operation *op = o;
    SmallVector<Value> ins;
    for (Value g : o.getGrads())
      ins.push_back(h(g));
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_clip_by_global_norm), ctx, ptrArray(ins),
                constI32(ins.size()),
                constF64(o.getMaxNorm().convertToDouble()), ptrArray(out));
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
    SmallVector<Value> ins;
    for (Value g : o.getGs())
      ins.push_back(h(g));
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_all_finite), ctx, ptrArray(ins),
                constI32(ins.size()), out[0]);
    return success();
  }
  LogicalResult lower(amp::UpdateScaleOp o) {
    Operation *op = o;
    SmallVector<Value> out = newResults(op);
    callChecked(AMPRT_ENTRY(amprt_update_scale), ctx, h(o.getScale()),
                h(o.getGoodSteps()), h(o.getFinite()),
                constF64(o.getGrowthFactor().convertToDouble()),
                constF64(o.getBackoffFactor().convertToDouble()),
                constI64(o.getGrowthInterval()),
                constF64(o.getMinScale().convertToDouble()),
                constF64(o.getMaxScale().convertToDouble()), out[0], out[1]);
    return success();
  }

  SmallVector<Value> newResults(Operation *op) {
    SmallVector<Value> out;
    for (Value r : op->getResults()) {
      Value h = newTensor(r.getType());
      handles[r] = h;
      out.push_back(h);
    }
    return out;
  }

  ModuleOp module;
  func::FuncOp func;
  OpBuilder b;
  Type ptr, i32, i64, f64;
  Location loc = UnknownLoc::get(func.getContext());
  Value ctx;
  llvm::DenseMap<Value, Value> handles;
  unsigned globals = 0;
  std::string baseName;
};

void FunctionLowering::declare(StringRef name, FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
}

Value FunctionLowering::i64Array(ArrayRef<int64_t> values) {
  Value count = constI64(std::max<size_t>(values.size(), 1));
  Value array = LLVM::AllocaOp::create(b, loc, ptr, i64, count);
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, i64, array,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, constI64(v), slot);
  }
  return array;
}

Value FunctionLowering::ptrArray(ValueRange values) {
  Value count = constI64(std::max<size_t>(values.size(), 1));
  Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr, count);
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, array,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, v, slot);
  }
  return array;
}

Value FunctionLowering::newTensor(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  int32_t code = *amp::runtimeDtypeCode(tensor.getElementType());
  return call(AMPRT_ENTRY(amprt_tensor_new), ctx, constI32(code),
              constI32(tensor.getRank()), i64Array(tensor.getShape()));
}

LogicalResult FunctionLowering::lowerConstant(arith::ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!dense || !type)
    return op.emitError("amp-lower-to-runtime: only dense tensor constants "
                        "lower to the runtime");
  Value t = newTensor(type);
  handles[op.getResult()] = t;
  Type element = type.getElementType();
  if (dense.isSplat()) {
    double v = isa<FloatType>(element)
                   ? dense.getSplatValue<APFloat>().convertToDouble()
                   : (double)dense.getSplatValue<APInt>().getSExtValue();
    callChecked(AMPRT_ENTRY(amprt_tensor_fill), t, constF64(v));
    return success();
  }
  // The data lives in an LLVM global, copied in by amprt_tensor_write.
  // i1 elements are stored one byte each, like the runtime's.
  DenseElementsAttr data = dense;
  Type storage = element;
  if (element.isInteger(1)) {
    storage = b.getI8Type();
    SmallVector<int8_t> bytes;
    for (bool v : dense.getValues<bool>())
      bytes.push_back(v);
    data = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)bytes.size()}, storage),
        ArrayRef<int8_t>(bytes));
  } else {
    data =
        dense.reshape(RankedTensorType::get({type.getNumElements()}, element));
  }
  auto arrayType = LLVM::LLVMArrayType::get(storage, type.getNumElements());
  std::string name = (baseName + "_cst" + Twine(globals++)).str();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name, data);
  }
  Value address = LLVM::AddressOfOp::create(b, loc, ptr, name);
  unsigned bits = storage.getIntOrFloatBitWidth();
  int64_t bytes = type.getNumElements() * std::max(1u, bits / 8);
  Value size = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes));
  callChecked(AMPRT_ENTRY(amprt_tensor_write), t, address, size);
  return success();
}

LogicalResult FunctionLowering::lowerOp(Operation *op) {
  loc = op->getLoc();
  return lowerOneOf<
      arith::ConstantOp, tg::NegOp, tg::AbsOp, tg::ExpOp, tg::LogOp, tg::SqrtOp,
      tg::RsqrtOp, tg::SquareOp, tg::ReciprocalOp, tg::TanhOp, tg::SigmoidOp,
      tg::ReluOp, tg::GeluOp, tg::SiluOp, tg::ErfOp, tg::IsFiniteOp,
      tg::LeakyReluOp, tg::AddOp, tg::SubOp, tg::MulOp, tg::DivOp, tg::PowOp,
      tg::MaximumOp, tg::MinimumOp, tg::ReluGradOp, tg::GeluGradOp,
      tg::TanhGradOp, tg::SigmoidGradOp, tg::LeakyReluGradOp, tg::CompareOp,
      tg::SelectOp, tg::MatmulOp, tg::BatchMatmulOp, tg::Conv2DOp,
      tg::Conv2DBackwardInputOp, tg::Conv2DBackwardFilterOp, tg::BiasAddOp,
      tg::BiasAddGradOp, tg::MaxPool2DOp, tg::AvgPool2DOp, tg::MaxPool2DGradOp,
      tg::AvgPool2DGradOp, tg::BatchNormOp, tg::BatchNormGradOp,
      tg::LayerNormOp, tg::LayerNormGradOp, tg::SoftmaxOp, tg::LogSoftmaxOp,
      tg::SoftmaxGradOp, tg::LogSoftmaxGradOp, tg::SoftmaxCrossEntropyOp,
      tg::SoftmaxCrossEntropyGradOp, tg::ReduceSumOp, tg::ReduceMeanOp,
      tg::ReduceMaxOp, tg::ReshapeOp, tg::BroadcastToOp, tg::TransposeOp,
      tg::ConcatOp, tg::SliceOp, tg::PadOp, tg::GatherOp, tg::GatherGradOp,
      tg::GradSeedOp, tg::SgdUpdateOp, tg::MomentumUpdateOp, tg::AdamUpdateOp,
      tg::ClipByGlobalNormOp, amp::CastOp, amp::ScaleOp, amp::UnscaleOp,
      amp::AllFiniteOp, amp::UpdateScaleOp>(op);
}

LogicalResult FunctionLowering::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError("amp-lower-to-runtime: functions must be one "
                          "block");
  Block &body = func.getBody().front();
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
      return func.emitError("amp-lower-to-runtime: arguments and results "
                            "must be tensors of f32, f16, bf16, f64, i32, "
                            "i64 or i1, got ")
             << t;
    if (!tensor.hasStaticShape())
      return func.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
             << t << "; give the step concrete sizes";
  }
  for (Operation &op : body)
    for (Type t : op.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
        return op.emitError("amp-lower-to-runtime: results must be tensors "
                            "of a runtime element type, got ")
               << t;
      if (!tensor.hasStaticShape())
        return op.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
               << t;
    }

  // The last use of every value, by op position in the block.
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;
  auto lastUse = [&](Value v) -> int64_t {
    int64_t last = -1;
    for (Operation *user : v.getUsers())
      last = std::max<int64_t>(last, position.lookup(user));
    return last;
  };
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  llvm::DenseSet<Value> returned(ret.getOperands().begin(),
                                 ret.getOperands().end());

  // The new function, built beside the old one.
  b.setInsertionPoint(func);
  std::string name = func.getName().str();
  baseName = name;
  func.setName(name + "__amp_tensor_form");
  auto lowered = func::FuncOp::create(
      b, func.getLoc(), name, b.getFunctionType({ptr, ptr, ptr}, {i32}));
  Block *entry = lowered.addEntryBlock();
  b.setInsertionPointToStart(entry);
  ctx = entry->getArgument(0);
  Value args = entry->getArgument(1), results = entry->getArgument(2);
  loc = func.getLoc();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    handles[arg] = LLVM::LoadOp::create(b, loc, ptr, slot);
  }

  index = 0;
  for (Operation &op : body) {
    unsigned here = index++;
    if (&op == ret.getOperation())
      break;
    if (failed(lowerOp(&op)))
      return failure();
    // Release what this op used for the last time, and unused results.
    llvm::SmallSetVector<Value, 8> dying;
    for (Value v : op.getOperands())
      if (lastUse(v) == here)
        dying.insert(v);
    for (Value r : op.getResults())
      if (r.use_empty())
        dying.insert(r);
    for (Value v : dying)
      if (!isa<BlockArgument>(v) && !returned.contains(v))
        call(AMPRT_ENTRY(amprt_tensor_release), handle(v));
  }

  // Results: new handles owned by the caller. A returned argument, or a
  // value returned twice, gets a copy so every result can be released.
  loc = ret.getLoc();
  llvm::DenseSet<Value> stored;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Value result = handle(v);
    if (isa<BlockArgument>(v) || !stored.insert(v).second) {
      Value copy = newTensor(v.getType());
      callChecked(AMPRT_ENTRY(amprt_reshape), ctx, result, copy);
      result = copy;
    }
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, results,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, result, slot);
  }
  Value status = call(AMPRT_ENTRY(amprt_context_status), ctx);
  func::ReturnOp::create(b, loc, status);
  func.erase();
  return success();
}

struct LowerToRuntimePass
    : amp::impl::LowerToRuntimePassBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // One module is one JIT unit: nested modules are refused, not skipped.
    for (auto nested : module.getOps<ModuleOp>()) {
      nested.emitError("amp-lower-to-runtime: nested module")
          << (nested.getSymName() ? " @" + nested.getSymName()->str() : "")
          << ": lower each module on its own";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>()) {
      // The runtime's C API and its C wrappers own these names.
      StringRef name = func.getSymName();
      if (name.starts_with("amprt_") || name.starts_with("_mlir_ciface_")) {
        func.emitError("amp-lower-to-runtime: function @")
            << name
            << " takes a name the runtime's C API uses (amprt_*, "
               "_mlir_ciface_*): rename it";
        return signalPassFailure();
      }
      if (!func.isExternal())
        funcs.push_back(func);
    }
    for (func::FuncOp func : funcs)
      if (failed(FunctionLowering(module, func).run()))
        return signalPassFailure();
  }
};

} // namespace

void amp::buildLowerToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createLowerToRuntimePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
