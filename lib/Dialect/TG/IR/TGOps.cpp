//===- TGOps.cpp - Type inference and verifiers of the tg ops -------------===//
//
// Every check names the offending operand or attribute and the shapes
// involved. Inference runs before the operand type constraints are verified
// (while parsing), so it never assumes an operand is a static tensor.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace mlir;

namespace amp::tg {
namespace {

/// Emits "'op' op <message>" at `loc` when there is one; always fails.
LogicalResult fail(std::optional<Location> loc, StringRef opName,
                   const Twine &message) {
  return emitOptionalError(loc, "'", opName, "' op ", message);
}

std::string str(Type type) {
  std::string s;
  llvm::raw_string_ostream(s) << type;
  return s;
}

/// The operand `type` as a static tensor, or a diagnostic naming `what`.
FailureOr<RankedTensorType> staticTensor(std::optional<Location> loc,
                                         StringRef opName, Type type,
                                         StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return fail(loc, opName,
                what + " must be a statically shaped tensor, got " + str(type));
  return tensor;
}

/// Checks required attributes and attribute kinds before inference reads
/// them (the parser infers before the op is verified).
template <typename AdaptorT>
LogicalResult checkAttrs(MLIRContext *ctx, std::optional<Location> loc,
                         AdaptorT &adaptor) {
  if (loc)
    return adaptor.verify(*loc);
  // No location to report at: check quietly.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  return adaptor.verify(UnknownLoc::get(ctx));
}

/// Normalises `axis` into [0, rank), or fails naming `what`.
FailureOr<int64_t> normalizeAxis(std::optional<Location> loc, StringRef opName,
                                 int64_t axis, int64_t rank, StringRef what) {
  if (axis < -rank || axis >= rank)
    return fail(loc, opName,
                what + " " + Twine(axis) + " is out of range for rank " +
                    Twine(rank) + " (expected [" + Twine(-rank) + ", " +
                    Twine(rank) + "))");
  return axis < 0 ? axis + rank : axis;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared inference for op classes (used from the ODS class definitions).
//===----------------------------------------------------------------------===//

template <typename AdaptorT>
LogicalResult inferPoolResult(std::optional<Location> loc, StringRef opName,
                              AdaptorT adaptor, SmallVectorImpl<Type> &types) {
  Value x = adaptor.getX();
  if (failed(checkAttrs(x.getContext(), loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> xt =
      staticTensor(loc, opName, x.getType(), "input");
  if (failed(xt))
    return failure();
  FailureOr<RankedTensorType> out = inferPool2DType(
      loc, opName, *xt, adaptor.getWindow(), adaptor.getStrides(),
      adaptor.getPadding(), adaptor.getLayout());
  if (failed(out))
    return failure();
  types.push_back(*out);
  return success();
}

template <typename AdaptorT>
LogicalResult inferReduceResult(std::optional<Location> loc, StringRef opName,
                                AdaptorT adaptor,
                                SmallVectorImpl<Type> &types) {
  Value x = adaptor.getX();
  if (failed(checkAttrs(x.getContext(), loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> xt =
      staticTensor(loc, opName, x.getType(), "input");
  if (failed(xt))
    return failure();
  int64_t rank = xt->getRank();
  llvm::SmallSet<int64_t, 4> reduced;
  for (int64_t d : adaptor.getDims()) {
    FailureOr<int64_t> dim = normalizeAxis(loc, opName, d, rank, "dim");
    if (failed(dim))
      return failure();
    if (!reduced.insert(*dim).second)
      return fail(loc, opName,
                  "dims names dimension " + Twine(*dim) + " twice");
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.contains(i))
      shape.push_back(xt->getDimSize(i));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, xt->getElementType()));
  return success();
}

template <typename OpT> OpFoldResult foldIdentityReduce(OpT op) {
  // Reducing no dimension is the identity.
  if (op.getDims().empty() && op.getX().getType() == op.getType())
    return op.getX();
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult IsFiniteOp::inferReturnTypes(MLIRContext *ctx,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> xt =
      staticTensor(loc, getOperationName(), adaptor.getX().getType(), "input");
  if (failed(xt))
    return failure();
  types.push_back(xt->clone(IntegerType::get(ctx, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Shared by matmul and batch_matmul: the last two dims contract, the
/// leading ones (if any) must agree.
template <typename AdaptorT>
static LogicalResult
inferContraction(MLIRContext *ctx, std::optional<Location> loc,
                 StringRef opName, AdaptorT &adaptor, bool batched,
                 SmallVectorImpl<Type> &types) {
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> a =
      staticTensor(loc, opName, adaptor.getA().getType(), "lhs");
  FailureOr<RankedTensorType> b =
      staticTensor(loc, opName, adaptor.getB().getType(), "rhs");
  if (failed(a) || failed(b))
    return failure();
  int64_t rank = a->getRank();
  if (!batched && (rank != 2 || b->getRank() != 2))
    return fail(loc, opName,
                "expects rank-2 operands, got ranks " + Twine(rank) + " and " +
                    Twine(b->getRank()));
  if (batched && (rank < 3 || b->getRank() != rank))
    return fail(loc, opName,
                "expects operands of equal rank >= 3, got ranks " +
                    Twine(rank) + " and " + Twine(b->getRank()));
  if (a->getElementType() != b->getElementType())
    return fail(loc, opName,
                "operands must share an element type, got " +
                    str(a->getElementType()) + " and " +
                    str(b->getElementType()));
  ArrayRef<int64_t> as = a->getShape(), bs = b->getShape();
  if (as.drop_back(2) != bs.drop_back(2))
    return fail(loc, opName,
                "batch dimensions differ: " + formatShape(as.drop_back(2)) +
                    " vs " + formatShape(bs.drop_back(2)));
  int64_t m = adaptor.getTransposeA() ? as[rank - 1] : as[rank - 2];
  int64_t ka = adaptor.getTransposeA() ? as[rank - 2] : as[rank - 1];
  int64_t kb = adaptor.getTransposeB() ? bs[rank - 1] : bs[rank - 2];
  int64_t n = adaptor.getTransposeB() ? bs[rank - 2] : bs[rank - 1];
  if (ka != kb)
    return fail(loc, opName,
                "contracting dimensions differ: lhs " + formatShape(as) +
                    " gives K = " + Twine(ka) + ", rhs " + formatShape(bs) +
                    " gives K = " + Twine(kb));
  SmallVector<int64_t> shape(as.drop_back(2));
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, a->getElementType()));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferContraction(ctx, loc, getOperationName(), adaptor,
                          /*batched=*/false, types);
}

LogicalResult BatchMatmulOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferContraction(ctx, loc, getOperationName(), adaptor,
                          /*batched=*/true, types);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  FailureOr<RankedTensorType> w =
      staticTensor(loc, name, adaptor.getW().getType(), "filter");
  if (failed(x) || failed(w))
    return failure();
  FailureOr<RankedTensorType> y = inferConv2DType(
      loc, name, *x, *w, adaptor.getStrides(), adaptor.getPadding(),
      adaptor.getDilations(), adaptor.getLayout());
  if (failed(y))
    return failure();
  types.push_back(*y);
  return success();
}

/// A backward convolution is valid when the forward convolution of the
/// shapes it claims produces `dy`'s shape.
template <typename OpT>
static LogicalResult verifyBackwardConv(OpT op, RankedTensorType x,
                                        RankedTensorType w,
                                        RankedTensorType dy) {
  FailureOr<RankedTensorType> fwd = inferConv2DType(
      op.getLoc(), op->getName().getStringRef(), x, w, op.getStrides(),
      op.getPadding(), op.getDilations(), op.getLayout());
  if (failed(fwd))
    return failure();
  if (dy.getElementType() != x.getElementType())
    return op.emitOpError("dy must share the element type of the input, got ")
           << dy.getElementType() << " and " << x.getElementType();
  if (fwd->getShape() != dy.getShape())
    return op.emitOpError("dy has shape ")
           << formatShape(dy.getShape()) << " but the forward conv2d of input "
           << formatShape(x.getShape()) << " and filter "
           << formatShape(w.getShape()) << " produces "
           << formatShape(fwd->getShape());
  return success();
}

LogicalResult Conv2DBackwardInputOp::verify() {
  return verifyBackwardConv(*this, getDx().getType(), getW().getType(),
                            getDy().getType());
}

LogicalResult Conv2DBackwardFilterOp::verify() {
  return verifyBackwardConv(*this, getX().getType(), getDw().getType(),
                            getDy().getType());
}

//===----------------------------------------------------------------------===//
// Bias
//===----------------------------------------------------------------------===//

LogicalResult BiasAddOp::verify() {
  RankedTensorType x = getX().getType(), b = getB().getType();
  std::optional<unsigned> c = getChannelDim(x.getRank(), getLayout());
  if (!c)
    return emitOpError("input must have rank >= 2, got rank ") << x.getRank();
  if (b.getRank() != 1 || b.getDimSize(0) != x.getDimSize(*c))
    return emitOpError("bias must have shape [")
           << x.getDimSize(*c) << "] (the channel dim " << *c << " of "
           << formatShape(x.getShape()) << "), got " << b;
  if (b.getElementType() != x.getElementType())
    return emitOpError("bias must share the input's element type, got ")
           << b.getElementType() << " and " << x.getElementType();
  return success();
}

LogicalResult BiasAddGradOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> dy =
      staticTensor(loc, name, adaptor.getDy().getType(), "dy");
  if (failed(dy))
    return failure();
  std::optional<unsigned> c = getChannelDim(dy->getRank(), adaptor.getLayout());
  if (!c)
    return fail(loc, name,
                "dy must have rank >= 2, got rank " + Twine(dy->getRank()));
  types.push_back(
      RankedTensorType::get({dy->getDimSize(*c)}, dy->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling gradients
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2DGradOp::verify() {
  RankedTensorType x = getX().getType(), dy = getDy().getType();
  FailureOr<RankedTensorType> fwd =
      inferPool2DType(getLoc(), getOperationName(), x, getWindow(),
                      getStrides(), getPadding(), getLayout());
  if (failed(fwd))
    return failure();
  if (fwd->getShape() != dy.getShape() ||
      dy.getElementType() != x.getElementType())
    return emitOpError("dy and y must be ")
           << *fwd << " (max_pool2d of the input " << x << "), got " << dy;
  return success();
}

LogicalResult AvgPool2DGradOp::verify() {
  RankedTensorType dx = getDx().getType(), dy = getDy().getType();
  FailureOr<RankedTensorType> fwd =
      inferPool2DType(getLoc(), getOperationName(), dx, getWindow(),
                      getStrides(), getPadding(), getLayout());
  if (failed(fwd))
    return failure();
  if (fwd->getShape() != dy.getShape() ||
      dy.getElementType() != dx.getElementType())
    return emitOpError("dy must be ")
           << *fwd << " (avg_pool2d of the result shape " << dx << "), got "
           << dy;
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Checks that `stats` is the f32 (f64 for f64 data) tensor of `shape`.
static LogicalResult checkStats(std::optional<Location> loc, StringRef opName,
                                Type stats, ArrayRef<int64_t> shape,
                                Type dataElementType, StringRef what) {
  auto expected =
      RankedTensorType::get(shape, getStatsElementType(dataElementType));
  if (stats != expected)
    return fail(loc, opName,
                what + " must be " + str(expected) + ", got " + str(stats));
  return success();
}

/// The channel count of batch-norm input `x` (rank 2 or 4).
static FailureOr<int64_t> batchNormChannels(std::optional<Location> loc,
                                            StringRef opName,
                                            RankedTensorType x, Layout layout) {
  if (x.getRank() != 2 && x.getRank() != 4)
    return fail(loc, opName,
                "input must have rank 2 or 4, got rank " + Twine(x.getRank()));
  return x.getDimSize(*getChannelDim(x.getRank(), layout));
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  FailureOr<int64_t> c = batchNormChannels(loc, name, *x, adaptor.getLayout());
  if (failed(c) || failed(checkStats(loc, name, adaptor.getScale().getType(),
                                     {*c}, x->getElementType(), "scale")))
    return failure();
  Type stats = adaptor.getScale().getType();
  types.append({*x, stats, stats});
  return success();
}

LogicalResult BatchNormGradOp::inferReturnTypes(MLIRContext *ctx,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  FailureOr<int64_t> c = batchNormChannels(loc, name, *x, adaptor.getLayout());
  if (failed(c))
    return failure();
  Value statsValues[] = {adaptor.getScale(), adaptor.getMean(),
                         adaptor.getInvStd()};
  StringRef names[] = {"scale", "mean", "inv_std"};
  for (auto [value, what] : llvm::zip(statsValues, names))
    if (failed(checkStats(loc, name, value.getType(), {*c}, x->getElementType(),
                          what)))
      return failure();
  Type stats = adaptor.getScale().getType();
  types.append({*x, stats, stats});
  return success();
}

/// Checks layer-norm operands; returns the type of gamma/beta.
template <typename AdaptorT>
static FailureOr<RankedTensorType>
checkLayerNorm(std::optional<Location> loc, StringRef opName, AdaptorT &adaptor,
               Value gamma) {
  FailureOr<RankedTensorType> x =
      staticTensor(loc, opName, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  if (x->getRank() < 1)
    return fail(loc, opName, "input must have rank >= 1");
  if (failed(checkStats(loc, opName, gamma.getType(), {x->getShape().back()},
                        x->getElementType(), "gamma")))
    return failure();
  return *x;
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      checkLayerNorm(loc, getOperationName(), adaptor, adaptor.getGamma());
  if (failed(x))
    return failure();
  auto stats = RankedTensorType::get(x->getShape().drop_back(),
                                     getStatsElementType(x->getElementType()));
  types.append({*x, stats, stats});
  return success();
}

LogicalResult LayerNormGradOp::inferReturnTypes(MLIRContext *ctx,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      checkLayerNorm(loc, name, adaptor, adaptor.getGamma());
  if (failed(x))
    return failure();
  Value statsValues[] = {adaptor.getMean(), adaptor.getInvStd()};
  StringRef names[] = {"mean", "inv_std"};
  for (auto [value, what] : llvm::zip(statsValues, names))
    if (failed(checkStats(loc, name, value.getType(), x->getShape().drop_back(),
                          x->getElementType(), what)))
      return failure();
  Type gamma = adaptor.getGamma().getType();
  types.append({*x, gamma, gamma});
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and loss
//===----------------------------------------------------------------------===//

static LogicalResult verifyAxis(Operation *op, int64_t axis) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return normalizeAxis(op->getLoc(), op->getName().getStringRef(), axis,
                       type.getRank(), "axis");
}

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  if (!getCausal())
    return success();
  int64_t rank = getX().getType().getRank();
  int64_t given = static_cast<int64_t>(getAxis());
  int64_t axis = given < 0 ? given + rank : given;
  if (rank < 2 || axis != rank - 1)
    return emitOpError("causal softmax needs scores [..., queries, keys] "
                       "(rank >= 2) and the last axis, got rank ")
           << rank << " and axis " << given;
  return success();
}
LogicalResult LogSoftmaxOp::verify() { return verifyAxis(*this, getAxis()); }
LogicalResult SoftmaxGradOp::verify() { return verifyAxis(*this, getAxis()); }
LogicalResult LogSoftmaxGradOp::verify() {
  return verifyAxis(*this, getAxis());
}

/// The loss type of softmax_cross_entropy(logits, labels).
static FailureOr<RankedTensorType>
inferCrossEntropyLoss(std::optional<Location> loc, StringRef opName,
                      Type logitsType, Type labelsType) {
  FailureOr<RankedTensorType> logits =
      staticTensor(loc, opName, logitsType, "logits");
  FailureOr<RankedTensorType> labels =
      staticTensor(loc, opName, labelsType, "labels");
  if (failed(logits) || failed(labels))
    return failure();
  if (logits->getRank() != 2)
    return fail(loc, opName, "logits must be [N, C], got " + str(*logits));
  int64_t n = logits->getDimSize(0);
  Type le = labels->getElementType();
  if (le.isInteger(32) || le.isInteger(64)) {
    if (labels->getShape() != ArrayRef<int64_t>{n})
      return fail(loc, opName,
                  "integer labels must be [" + Twine(n) +
                      "] (one class index "
                      "per example), got " +
                      str(*labels));
  } else if (*labels != *logits) {
    return fail(loc, opName,
                "labels must be i32/i64 [N] class indices or a distribution "
                "typed like the logits (" +
                    str(*logits) + "), got " + str(*labels));
  }
  return RankedTensorType::get({n}, logits->getElementType());
}

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> loss = inferCrossEntropyLoss(
      loc, getOperationName(), adaptor.getLogits().getType(),
      adaptor.getLabels().getType());
  if (failed(loss))
    return failure();
  types.push_back(*loss);
  return success();
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  FailureOr<RankedTensorType> loss =
      inferCrossEntropyLoss(getLoc(), getOperationName(), getLogits().getType(),
                            getLabels().getType());
  if (failed(loss))
    return failure();
  if (getDloss().getType() != *loss)
    return emitOpError("dloss must be ")
           << *loss << " (the loss type), got " << getDloss().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType x = getX().getType(), y = getY().getType();
  if (x.getElementType() != y.getElementType())
    return emitOpError("cannot change the element type (")
           << x.getElementType() << " to " << y.getElementType()
           << "); use amp.cast";
  if (x.getNumElements() != y.getNumElements())
    return emitOpError("cannot reshape ")
           << formatShape(x.getShape()) << " (" << x.getNumElements()
           << " elements) to " << formatShape(y.getShape()) << " ("
           << y.getNumElements() << " elements)";
  return success();
}

LogicalResult BroadcastToOp::verify() {
  RankedTensorType x = getX().getType(), y = getY().getType();
  if (x.getElementType() != y.getElementType())
    return emitOpError("cannot change the element type (")
           << x.getElementType() << " to " << y.getElementType() << ")";
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(x.getShape(), y.getShape());
  if (!shape || ArrayRef<int64_t>(*shape) != y.getShape())
    return emitOpError("cannot broadcast ")
           << formatShape(x.getShape()) << " to " << formatShape(y.getShape());
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = x->getRank();
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < rank && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return fail(loc, name,
                "perm [" + formatShape(perm) + "] is not a permutation of " +
                    Twine(rank) + " dimensions");
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x->getDimSize(p));
  types.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  ValueRange xs = adaptor.getXs();
  if (xs.empty())
    return fail(loc, name, "needs at least one operand");
  FailureOr<RankedTensorType> first =
      staticTensor(loc, name, xs.front().getType(), "operand 0");
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  if (rank == 0)
    return fail(loc, name, "cannot concatenate rank-0 tensors");
  FailureOr<int64_t> axis =
      normalizeAxis(loc, name, adaptor.getAxis(), rank, "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  shape[*axis] = 0;
  for (auto [i, v] : llvm::enumerate(xs)) {
    FailureOr<RankedTensorType> t =
        staticTensor(loc, name, v.getType(), "operand " + std::to_string(i));
    if (failed(t))
      return failure();
    if (t->getElementType() != first->getElementType() || t->getRank() != rank)
      return fail(loc, name,
                  "operand " + Twine(i) + " (" + str(*t) +
                      ") must match operand 0's rank and element type");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && t->getDimSize(d) != first->getDimSize(d))
        return fail(loc, name,
                    "operand " + Twine(i) +
                        " differs from operand 0 in "
                        "dimension " +
                        Twine(d) + ", which is not the axis");
    std::optional<int64_t> sum =
        llvm::checkedAdd(shape[*axis], t->getDimSize(*axis));
    if (!sum)
      return fail(loc, name, "the concatenated axis overflows 64 bits");
    shape[*axis] = *sum;
  }
  if (!checkedNumElements(shape))
    return fail(loc, name,
                "result " + formatShape(shape) +
                    " would have more than 2^60 elements");
  types.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  int64_t rank = x->getRank();
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes();
  SmallVector<int64_t> strides(rank, 1);
  if (auto s = adaptor.getStrides())
    strides.assign(s->begin(), s->end());
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return fail(loc, name,
                "offsets, sizes and strides must each have " + Twine(rank) +
                    " entries (the input rank)");
  for (int64_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || sizes[d] < 1 || strides[d] < 1)
      return fail(loc, name,
                  "dimension " + Twine(d) +
                      " needs offset >= 0, size >= 1 "
                      "and stride >= 1");
    // Checked in this order so the product cannot overflow first.
    if (offsets[d] >= x->getDimSize(d) ||
        (sizes[d] - 1) > (x->getDimSize(d) - 1 - offsets[d]) / strides[d])
      return fail(loc, name,
                  "window of dimension " + Twine(d) + " (offset " +
                      Twine(offsets[d]) + ", size " + Twine(sizes[d]) +
                      ", stride " + Twine(strides[d]) +
                      ") exceeds its extent " + Twine(x->getDimSize(d)));
  }
  types.push_back(RankedTensorType::get(sizes, x->getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> x =
      staticTensor(loc, name, adaptor.getX().getType(), "input");
  if (failed(x))
    return failure();
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  int64_t rank = x->getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return fail(loc, name,
                "low and high must each have " + Twine(rank) +
                    " entries (the input rank)");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return fail(loc, name, "padding must be non-negative");
    std::optional<int64_t> size = llvm::checkedAdd(x->getDimSize(d), low[d]);
    if (size)
      size = llvm::checkedAdd(*size, high[d]);
    if (!size)
      return fail(loc, name,
                  "padding of dimension " + Twine(d) + " (low " +
                      Twine(low[d]) + ", high " + Twine(high[d]) +
                      ") overflows 64 bits");
    shape.push_back(*size);
  }
  if (!checkedNumElements(shape))
    return fail(loc, name,
                "result " + formatShape(shape) +
                    " would have more than 2^60 elements");
  types.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> table =
      staticTensor(loc, name, adaptor.getTable().getType(), "table");
  FailureOr<RankedTensorType> indices =
      staticTensor(loc, name, adaptor.getIndices().getType(), "indices");
  if (failed(table) || failed(indices))
    return failure();
  if (table->getRank() < 1)
    return fail(loc, name, "table must have rank >= 1");
  SmallVector<int64_t> shape(indices->getShape());
  llvm::append_range(shape, table->getShape().drop_front());
  types.push_back(RankedTensorType::get(shape, table->getElementType()));
  return success();
}

LogicalResult GatherGradOp::inferReturnTypes(MLIRContext *ctx,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(checkAttrs(ctx, loc, adaptor)))
    return failure();
  FailureOr<RankedTensorType> dy =
      staticTensor(loc, name, adaptor.getDy().getType(), "dy");
  FailureOr<RankedTensorType> indices =
      staticTensor(loc, name, adaptor.getIndices().getType(), "indices");
  if (failed(dy) || failed(indices))
    return failure();
  int64_t rows = static_cast<int64_t>(adaptor.getNumRows());
  if (rows < 1)
    return fail(loc, name, "num_rows must be >= 1, got " + Twine(rows));
  ArrayRef<int64_t> is = indices->getShape(), ds = dy->getShape();
  if (ds.size() < is.size() || ds.take_front(is.size()) != is)
    return fail(loc, name,
                "dy (" + formatShape(ds) +
                    ") must start with the indices' shape (" + formatShape(is) +
                    ")");
  SmallVector<int64_t> shape{rows};
  llvm::append_range(shape, ds.drop_front(is.size()));
  types.push_back(RankedTensorType::get(shape, dy->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Autodiff
//===----------------------------------------------------------------------===//

LogicalResult GradientsOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getWrt().getTypes());
  return success();
}

LogicalResult GradientsOp::verify() {
  if (getWrt().empty())
    return emitOpError("needs at least one value to differentiate with "
                       "respect to");
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

LogicalResult MomentumUpdateOp::verify() {
  if (getMomentum().convertToDouble() < 0.0)
    return emitOpError("momentum must be >= 0, got ")
           << getMomentum().convertToDouble();
  double decay = getWeightDecay().convertToDouble();
  if (!(decay >= 0.0) || std::isinf(decay))
    return emitOpError("weight_decay must be finite and >= 0, got ") << decay;
  return success();
}

LogicalResult AdamUpdateOp::verify() {
  double betas[] = {getBeta1().convertToDouble(), getBeta2().convertToDouble()};
  StringRef names[] = {"beta1", "beta2"};
  for (auto [value, what] : llvm::zip(betas, names))
    if (!(value >= 0.0 && value < 1.0))
      return emitOpError() << what << " must be in [0, 1), got " << value;
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be > 0, got ")
           << getEpsilon().convertToDouble();
  if (!(getWeightDecay().convertToDouble() >= 0.0))
    return emitOpError("weight_decay must be >= 0, got ")
           << getWeightDecay().convertToDouble();
  return success();
}

LogicalResult ClipByGlobalNormOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getGrads().getTypes());
  return success();
}

LogicalResult ClipByGlobalNormOp::verify() {
  if (getGrads().empty())
    return emitOpError("needs at least one gradient");
  if (!(getMaxNorm().convertToDouble() > 0.0))
    return emitOpError("max_norm must be > 0, got ")
           << getMaxNorm().convertToDouble();
  return success();
}

LogicalResult AllReduceOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getXs().getTypes());
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getXs().empty())
    return emitOpError("needs at least one tensor to reduce");
  Type element = cast<ShapedType>(getXs().front().getType()).getElementType();
  for (Value x : getXs())
    if (cast<ShapedType>(x.getType()).getElementType() != element)
      return emitOpError("operands share one element type (one message); "
                         "got ")
             << element << " and "
             << cast<ShapedType>(x.getType()).getElementType();
  Reduction reduction = getReduction();
  if ((reduction == Reduction::Sum || reduction == Reduction::Mean) &&
      !isa<FloatType>(element))
    return emitOpError("reduction \"")
           << stringifyReduction(reduction) << "\" needs float operands, got "
           << element << " (min and max take any type)";
  return success();
}

} // namespace amp::tg

#define GET_OP_CLASSES
#include "amp/Dialect/TG/IR/TGOps.cpp.inc"
