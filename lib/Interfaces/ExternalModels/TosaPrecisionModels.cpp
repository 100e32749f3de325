//===- TosaPrecisionModels.cpp - TOSA ops join the policy -----------------===//
//
// The TOSA ops of MLIR 22 with the classes of their tg counterparts:
// - allow: conv2d, conv3d, depthwise_conv2d and transpose_conv2d take f16 or
//   bf16 input, weights, bias and zero points and accumulate in f32
//   (`acc_type = f32`); matmul takes low inputs and keeps its f32 output,
//   which TOSA defines as its accumulator;
// - infer: add, sub, mul, avg_pool2d (accumulating in f32), log, rsqrt,
//   reciprocal, sigmoid, tanh, erf, sin, cos, resize;
// - deny: exp, pow, reduce_product, reduce_sum (infer for bf16);
// - clear: data movement, comparisons, select, min/max, abs, ceil, floor,
//   negate, clamp (its bounds are converted, saturating), max_pool2d,
//   reduce_max/min, argmax, cast.
// tosa.const is a constant: the pass folds its casts into new constants.
// Ops that only take integers (rescale, table, bitwise, logical) never see
// a float and do not take part; tosa.cond_if and tosa.while_loop keep their
// types (the pass converts around them).
//
//===----------------------------------------------------------------------===//

#include "TensorCoreShapes.h"
#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using amp::PrecisionClass;

namespace {

/// Convolutions: every float operand follows; accumulation stays f32.
template <typename OpT>
struct ConvModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<ConvModel<OpT>, OpT> {
  PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return PrecisionClass::Allow;
  }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType) const {
    rewriter.modifyOpInPlace(
        op, [&] { cast<OpT>(op).setAccType(rewriter.getF32Type()); });
    return success();
  }
};

/// tosa.matmul's output type is its accumulator: it stays f32.
struct MatMulModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<MatMulModel,
                                                     tosa::MatMulOp> {
  PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return PrecisionClass::Allow;
  }
  bool keepsResultWide(Operation *, unsigned) const { return true; }
};

/// A sum overflows f16 but not bf16.
struct ReduceSumModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<ReduceSumModel,
                                                     tosa::ReduceSumOp> {
  PrecisionClass getPrecisionClass(Operation *, FloatType lowType) const {
    return lowType.isBF16() ? PrecisionClass::Infer : PrecisionClass::Deny;
  }
};

/// Clamp bounds are attributes of the element type: converted with the
/// tensor, saturating (relu's bound of FLT_MAX becomes the largest finite
/// value of the low type).
struct ClampModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<ClampModel,
                                                     tosa::ClampOp> {
  PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return PrecisionClass::Clear;
  }
  bool supportsPrecision(Operation *op, FloatType) const {
    auto clamp = cast<tosa::ClampOp>(op);
    return isa<FloatAttr>(clamp.getMinValAttr()) &&
           isa<FloatAttr>(clamp.getMaxValAttr()) &&
           amp::hasOnlyRankedFloatTensors(op);
  }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType lowType) const {
    auto clamp = cast<tosa::ClampOp>(op);
    auto convert = [&](Attribute attr) {
      APFloat value = cast<FloatAttr>(attr).getValue();
      bool losesInfo = false;
      value.convert(lowType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      if (value.isInfinity() && !cast<FloatAttr>(attr).getValue().isInfinity())
        value = APFloat::getLargest(lowType.getFloatSemantics(),
                                    value.isNegative());
      return FloatAttr::get(lowType, value);
    };
    rewriter.modifyOpInPlace(op, [&] {
      clamp.setMinValAttr(convert(clamp.getMinValAttr()));
      clamp.setMaxValAttr(convert(clamp.getMaxValAttr()));
    });
    return success();
  }
};

template <typename... Ops> void attachConvModels(MLIRContext *ctx) {
  (Ops::template attachInterface<ConvModel<Ops>>(*ctx), ...);
}

} // namespace

void amp::registerTosaPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attachConvModels<tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
                     tosa::TransposeConv2DOp>(ctx);
    tosa::MatMulOp::attachInterface<MatMulModel>(*ctx);
    attachClassModels<PrecisionClass::Infer, tosa::AddOp, tosa::SubOp,
                      tosa::MulOp, tosa::AvgPool2dOp, tosa::LogOp,
                      tosa::RsqrtOp, tosa::ReciprocalOp, tosa::SigmoidOp,
                      tosa::TanhOp, tosa::ErfOp, tosa::SinOp, tosa::CosOp,
                      tosa::ResizeOp>(ctx);
    attachClassModels<PrecisionClass::Deny, tosa::ExpOp, tosa::PowOp,
                      tosa::ReduceProductOp>(ctx);
    tosa::ReduceSumOp::attachInterface<ReduceSumModel>(*ctx);
    tosa::ClampOp::attachInterface<ClampModel>(*ctx);
    attachClassModels<
        PrecisionClass::Clear, tosa::MaximumOp, tosa::MinimumOp, tosa::AbsOp,
        tosa::CeilOp, tosa::FloorOp, tosa::NegateOp, tosa::SelectOp,
        tosa::EqualOp, tosa::GreaterOp, tosa::GreaterEqualOp, tosa::ReduceMaxOp,
        tosa::ReduceMinOp, tosa::ArgMaxOp, tosa::MaxPool2dOp, tosa::ConcatOp,
        tosa::PadOp, tosa::ReshapeOp, tosa::ReverseOp, tosa::SliceOp,
        tosa::TileOp, tosa::TransposeOp, tosa::GatherOp, tosa::ScatterOp,
        tosa::IdentityOp, tosa::CastOp>(ctx);
    attachTosaTensorCoreShapes(ctx);
  });
}
