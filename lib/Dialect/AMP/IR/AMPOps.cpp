//===- AMPOps.cpp - Verifiers and folders of the amp ops ------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;

namespace amp {

bool isExactFloatConversion(FloatType from, FloatType to) {
  return llvm::APFloat::isRepresentableBy(from.getFloatSemantics(),
                                          to.getFloatSemantics());
}

static bool isSplatOne(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  return dense && dense.isSplat() &&
         dense.getSplatValue<APFloat>().isExactlyValue(1.0);
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto from = cast<RankedTensorType>(getX().getType());
  auto to = cast<RankedTensorType>(getY().getType());
  if (from.getShape() != to.getShape())
    return emitOpError("cannot change the shape (")
           << from << " to " << to << "); only the element type converts";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  auto resultType = cast<RankedTensorType>(getType());
  if (getX().getType() == resultType)
    return getX();
  auto target = cast<FloatType>(resultType.getElementType());

  if (auto dense = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getX())) {
    const llvm::fltSemantics &semantics = target.getFloatSemantics();
    return dense.mapValues(target, [&](const APFloat &value) {
      APFloat converted = value;
      bool losesInfo = false;
      converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
      return converted.bitcastToAPInt();
    });
  }

  // cast(cast(x)) folds when the inner cast loses nothing: the outer cast
  // then sees exactly x's values.
  if (auto inner = getX().getDefiningOp<CastOp>()) {
    auto source = cast<RankedTensorType>(inner.getX().getType());
    auto middle = cast<RankedTensorType>(inner.getType());
    if (isExactFloatConversion(cast<FloatType>(source.getElementType()),
                               cast<FloatType>(middle.getElementType()))) {
      if (source == resultType)
        return inner.getX();
      getXMutable().assign(inner.getX());
      return getResult();
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

OpFoldResult ScaleOp::fold(FoldAdaptor adaptor) {
  if (isSplatOne(adaptor.getScale()))
    return getX();
  return {};
}

LogicalResult UnscaleOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto g = dyn_cast<RankedTensorType>(adaptor.getG().getType());
  if (!g)
    return emitOptionalError(loc, "'amp.unscale' op gradient must be a "
                                  "ranked tensor");
  // Unscaled gradients are f32 (f64 stays f64 in reference runs).
  Type element =
      g.getElementType().isF64() ? g.getElementType() : Float32Type::get(ctx);
  types.push_back(g.clone(element));
  return success();
}

OpFoldResult UnscaleOp::fold(FoldAdaptor adaptor) {
  if (isSplatOne(adaptor.getScale()) && getG().getType() == getType())
    return getG();
  return {};
}

LogicalResult AllFiniteOp::verify() {
  if (getGs().empty())
    return emitOpError("needs at least one operand");
  return success();
}

LogicalResult UpdateScaleOp::verify() {
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  double minScale = getMinScale().convertToDouble();
  double maxScale = getMaxScale().convertToDouble();
  if (!(growth >= 1.0) || std::isinf(growth))
    return emitOpError("growth_factor must be a finite value >= 1, got ")
           << growth;
  if (!(backoff > 0.0 && backoff <= 1.0))
    return emitOpError("backoff_factor must be in (0, 1], got ") << backoff;
  // I64Attr accessors return uint64_t: read the interval signed.
  int64_t interval = static_cast<int64_t>(getGrowthInterval());
  if (interval < 1)
    return emitOpError("growth_interval must be >= 1, got ") << interval;
  if (!(minScale > 0.0 && minScale <= maxScale) || std::isinf(maxScale))
    return emitOpError("scales must satisfy 0 < min_scale <= max_scale < inf, "
                       "got min_scale ")
           << minScale << " and max_scale " << maxScale;
  return success();
}

void NumericErrorOp::build(OpBuilder &builder, OperationState &state,
                           Value reference, Value candidate) {
  build(builder, state,
        RankedTensorType::get({kNumStats}, builder.getF32Type()), reference,
        candidate);
}

LogicalResult NumericErrorOp::verify() {
  auto reference = cast<RankedTensorType>(getReference().getType());
  auto candidate = cast<RankedTensorType>(getCandidate().getType());
  if (failed(verifyCompatibleShape(reference.getShape(), candidate.getShape())))
    return emitOpError("compares tensors of one shape, got ")
           << reference << " and " << candidate;
  auto stats = cast<RankedTensorType>(getStats().getType());
  if (stats.getShape() != ArrayRef<int64_t>{kNumStats})
    return emitOpError("returns tensor<")
           << kNumStats << "xf32>, got " << stats;
  return success();
}

} // namespace amp

#define GET_OP_CLASSES
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"
