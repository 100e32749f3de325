//===- LinalgTensorCorePadding.cpp - Padding linalg contractions ----------===//
//
// A linalg op's Tensor Core dimensions are loops. Growing a loop means
// appending zeros along every operand axis its indexing map reads with that
// loop alone (tensor.pad), running a clone of the op on the padded operands,
// and cutting each result back to its old sizes (tensor.extract_slice).
// A grown parallel loop only adds results that are cut away, so the body
// must be safe to run on zeros (pure and speculatable: no division that
// would trap). A grown reduction loop adds terms to each sum, so it is
// done only where each term is a product of values that zeros keep at
// zero: the body is a sum of products whose factors reach the block's
// arguments through casts alone, and the accumulator reaches the sum
// through widening casts only (a truncation there would round every extra
// step's sum again). The first input's zeros are -0.0, so each added term
// is -0.0 and every sum keeps its bits, -0.0 included.
//
//===----------------------------------------------------------------------===//

#include "TensorCorePadding.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// The ops a padded reduction's body may hold: sums, products, and casts,
/// which keep a zero a zero.
bool keepsZeros(Operation &op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::AddIOp, arith::MulIOp,
             arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
             arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, linalg::YieldOp>(
      op);
}

/// Whether the body may run on padded zeros: every op in it is pure and
/// speculatable (an integer division by a padded zero would trap).
bool safeOnZeros(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  return body && llvm::all_of(body->without_terminator(), [](Operation &inner) {
           return isPure(&inner) && isSpeculatable(&inner);
         });
}

/// Whether `value` is `arg`, widened by casts that lose nothing.
bool widens(Value value, BlockArgument arg) {
  while (Operation *cast = value.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(cast))
      return false;
    value = cast->getOperand(0);
  }
  return value == arg;
}

/// The sum the body yields, through the casts after it.
Operation *yieldedSum(Block &body) {
  Value value = body.getTerminator()->getOperand(0);
  while (Operation *def = value.getDefiningOp()) {
    if (isa<arith::AddFOp, arith::AddIOp>(def))
      return def;
    if (def->getNumOperands() != 1)
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

/// Whether zeros appended along a reduction loop leave every sum as it was.
bool zerosAddNothing(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto mulAdd = [](Operation *mul, Operation *add) {
    return (isa<arith::MulFOp>(mul) && isa<arith::AddFOp>(add)) ||
           (isa<arith::MulIOp>(mul) && isa<arith::AddIOp>(add));
  };
  if (!body || op.getNumDpsInits() != 1 ||
      !linalg::detail::isContractionBody(*body, mulAdd) ||
      !llvm::all_of(*body, keepsZeros))
    return false;
  Operation *sum = yieldedSum(*body);
  BlockArgument acc = body->getArgument(op.getNumDpsInputs());
  return sum && llvm::any_of(sum->getOperands(),
                             [&](Value v) { return widens(v, acc); });
}

/// The value appended to `operand` (0 for the first input of a padded
/// reduction, -0.0 where it is a float), or null for an element type with
/// no zero.
Value padValue(OpBuilder &b, Location loc, Value operand, bool negativeZero) {
  Type element = cast<RankedTensorType>(operand.getType()).getElementType();
  if (auto real = dyn_cast<FloatType>(element))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(real, negativeZero ? -0.0 : 0.0));
  if (isa<IntegerType>(element))
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0));
  return {};
}

/// Zeros to append per axis of `operand`, whose map is `map`, for the loops
/// grown by `grow` (loop -> zeros); failure when a grown loop appears in an
/// index expression with anything else.
FailureOr<SmallVector<int64_t>>
axisGrowth(AffineMap map, const DenseMap<unsigned, int64_t> &grow) {
  SmallVector<int64_t> extra(map.getNumResults(), 0);
  for (auto [axis, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      extra[axis] = grow.lookup(dim.getPosition());
      continue;
    }
    for (auto [loop, by] : grow)
      if (expr.isFunctionOfDim(loop))
        return failure();
  }
  return extra;
}

bool grows(ArrayRef<int64_t> extra) {
  return llvm::any_of(extra, [](int64_t e) { return e != 0; });
}

/// `value` with `extra[axis]` copies of `zero` appended along each axis.
Value padEnd(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> extra,
             bool negativeZero) {
  if (!grows(extra))
    return value;
  SmallVector<OpFoldResult> low(extra.size(), b.getIndexAttr(0)), high;
  for (int64_t e : extra)
    high.push_back(b.getIndexAttr(e));
  return tensor::PadOp::create(b, loc, RankedTensorType(), value, low, high,
                               padValue(b, loc, value, negativeZero));
}

/// `value` cut back to the sizes of `like`, from its origin.
Value sliceLike(OpBuilder &b, Location loc, Value value, Value like) {
  if (value.getType() == like.getType())
    return value;
  auto type = cast<RankedTensorType>(like.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, value, offsets,
                                        tensor::getMixedSizes(b, loc, like),
                                        strides);
}

/// Loop -> zeros to append, for the dimensions `sizes` grows; failure for
/// a grown dimension of several loops.
FailureOr<DenseMap<unsigned, int64_t>>
loopGrowth(ArrayRef<amp::LinalgTensorCoreDim> dims, ArrayRef<int64_t> sizes) {
  DenseMap<unsigned, int64_t> grow;
  for (auto [found, size] : llvm::zip_equal(dims, sizes)) {
    if (size == found.dim.size)
      continue;
    if (found.loops.size() != 1 || ShapedType::isDynamic(found.dim.size))
      return failure();
    grow[found.loops.front()] = size - found.dim.size;
  }
  return grow;
}

} // namespace

FailureOr<SmallVector<Value>>
amp::padLinalgTensorCoreDims(linalg::LinalgOp op, OpBuilder &b,
                             ArrayRef<int64_t> sizes) {
  SmallVector<LinalgTensorCoreDim> dims = linalgTensorCoreDims(op);
  if (dims.size() != sizes.size() || !op.hasPureTensorSemantics())
    return failure();
  FailureOr<DenseMap<unsigned, int64_t>> grow = loopGrowth(dims, sizes);
  if (failed(grow))
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool growsReduction = llvm::any_of(*grow, [&](auto loopAndBy) {
    return iterators[loopAndBy.first] == utils::IteratorType::reduction;
  });
  if (!safeOnZeros(op) || (growsReduction && !zerosAddNothing(op)))
    return failure();
  // Every operand's growth first, so that nothing is built on failure.
  SmallVector<SmallVector<int64_t>> growth;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<SmallVector<int64_t>> extra =
        axisGrowth(op.getMatchingIndexingMap(&operand), *grow);
    Type element = getElementTypeOrSelf(operand.get().getType());
    if (failed(extra) ||
        (grows(*extra) && !isa<FloatType, IntegerType>(element)))
      return failure();
    growth.push_back(*extra);
  }
  Location loc = op.getLoc();
  SmallVector<Value> operands;
  for (auto [operand, extra] : llvm::zip(op->getOpOperands(), growth))
    operands.push_back(padEnd(b, loc, operand.get(), extra,
                              growsReduction &&
                                  operand.getOperandNumber() == 0));
  SmallVector<Type> resultTypes;
  for (OpOperand &init : op.getDpsInitsMutable())
    resultTypes.push_back(operands[init.getOperandNumber()].getType());
  Operation *padded = clone(b, op.getOperation(), resultTypes, operands);
  SmallVector<Value> results;
  for (auto [result, init] :
       llvm::zip(padded->getResults(), op.getDpsInitsMutable()))
    results.push_back(sliceLike(b, loc, result, init.get()));
  return results;
}
