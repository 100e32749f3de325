//===- TGTensorCorePadding.cpp - Padding tg contractions for Tensor Cores -===//
//
// TensorCoreShapeOpInterface::padTensorCoreDims for tg's products and
// convolutions: each operand gets zeros appended along the axes that hold
// a padded dimension (tg.pad), the op runs on the padded shapes, and each
// result is sliced back to its type (tg.slice). Zeros add nothing to a
// product's or a convolution's sums, so every element the users read is
// the same sum; tg-autodiff differentiates through the pad and the slice,
// so gradients pass the same way and the padded entries' are zero.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace amp::tg {

namespace {

/// `value` with `extra[axis]` zeros appended along each axis; itself when
/// there is nothing to add.
Value padEnd(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> extra) {
  if (llvm::all_of(extra, [](int64_t e) { return e == 0; }))
    return value;
  SmallVector<int64_t> low(extra.size(), 0);
  return PadOp::create(b, loc, value, b.getDenseI64ArrayAttr(low),
                       b.getDenseI64ArrayAttr(extra), b.getF64FloatAttr(0.0));
}

/// `value` cut back to `type`'s shape from its origin; itself when the
/// shapes are equal.
Value sliceTo(OpBuilder &b, Location loc, Value value, Type type) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
  if (cast<RankedTensorType>(value.getType()).getShape() == shape)
    return value;
  SmallVector<int64_t> offsets(shape.size(), 0);
  return SliceOp::create(b, loc, value, b.getDenseI64ArrayAttr(offsets),
                         b.getDenseI64ArrayAttr(shape), DenseI64ArrayAttr());
}

/// Zeros to add per axis of a tensor of `type`: `grow[axis]` where set.
SmallVector<int64_t> extraFor(Type type,
                              ArrayRef<std::pair<int64_t, int64_t>> grow) {
  SmallVector<int64_t> extra(cast<RankedTensorType>(type).getRank(), 0);
  for (auto [axis, by] : grow)
    extra[axis] += by;
  return extra;
}

/// A product over the last two axes with M, N and K grown by `sizes`.
template <typename ProductOp>
FailureOr<SmallVector<Value>> padProduct(ProductOp op, OpBuilder &b,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<amp::TensorCoreDim> dims =
      cast<amp::TensorCoreShapeOpInterface>(op.getOperation()).getTensorCoreDims();
  int64_t dm = sizes[0] - dims[0].size, dn = sizes[1] - dims[1].size,
          dk = sizes[2] - dims[2].size;
  int64_t rank = op.getA().getType().getRank();
  int64_t last = rank - 1, prev = rank - 2;
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  // a is [M, K] ([K, M] transposed), b is [K, N] ([N, K] transposed).
  Value a = padEnd(b, op.getLoc(), op.getA(),
                   extraFor(op.getA().getType(),
                            {{ta ? last : prev, dm}, {ta ? prev : last, dk}}));
  Value bv = padEnd(b, op.getLoc(), op.getB(),
                    extraFor(op.getB().getType(),
                             {{tb ? last : prev, dk}, {tb ? prev : last, dn}}));
  Value product = ProductOp::create(
      b, op.getLoc(), a, bv, op.getTransposeAAttr(), op.getTransposeBAttr());
  return SmallVector<Value>{sliceTo(b, op.getLoc(), product, op.getType())};
}

/// The channel axis of an activation and the filter's input and output
/// channel axes under `layout` (filters are OHWI for NHWC, OIHW for NCHW).
struct ConvAxes {
  int64_t channel, filterIn, filterOut = 0;
};
ConvAxes convAxes(Layout layout) {
  return layout == Layout::NHWC ? ConvAxes{3, 3} : ConvAxes{1, 1};
}

/// Input channels grown by `in`, output channels by `out`.
FailureOr<SmallVector<Value>> padConv(Conv2DOp op, OpBuilder &b, int64_t in,
                                      int64_t out) {
  ConvAxes axes = convAxes(op.getLayout());
  Location loc = op.getLoc();
  Value x = padEnd(b, loc, op.getX(),
                   extraFor(op.getX().getType(), {{axes.channel, in}}));
  Value w = padEnd(b, loc, op.getW(),
                   extraFor(op.getW().getType(),
                            {{axes.filterIn, in}, {axes.filterOut, out}}));
  Value y =
      Conv2DOp::create(b, loc, x, w, op.getStridesAttr(), op.getPaddingAttr(),
                       op.getDilationsAttr(), op.getLayoutAttr());
  return SmallVector<Value>{sliceTo(b, loc, y, op.getType())};
}

FailureOr<SmallVector<Value>> padConv(Conv2DBackwardInputOp op, OpBuilder &b,
                                      int64_t in, int64_t out) {
  ConvAxes axes = convAxes(op.getLayout());
  Location loc = op.getLoc();
  Value dy = padEnd(b, loc, op.getDy(),
                    extraFor(op.getDy().getType(), {{axes.channel, out}}));
  Value w = padEnd(b, loc, op.getW(),
                   extraFor(op.getW().getType(),
                            {{axes.filterIn, in}, {axes.filterOut, out}}));
  auto dxType = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(dxType.getShape());
  shape[axes.channel] += in;
  Value dx = Conv2DBackwardInputOp::create(
      b, loc, dxType.clone(shape), dy, w, op.getStridesAttr(),
      op.getPaddingAttr(), op.getDilationsAttr(), op.getLayoutAttr());
  return SmallVector<Value>{sliceTo(b, loc, dx, dxType)};
}

FailureOr<SmallVector<Value>> padConv(Conv2DBackwardFilterOp op, OpBuilder &b,
                                      int64_t in, int64_t out) {
  ConvAxes axes = convAxes(op.getLayout());
  Location loc = op.getLoc();
  Value x = padEnd(b, loc, op.getX(),
                   extraFor(op.getX().getType(), {{axes.channel, in}}));
  Value dy = padEnd(b, loc, op.getDy(),
                    extraFor(op.getDy().getType(), {{axes.channel, out}}));
  auto dwType = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(dwType.getShape());
  shape[axes.filterIn] += in;
  shape[axes.filterOut] += out;
  Value dw = Conv2DBackwardFilterOp::create(
      b, loc, dwType.clone(shape), x, dy, op.getStridesAttr(),
      op.getPaddingAttr(), op.getDilationsAttr(), op.getLayoutAttr());
  return SmallVector<Value>{sliceTo(b, loc, dw, dwType)};
}

/// A convolution with its two channel dimensions grown to `sizes`.
template <typename ConvOp>
FailureOr<SmallVector<Value>> padChannels(ConvOp op, OpBuilder &b,
                                          ArrayRef<int64_t> sizes) {
  SmallVector<amp::TensorCoreDim> dims =
      cast<amp::TensorCoreShapeOpInterface>(op.getOperation()).getTensorCoreDims();
  return padConv(op, b, sizes[0] - dims[0].size, sizes[1] - dims[1].size);
}

} // namespace

FailureOr<SmallVector<Value>> padTensorCoreDims(Operation *op, OpBuilder &b,
                                                ArrayRef<int64_t> sizes) {
  return llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case<MatmulOp, BatchMatmulOp>(
          [&](auto product) { return padProduct(product, b, sizes); })
      .Case<Conv2DOp, Conv2DBackwardInputOp, Conv2DBackwardFilterOp>(
          [&](auto conv) { return padChannels(conv, b, sizes); })
      .Default([](Operation *) { return failure(); });
}

} // namespace amp::tg
