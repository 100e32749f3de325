//===- TosaTensorCorePadding.cpp - Padding TOSA contractions --------------===//
//
// tosa.matmul [N, H, C] x [N, C, W] grows M (H), K (C) and N (W); the
// convolutions grow their input channels (the input's and the weight's
// last axis) and their output channels (the weight's first axis, the
// bias's when it holds one per channel, the output's last). Operands get
// zeros appended (tosa.pad), the op is cloned onto them with the grown
// result type, and the result is cut back (tosa.slice), so the graph stays
// TOSA. Zeros add nothing to the sums (the first operand's are -0.0 where
// it is a float, so each added term is -0.0 and every sum keeps its bits);
// grown outputs are cut away. An axis to grow must be static in every
// operand that holds it.
//
//===----------------------------------------------------------------------===//

#include "TensorCorePadding.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include <type_traits>

using namespace mlir;

namespace {

/// A !tosa.shape constant of `values`.
Value constShape(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({(int64_t)values.size()}, b.getIndexType());
  return tosa::ConstShapeOp::create(
      b, loc, tosa::shapeType::get(b.getContext(), values.size()),
      DenseIntElementsAttr::get(type, values));
}

/// The rank-1 constant tosa.pad appends: -0.0 for `negativeZero` floats,
/// else zero.
Value padConst(OpBuilder &b, Location loc, Value value, bool negativeZero) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  auto real = dyn_cast<FloatType>(element);
  if (!real || !negativeZero)
    return tosa::createPadConstTensor(b, loc, value);
  auto type = RankedTensorType::get({1}, real);
  return tosa::ConstOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, APFloat::getZero(real.getFloatSemantics(),
                                                    /*Negative=*/true)));
}

