//===- AMPOps.cpp - Verifiers and folders of the amp ops ------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include "amprt_fp8.h"

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

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

static LogicalResult verifySameShape(Operation *op, Type from, Type to) {
  auto a = cast<RankedTensorType>(from), b = cast<RankedTensorType>(to);
  if (a.getShape() != b.getShape())
    return op->emitOpError("cannot change the shape (")
           << a << " to " << b << "); only the element type converts";
  return success();
}

LogicalResult QuantizeOp::verify() {
  if (getElementTypeOrSelf(getX().getType()).isF64())
    return emitOpError("quantizes f32, f16 or bf16 values, got f64");
  return verifySameShape(*this, getX().getType(), getQ().getType());
}

LogicalResult DequantizeOp::verify() {
  if (getElementTypeOrSelf(getY().getType()).isF64())
    return emitOpError("dequantizes to f32, f16 or bf16, got f64");
  return verifySameShape(*this, getQ().getType(), getY().getType());
}

OpFoldResult AmaxOp::fold(FoldAdaptor adaptor) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getX());
  if (!dense)
    return {};
  // Same order of evaluation as the runtime: NaN wins, then the largest
  // magnitude, read as f32.
  float amax = 0.0f;
  for (APFloat value : dense.getValues<APFloat>()) {
    if (value.isNaN())
      return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                    std::numeric_limits<float>::quiet_NaN());
    bool losesInfo = false;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    amax = std::max(amax, std::fabs(value.convertToFloat()));
  }
  return DenseElementsAttr::get(cast<ShapedType>(getType()), amax);
}

/// The largest finite value of an FP8 format, or nothing for another type.
static std::optional<float> fp8Max(Type format) {
  if (isa<Float8E4M3FNType>(format))
    return amprt::kFp8E4M3Max;
  if (isa<Float8E5M2Type>(format))
    return amprt::kFp8E5M2Max;
  return std::nullopt;
}

LogicalResult Fp8ScaleOp::verify() {
  if (!fp8Max(getFormat()))
    return emitOpError("format must be f8E4M3FN or f8E5M2, got ")
           << getFormat();
  int64_t margin = static_cast<int64_t>(getMargin());
  if (margin < 0 || margin > 64)
    return emitOpError("margin must be in [0, 64], got ") << margin;
  auto history = cast<RankedTensorType>(getHistory().getType());
  if (history.getRank() > 1)
    return emitOpError("takes an amax history (rank 1) or one amax (rank "
                       "0), got ")
           << history;
  return success();
}

OpFoldResult Fp8ScaleOp::fold(FoldAdaptor adaptor) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getHistory());
  std::optional<float> max = fp8Max(getFormat());
  if (!dense || !max)
    return {};
  SmallVector<float> history(dense.getValues<float>());
  float scale =
      amprt::fp8ScaleFor(amprt::historyMax(history.data(), history.size()),
                         *max, static_cast<int>(getMargin()));
  return DenseElementsAttr::get(cast<ShapedType>(getType()), scale);
}

LogicalResult RecordAmaxOp::verify() {
  auto history = cast<RankedTensorType>(getHistory().getType());
  if (history.getRank() != 1 || history.isDynamicDim(0) ||
      history.getDimSize(0) < 1)
    return emitOpError("takes an amax history of static length >= 1, got ")
           << history;
  return success();
}

LogicalResult ScaledMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  if (!a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape())
    return emitOpError("takes statically shaped tensors (it is made from tg "
                       "contractions), got ")
           << a << ", " << b << " -> " << c;
  if (c.getElementType().isF64())
    return emitOpError("computes f32, f16 or bf16, got f64");
  int64_t rank = a.getRank();
  if (rank < 2 || b.getRank() != rank || c.getRank() != rank)
    return emitOpError("takes operands and a result of one rank >= 2, got ")
           << a << ", " << b << " -> " << c;
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  if (as.drop_back(2) != bs.drop_back(2))
    return emitOpError("batch dimensions differ: ") << a << " and " << b;
  int64_t m = getTransposeA() ? as[rank - 1] : as[rank - 2];
  int64_t ka = getTransposeA() ? as[rank - 2] : as[rank - 1];
  int64_t kb = getTransposeB() ? bs[rank - 1] : bs[rank - 2];
  int64_t n = getTransposeB() ? bs[rank - 2] : bs[rank - 1];
  if (ka != kb)
    return emitOpError("contracting dimensions differ: ")
           << ka << " and " << kb;
  SmallVector<int64_t> shape(as.drop_back(2));
  shape.push_back(m);
  shape.push_back(n);
  if (c.getShape() != ArrayRef<int64_t>(shape))
    return emitOpError("result must have shape ")
           << RankedTensorType::get(shape, c.getElementType()) << ", got " << c;
  return success();
}

namespace {
/// tg.matmul / tg.batch_matmul of two dequantized FP8 tensors ->
/// amp.scaled_matmul of the FP8 tensors.
template <typename ContractionOp>
struct FuseDequantizedContraction : OpRewritePattern<ContractionOp> {
  using OpRewritePattern<ContractionOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto a = op.getA().template getDefiningOp<DequantizeOp>();
    auto b = op.getB().template getDefiningOp<DequantizeOp>();
    if (!a || !b)
      return rewriter.notifyMatchFailure(op, "an operand is not dequantized");
    rewriter.replaceOpWithNewOp<ScaledMatmulOp>(
        op, op.getType(), a.getQ(), a.getScale(), b.getQ(), b.getScale(),
        op.getTransposeA(), op.getTransposeB());
    return success();
  }
};
} // namespace

void ScaledMatmulOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                 MLIRContext *context) {
  patterns.add<FuseDequantizedContraction<tg::MatmulOp>,
               FuseDequantizedContraction<tg::BatchMatmulOp>>(context);
}

} // namespace amp

#define GET_OP_CLASSES
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"
