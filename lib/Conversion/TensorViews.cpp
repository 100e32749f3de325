//===- TensorViews.cpp - Values as strided views of tensors ---------------===//

#include "TensorViews.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace amp;

SmallVector<int64_t> amp::denseStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

namespace {
ValueView denseView(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return {v,
          0,
          SmallVector<int64_t>(type.getShape()),
          denseStrides(type.getShape()),
          {}};
}

/// The strides that give `view`'s elements, in order, the shape `to`:
/// each run of `view`'s dimensions that lie contiguously is split into
/// new dimensions of the same size; none where a new dimension would span
/// two runs (or a size is 0).
std::optional<SmallVector<int64_t>> reshapedStrides(const ValueView &view,
                                                    ArrayRef<int64_t> to) {
  SmallVector<int64_t> sizes, strides; // view's dimensions but the 1s
  for (auto [size, stride] : llvm::zip(view.shape, view.strides)) {
    if (size == 0)
      return std::nullopt;
    if (size != 1) {
      sizes.push_back(size);
      strides.push_back(stride);
    }
  }
  SmallVector<int64_t> out(to.size(), 1);
  int64_t j = (int64_t)to.size() - 1;
  for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
    int64_t runStride = strides[i], runSize = sizes[i];
    while (i > 0 && strides[i - 1] == strides[i] * sizes[i])
      runSize *= sizes[--i];
    int64_t covered = 1;
    for (; j >= 0 && (covered < runSize || to[j] == 1); --j) {
      out[j] = runStride * covered;
      covered *= to[j];
    }
    if (covered != runSize)
      return std::nullopt;
  }
  for (; j >= 0; --j)
    if (to[j] != 1)
      return std::nullopt;
  return out;
}

} // namespace

bool amp::isStatic(Value v) {
  return cast<RankedTensorType>(v.getType()).hasStaticShape();
}

ValueView amp::viewOf(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumOperands() == 0 || !isStatic(def->getOperand(0)))
    return denseView(v);
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  if (auto transpose = dyn_cast<tg::TransposeOp>(def)) {
    ValueView in = viewOf(transpose.getX()), out = in;
    for (auto [d, from] : llvm::enumerate(transpose.getPerm())) {
      out.shape[d] = in.shape[from];
      out.strides[d] = in.strides[from];
    }
    out.ops.insert(out.ops.begin(), def);
    return out;
  }
  if (isa<tg::ReshapeOp, rt::ViewOp>(def)) {
    ValueView in = viewOf(def->getOperand(0));
    std::optional<SmallVector<int64_t>> strides = reshapedStrides(in, shape);
    if (!strides)
      return denseView(v);
    in.shape.assign(shape.begin(), shape.end());
    in.strides = *strides;
    in.ops.insert(in.ops.begin(), def);
    return in;
  }
  if (auto slice = dyn_cast<tg::SliceOp>(def)) {
    ValueView in = viewOf(slice.getX());
    for (auto [d, offset] : llvm::enumerate(slice.getOffsets())) {
      in.offset += offset * in.strides[d];
      if (slice.getStrides())
        in.strides[d] *= (*slice.getStrides())[d];
    }
    in.shape.assign(shape.begin(), shape.end());
    in.ops.insert(in.ops.begin(), def);
    return in;
  }
  return denseView(v);
}

void amp::transposeLast(ValueView &v) {
  size_t r = v.shape.size();
  std::swap(v.shape[r - 1], v.shape[r - 2]);
  std::swap(v.strides[r - 1], v.strides[r - 2]);
}

SmallVector<int64_t> amp::encodeView(int64_t offset, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> strides) {
  SmallVector<int64_t> view{offset};
  view.append(shape.begin(), shape.end());
  view.append(strides.begin(), strides.end());
  return view;
}

bool amp::copies(const ValueView &v) {
  return llvm::any_of(v.ops, [](Operation *op) {
    return isa<tg::TransposeOp, tg::SliceOp>(op);
  });
}

ResultPlacement amp::placeResult(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  ResultPlacement placed{nullptr, type, denseStrides(type.getShape())};
  auto out = value.hasOneUse()
                 ? dyn_cast<tg::TransposeOp>(*value.getUsers().begin())
                 : nullptr;
  if (!out)
    return placed;
  placed.transpose = out;
  placed.type = out.getType();
  SmallVector<int64_t> written = denseStrides(placed.type.getShape());
  for (auto [d, from] : llvm::enumerate(out.getPerm()))
    placed.strides[from] = written[d];
  return placed;
}

void amp::eraseUnreadViewOps(PatternRewriter &rewriter,
                             ArrayRef<ValueView> views) {
  llvm::SetVector<Operation *> chain;
  for (const ValueView &v : views)
    chain.insert(v.ops.begin(), v.ops.end());
  llvm::DenseSet<Operation *> erased;
  for (bool again = true; again;) {
    again = false;
    for (Operation *op : chain)
      if (!erased.contains(op) && op->use_empty()) {
        rewriter.eraseOp(op);
        erased.insert(op);
        again = true;
      }
  }
}