/// `value` with `extra[axis]` zeros appended along each axis.
Value padEnd(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> extra,
             bool negativeZero) {
  if (llvm::all_of(extra, [](int64_t e) { return e == 0; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> padding, shape(type.getShape());
  for (auto [size, e] : llvm::zip(shape, extra)) {
    padding.append({0, e});
    size += e;
  }
  return tosa::PadOp::create(b, loc, type.clone(shape), value,
                             constShape(b, loc, padding),
                             padConst(b, loc, value, negativeZero));
}

/// Whether every axis `grown` grows is static in `value`.
bool staticWhereGrown(Value value, ArrayRef<int64_t> extra) {
  auto type = cast<RankedTensorType>(value.getType());
  for (auto [size, e] : llvm::zip(type.getShape(), extra))
    if (e != 0 && ShapedType::isDynamic(size))
      return false;
  return true;
}

/// `value` cut back to `type`'s shape from its origin.
Value sliceTo(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  if (value.getType() == type)
    return value;
  SmallVector<int64_t> start(type.getRank(), 0);
  return tosa::SliceOp::create(b, loc, type, value, constShape(b, loc, start),
                               constShape(b, loc, type.getShape()));
}

/// Zeros per axis of a rank-`rank` value: `by` on each axis in `axes`.
SmallVector<int64_t> growth(int64_t rank,
                            ArrayRef<std::pair<int64_t, int64_t>> axes) {
  SmallVector<int64_t> extra(rank, 0);
  for (auto [axis, by] : axes)
    extra[axis] += by;
  return extra;
}

/// What to append to each operand, and to the result, of one op.
struct Growth {
  SmallVector<SmallVector<int64_t>> operands;
  SmallVector<int64_t> result;
};

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// a grows M on axis 1 and K on 2, b K on 1 and N on 2; the zero points
/// stay.
Growth matmulGrowth(tosa::MatMulOp op, ArrayRef<int64_t> by) {
  int64_t m = by[0], n = by[1], k = by[2];
  Growth g{{growth(3, {{1, m}, {2, k}}), growth(3, {{1, k}, {2, n}}), {}, {}},
           growth(3, {{1, m}, {2, n}})};
  g.operands[2].assign(rankOf(op.getAZp()), 0);
  g.operands[3].assign(rankOf(op.getBZp()), 0);
  return g;
}

/// Input channels on the input's and the weight's last axis, output
/// channels on the weight's first, the output's last and the bias's (when
/// it has one per channel, not one for all).
template <typename ConvOp> Growth convGrowth(ConvOp op, ArrayRef<int64_t> by) {
  int64_t in = by[0], out = by[1];
  int64_t inputRank = rankOf(op.getInput()),
          weightRank = rankOf(op.getWeight());
  bool biasPerChannel =
      cast<RankedTensorType>(op.getBias().getType()).getDimSize(0) != 1;
  Growth g;
  for (OpOperand &operand : op->getOpOperands())
    g.operands.push_back(SmallVector<int64_t>(rankOf(operand.get()), 0));
  g.operands[op.getInputMutable().getOperandNumber()] =
      growth(inputRank, {{inputRank - 1, in}});
  g.operands[op.getWeightMutable().getOperandNumber()] =
      growth(weightRank, {{weightRank - 1, in}, {0, out}});
  if (biasPerChannel)
    g.operands[op.getBiasMutable().getOperandNumber()] = growth(1, {{0, out}});
  g.result = growth(rankOf(op->getResult(0)), {{inputRank - 1, out}});
  return g;
}

/// Whether both zero points are known to be zero, so that appended zeros
/// stand for zeros (a quantized operand's zero is its zero point).
template <typename OpT> bool zeroPointsAreZero(OpT op) {
  auto isZero = [](FailureOr<int64_t> zp) { return succeeded(zp) && *zp == 0; };
  if constexpr (std::is_same_v<OpT, tosa::MatMulOp>)
    return isZero(op.getAZeroPoint()) && isZero(op.getBZeroPoint());
  else
    return isZero(op.getInputZeroPoint()) && isZero(op.getWeightZeroPoint());
}

} // namespace

FailureOr<SmallVector<Value>>
amp::padTosaTensorCoreDims(Operation *op, OpBuilder &b,
                           ArrayRef<int64_t> sizes) {
  auto contraction = dyn_cast<TensorCoreShapeOpInterface>(op);
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!contraction || !resultType || !resultType.hasStaticShape())
    return failure();
  SmallVector<TensorCoreDim> dims = contraction.getTensorCoreDims();
  if (dims.size() != sizes.size())
    return failure();
  SmallVector<int64_t> by;
  for (auto [dim, size] : llvm::zip(dims, sizes))
    by.push_back(size - dim.size);
  FailureOr<Growth> grown =
      llvm::TypeSwitch<Operation *, FailureOr<Growth>>(op)
          .Case([&](tosa::MatMulOp m) -> FailureOr<Growth> {
            if (!zeroPointsAreZero(m))
              return failure();
            return matmulGrowth(m, by);
          })
          .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::TransposeConv2DOp>(
              [&](auto conv) -> FailureOr<Growth> {
                if (!zeroPointsAreZero(conv))
                  return failure();
                return convGrowth(conv, by);
              })
          .Default([](Operation *) { return failure(); });
  if (failed(grown))
    return failure();
  for (auto [operand, extra] : llvm::zip(op->getOperands(), grown->operands))
    if (!staticWhereGrown(operand, extra))
      return failure();
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (auto [index, operand, extra] :
       llvm::enumerate(op->getOperands(), grown->operands))
    operands.push_back(padEnd(b, loc, operand, extra, index == 0));
  SmallVector<int64_t> shape(resultType.getShape());
  for (auto [size, e] : llvm::zip(shape, grown->result))
    size += e;
  Operation *padded = b.clone(*op);
  padded->setOperands(operands);
  padded->getResult(0).setType(resultType.clone(shape));
  return SmallVector<Value>{sliceTo(b, loc, padded->getResult(0), resultType)};
}
