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
#include "llvm/ADT/TypeSwitch.h"

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
  auto h = [&](Value v) { return handle(v); };
  auto unary = [&](auto entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry, ctx, h(op->getOperand(0)), out[0]);
    return success();
  };
  auto binary = [&](auto entry) {
    SmallVector<Value> out = newResults(op);
    callChecked(entry, ctx, h(op->getOperand(0)), h(op->getOperand(1)), out[0]);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) { return lowerConstant(c); })
      .Case([&](tg::NegOp) { return unary(AMPRT_ENTRY(amprt_neg)); })
      .Case([&](tg::AbsOp) { return unary(AMPRT_ENTRY(amprt_abs)); })
      .Case([&](tg::ExpOp) { return unary(AMPRT_ENTRY(amprt_exp)); })
      .Case([&](tg::LogOp) { return unary(AMPRT_ENTRY(amprt_log)); })
      .Case([&](tg::SqrtOp) { return unary(AMPRT_ENTRY(amprt_sqrt)); })
      .Case([&](tg::RsqrtOp) { return unary(AMPRT_ENTRY(amprt_rsqrt)); })
      .Case([&](tg::SquareOp) { return unary(AMPRT_ENTRY(amprt_square)); })
      .Case([&](tg::ReciprocalOp) {
        return unary(AMPRT_ENTRY(amprt_reciprocal));
      })
      .Case([&](tg::TanhOp) { return unary(AMPRT_ENTRY(amprt_tanh)); })
      .Case([&](tg::SigmoidOp) { return unary(AMPRT_ENTRY(amprt_sigmoid)); })
      .Case([&](tg::ReluOp) { return unary(AMPRT_ENTRY(amprt_relu)); })
      .Case([&](tg::GeluOp) { return unary(AMPRT_ENTRY(amprt_gelu)); })
      .Case([&](tg::ErfOp) { return unary(AMPRT_ENTRY(amprt_erf)); })
      .Case([&](tg::IsFiniteOp) { return unary(AMPRT_ENTRY(amprt_is_finite)); })
      .Case([&](tg::LeakyReluOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_leaky_relu), ctx, h(o.getX()),
                    constF64(o.getAlpha().convertToDouble()), out[0]);
        return success();
      })
      .Case([&](tg::AddOp) { return binary(AMPRT_ENTRY(amprt_add)); })
      .Case([&](tg::SubOp) { return binary(AMPRT_ENTRY(amprt_sub)); })
      .Case([&](tg::MulOp) { return binary(AMPRT_ENTRY(amprt_mul)); })
      .Case([&](tg::DivOp) { return binary(AMPRT_ENTRY(amprt_div)); })
      .Case([&](tg::PowOp) { return binary(AMPRT_ENTRY(amprt_pow)); })
      .Case([&](tg::MaximumOp) { return binary(AMPRT_ENTRY(amprt_maximum)); })
      .Case([&](tg::MinimumOp) { return binary(AMPRT_ENTRY(amprt_minimum)); })
      .Case(
          [&](tg::ReluGradOp) { return binary(AMPRT_ENTRY(amprt_relu_grad)); })
      .Case(
          [&](tg::GeluGradOp) { return binary(AMPRT_ENTRY(amprt_gelu_grad)); })
      .Case(
          [&](tg::TanhGradOp) { return binary(AMPRT_ENTRY(amprt_tanh_grad)); })
      .Case([&](tg::SigmoidGradOp) {
        return binary(AMPRT_ENTRY(amprt_sigmoid_grad));
      })
      .Case([&](tg::LeakyReluGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_leaky_relu_grad), ctx, h(o.getDy()),
                    h(o.getX()), constF64(o.getAlpha().convertToDouble()),
                    out[0]);
        return success();
      })
      .Case([&](tg::CompareOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_compare), ctx,
                    constI32(abi::predicateCode(o.getPredicate())), h(o.getA()),
                    h(o.getB()), out[0]);
        return success();
      })
      .Case([&](tg::SelectOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_select), ctx, h(o.getCond()), h(o.getA()),
                    h(o.getB()), out[0]);
        return success();
      })
      .Case<tg::MatmulOp, tg::BatchMatmulOp>([&](auto o) {
        SmallVector<Value> out = newResults(op);
        auto entry = isa<tg::MatmulOp>(op) ? AMPRT_ENTRY(amprt_matmul)
                                           : AMPRT_ENTRY(amprt_batch_matmul);
        callChecked(entry, ctx, h(o.getA()), h(o.getB()),
                    constI32(o.getTransposeA()), constI32(o.getTransposeB()),
                    out[0]);
        return success();
      })
      .Case<tg::Conv2DOp, tg::Conv2DBackwardInputOp,
            tg::Conv2DBackwardFilterOp>([&](auto o) {
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
      })
      .Case([&](tg::BiasAddOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_bias_add), ctx, h(o.getX()), h(o.getB()),
                    constI32(abi::layoutCode(o.getLayout())), out[0]);
        return success();
      })
      .Case([&](tg::BiasAddGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_bias_add_grad), ctx, h(o.getDy()),
                    constI32(abi::layoutCode(o.getLayout())), out[0]);
        return success();
      })
      .Case<tg::MaxPool2DOp, tg::AvgPool2DOp>([&](auto o) {
        SmallVector<Value> out = newResults(op);
        auto entry = isa<tg::MaxPool2DOp>(op) ? AMPRT_ENTRY(amprt_max_pool2d)
                                              : AMPRT_ENTRY(amprt_avg_pool2d);
        callChecked(entry, ctx, h(o.getX()), i64Array(o.getWindow()),
                    i64Array(o.getStrides()), i64Array(o.getPadding()),
                    constI32(abi::layoutCode(o.getLayout())), out[0]);
        return success();
      })
      .Case([&](tg::MaxPool2DGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_max_pool2d_grad), ctx, h(o.getDy()),
                    h(o.getX()), h(o.getY()), i64Array(o.getWindow()),
                    i64Array(o.getStrides()), i64Array(o.getPadding()),
                    constI32(abi::layoutCode(o.getLayout())), out[0]);
        return success();
      })
      .Case([&](tg::AvgPool2DGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_avg_pool2d_grad), ctx, h(o.getDy()),
                    i64Array(o.getWindow()), i64Array(o.getStrides()),
                    i64Array(o.getPadding()),
                    constI32(abi::layoutCode(o.getLayout())), out[0]);
        return success();
      })
      .Case([&](tg::BatchNormOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(
            AMPRT_ENTRY(amprt_batch_norm), ctx, h(o.getX()), h(o.getScale()),
            h(o.getOffset()), constF64(o.getEpsilon().convertToDouble()),
            constI32(abi::layoutCode(o.getLayout())), out[0], out[1], out[2]);
        return success();
      })
      .Case([&](tg::BatchNormGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_batch_norm_grad), ctx, h(o.getDy()),
                    h(o.getX()), h(o.getScale()), h(o.getMean()),
                    h(o.getInvStd()), constI32(abi::layoutCode(o.getLayout())),
                    out[0], out[1], out[2]);
        return success();
      })
      .Case([&](tg::LayerNormOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_layer_norm), ctx, h(o.getX()),
                    h(o.getGamma()), h(o.getBeta()),
                    constF64(o.getEpsilon().convertToDouble()), out[0], out[1],
                    out[2]);
        return success();
      })
      .Case([&](tg::LayerNormGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_layer_norm_grad), ctx, h(o.getDy()),
                    h(o.getX()), h(o.getGamma()), h(o.getMean()),
                    h(o.getInvStd()), out[0], out[1], out[2]);
        return success();
      })
      .Case<tg::SoftmaxOp, tg::LogSoftmaxOp>([&](auto o) {
        SmallVector<Value> out = newResults(op);
        auto entry = isa<tg::SoftmaxOp>(op) ? AMPRT_ENTRY(amprt_softmax)
                                            : AMPRT_ENTRY(amprt_log_softmax);
        callChecked(entry, ctx, h(o.getX()), constI64(o.getAxis()), out[0]);
        return success();
      })
      .Case<tg::SoftmaxGradOp, tg::LogSoftmaxGradOp>([&](auto o) {
        SmallVector<Value> out = newResults(op);
        auto entry = isa<tg::SoftmaxGradOp>(op)
                         ? AMPRT_ENTRY(amprt_softmax_grad)
                         : AMPRT_ENTRY(amprt_log_softmax_grad);
        callChecked(entry, ctx, h(o.getDy()), h(o.getY()),
                    constI64(o.getAxis()), out[0]);
        return success();
      })
      .Case([&](tg::SoftmaxCrossEntropyOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_softmax_cross_entropy), ctx,
                    h(o.getLogits()), h(o.getLabels()), out[0]);
        return success();
      })
      .Case([&](tg::SoftmaxCrossEntropyGradOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_softmax_cross_entropy_grad), ctx,
                    h(o.getDloss()), h(o.getLogits()), h(o.getLabels()),
                    out[0]);
        return success();
      })
      .Case<tg::ReduceSumOp, tg::ReduceMeanOp, tg::ReduceMaxOp>([&](auto o) {
        SmallVector<Value> out = newResults(op);
        auto entry = isa<tg::ReduceSumOp>(op) ? AMPRT_ENTRY(amprt_reduce_sum)
                     : isa<tg::ReduceMeanOp>(op)
                         ? AMPRT_ENTRY(amprt_reduce_mean)
                         : AMPRT_ENTRY(amprt_reduce_max);
        callChecked(entry, ctx, h(o.getX()), i64Array(o.getDims()),
                    constI32(o.getDims().size()), out[0]);
        return success();
      })
      .Case([&](tg::ReshapeOp) { return unary(AMPRT_ENTRY(amprt_reshape)); })
      .Case([&](tg::BroadcastToOp) {
        return unary(AMPRT_ENTRY(amprt_broadcast_to));
      })
      .Case([&](tg::TransposeOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_transpose), ctx, h(o.getX()),
                    i64Array(o.getPerm()), out[0]);
        return success();
      })
      .Case([&](tg::ConcatOp o) {
        SmallVector<Value> ins;
        for (Value x : o.getXs())
          ins.push_back(h(x));
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_concat), ctx, ptrArray(ins),
                    constI32(ins.size()), constI64(o.getAxis()), out[0]);
        return success();
      })
      .Case([&](tg::SliceOp o) {
        SmallVector<Value> out = newResults(op);
        SmallVector<int64_t> strides(o.getOffsets().size(), 1);
        if (o.getStrides())
          strides.assign(o.getStrides()->begin(), o.getStrides()->end());
        callChecked(AMPRT_ENTRY(amprt_slice), ctx, h(o.getX()),
                    i64Array(o.getOffsets()), i64Array(strides), out[0]);
        return success();
      })
      .Case([&](tg::PadOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_pad), ctx, h(o.getX()),
                    i64Array(o.getLow()), i64Array(o.getHigh()),
                    constF64(o.getValue().convertToDouble()), out[0]);
        return success();
      })
      .Case([&](tg::GatherOp) { return binary(AMPRT_ENTRY(amprt_gather)); })
      .Case([&](tg::GatherGradOp) {
        return binary(AMPRT_ENTRY(amprt_gather_grad));
      })
      .Case([&](tg::GradSeedOp) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_grad_seed), ctx, out[0]);
        return success();
      })
      .Case([&](tg::SgdUpdateOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_sgd_update), ctx, h(o.getParam()),
                    h(o.getGrad()), h(o.getLr()), out[0]);
        return success();
      })
      .Case([&](tg::MomentumUpdateOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_momentum_update), ctx, h(o.getParam()),
                    h(o.getGrad()), h(o.getVelocity()), h(o.getLr()),
                    constF64(o.getMomentum().convertToDouble()),
                    constI32(o.getNesterov()), out[0], out[1]);
        return success();
      })
      .Case([&](tg::AdamUpdateOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_adam_update), ctx, h(o.getParam()),
                    h(o.getGrad()), h(o.getM()), h(o.getV()), h(o.getStep()),
                    h(o.getLr()), constF64(o.getBeta1().convertToDouble()),
                    constF64(o.getBeta2().convertToDouble()),
                    constF64(o.getEpsilon().convertToDouble()),
                    constF64(o.getWeightDecay().convertToDouble()), out[0],
                    out[1], out[2]);
        return success();
      })
      .Case([&](tg::ClipByGlobalNormOp o) {
        SmallVector<Value> ins;
        for (Value g : o.getGrads())
          ins.push_back(h(g));
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_clip_by_global_norm), ctx, ptrArray(ins),
                    constI32(ins.size()),
                    constF64(o.getMaxNorm().convertToDouble()), ptrArray(out));
        return success();
      })
      .Case([&](amp::CastOp) { return unary(AMPRT_ENTRY(amprt_cast)); })
      .Case([&](amp::ScaleOp) { return binary(AMPRT_ENTRY(amprt_scale)); })
      .Case([&](amp::UnscaleOp) { return binary(AMPRT_ENTRY(amprt_unscale)); })
      .Case([&](amp::AllFiniteOp o) {
        SmallVector<Value> ins;
        for (Value g : o.getGs())
          ins.push_back(h(g));
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_all_finite), ctx, ptrArray(ins),
                    constI32(ins.size()), out[0]);
        return success();
      })
      .Case([&](amp::UpdateScaleOp o) {
        SmallVector<Value> out = newResults(op);
        callChecked(AMPRT_ENTRY(amprt_update_scale), ctx, h(o.getScale()),
                    h(o.getGoodSteps()), h(o.getFinite()),
                    constF64(o.getGrowthFactor().convertToDouble()),
                    constF64(o.getBackoffFactor().convertToDouble()),
                    constI64(o.getGrowthInterval()),
                    constF64(o.getMinScale().convertToDouble()),
                    constF64(o.getMaxScale().convertToDouble()), out[0],
                    out[1]);
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError()
               << "amp-lower-to-runtime: '" << other->getName()
               << "' has no runtime lowering (tg-autodiff must run first; "
                  "region ops are not supported)";
      });
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
