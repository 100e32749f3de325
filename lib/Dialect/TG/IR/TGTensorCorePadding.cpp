//===- TGTensorCorePadding.cpp - Padding tg contractions for Tensor Cores -===//
//
// TensorCoreShapeOpInterface::padTensorCoreDims for tg's products and
// convolutions: each operand gets zeros appended along the axes that hold
// a padded dimension (tg.pad), the op runs on the padded shapes, and each
// result is sliced back to its type (tg.slice). Zeros add nothing to a
// product's or a convolution's sums, so every element the users read is
// the same sum; the first operand's zeros are -0.0, so each added term is
// -0.0 and a sum of -0.0 stays -0.0 (with +0.0 it would become +0.0).
// tg-autodiff differentiates through the pad and the slice, so gradients
// pass the same way and the padded entries' are zero.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include <array>
#include <type_traits>

using namespace mlir;

namespace amp::tg {

namespace {

/// `value` with `extra[axis]` zeros (-0.0 for `negativeZero`) appended
/// along each axis; itself when there is nothing to add.
Value padEnd(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> extra,
             bool negativeZero = false) {
  if (llvm::all_of(extra, [](int64_t e) { return e == 0; }))
    return value;
  SmallVector<int64_t> low(extra.size(), 0);
  return PadOp::create(b, loc, value, b.getDenseI64ArrayAttr(low),
                       b.getDenseI64ArrayAttr(extra),
                       b.getF64FloatAttr(negativeZero ? -0.0 : 0.0));
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

/// How much each Tensor Core dimension of `op` grows to reach `sizes`.
SmallVector<int64_t> growthTo(Operation *op, ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> growth;
  for (auto [dim, size] :
       llvm::zip(cast<amp::TensorCoreShapeOpInterface>(op).getTensorCoreDims(),
                 sizes))
    growth.push_back(size - dim.size);
  return growth;
}

/// A product over the last two axes with M, N and K grown to `sizes`.
template <typename ProductOp>
FailureOr<SmallVector<Value>> padProduct(ProductOp op, OpBuilder &b,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> growth = growthTo(op, sizes);
  int64_t dm = growth[0], dn = growth[1], dk = growth[2];
  int64_t rank = op.getA().getType().getRank();
  int64_t last = rank - 1, prev = rank - 2;
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  // a is [M, K] ([K, M] transposed), b is [K, N] ([N, K] transposed).
  Value a = padEnd(b, op.getLoc(), op.getA(),
                   extraFor(op.getA().getType(),
                            {{ta ? last : prev, dm}, {ta ? prev : last, dk}}),
                   /*negativeZero=*/true);
  Value bv = padEnd(b, op.getLoc(), op.getB(),
                    extraFor(op.getB().getType(),
                             {{tb ? last : prev, dk}, {tb ? prev : last, dn}}));
  Value product = ProductOp::create(
      b, op.getLoc(), a, bv, op.getTransposeAAttr(), op.getTransposeBAttr());
  return SmallVector<Value>{sliceTo(b, op.getLoc(), product, op.getType())};
}

/// Where a convolution's value holds the input and the output channels
/// (-1: it holds none).
struct ChannelAxes {
  int64_t in = -1, out = -1;
};

/// The axes of a convolution's operands, then of its result, under its
/// layout: activations hold channels on axis 3 (NHWC) or 1 (NCHW), and
/// filters (OHWI, OIHW) their output channels on axis 0 and their input
/// channels where activations hold theirs.
template <typename ConvOp> std::array<ChannelAxes, 3> channelAxes(ConvOp op) {
  int64_t channel = op.getLayout() == Layout::NHWC ? 3 : 1;
  ChannelAxes input{channel, -1}, output{-1, channel}, filter{channel, 0};
  if constexpr (std::is_same_v<ConvOp, Conv2DOp>)
    return {input, filter, output}; // x, w -> y
  else if constexpr (std::is_same_v<ConvOp, Conv2DBackwardInputOp>)
    return {output, filter, input}; // dy, w -> dx
  else
    return {input, output, filter}; // x, dy -> dw
}

/// Zeros for a value whose channel axes are `axes`.
SmallVector<int64_t> channelExtra(Type type, ChannelAxes axes, int64_t in,
                                  int64_t out) {
  SmallVector<std::pair<int64_t, int64_t>> grow;
  if (axes.in >= 0)
    grow.push_back({axes.in, in});
  if (axes.out >= 0)
    grow.push_back({axes.out, out});
  return extraFor(type, grow);
}

/// A convolution with its two channel dimensions grown to `sizes`: its two
/// operands padded, the op cloned onto them with the grown result type, the
/// result sliced back.
template <typename ConvOp>
FailureOr<SmallVector<Value>> padChannels(ConvOp op, OpBuilder &b,
                                          ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> growth = growthTo(op, sizes);
  int64_t in = growth[0], out = growth[1];
  std::array<ChannelAxes, 3> axes = channelAxes(op);
  Location loc = op.getLoc();
  SmallVector<Value> operands;
  for (auto [index, operand, operandAxes] :
       llvm::enumerate(op->getOperands(), ArrayRef(axes).take_front(2)))
    operands.push_back(
        padEnd(b, loc, operand,
               channelExtra(operand.getType(), operandAxes, in, out),
               /*negativeZero=*/index == 0));
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (auto [size, by] : llvm::zip(shape, channelExtra(type, axes[2], in, out)))
    size += by;
  Operation *padded = b.clone(*op.getOperation());
  padded->setOperands(operands);
  padded->getResult(0).setType(type.clone(shape));
  return SmallVector<Value>{sliceTo(b, loc, padded->getResult(0), type)};
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
