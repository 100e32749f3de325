//===- StridedProductFusion.cpp - Batched products over views -------------===//
//
// A tg.batch_matmul whose operands are transposes (of reshapes, of
// slices, strided or not) of tensors, or whose result only a transpose reads,
// becomes an amprt.strided_batch_matmul over views of those tensors: the
// attention heads' transposes into and out of their products (eight a
// transformer layer, forward and backward) copy nothing.
//
//===----------------------------------------------------------------------===//

#include "FusionPattern.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace amp;

namespace {

/// A value as a view of the tensor `storage`: element (i...) of the value
/// lies at offset + sum of i_d * strides[d] of storage's dense order.
/// `ops` are the view ops between them, the value's own first.
struct ValueView {
  Value storage;
  int64_t offset = 0;
  SmallVector<int64_t> shape, strides;
  SmallVector<Operation *> ops;
};

SmallVector<int64_t> denseStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

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

bool isStatic(Value v) {
  return cast<RankedTensorType>(v.getType()).hasStaticShape();
}

/// `v` (static) as a view of the tensor that its chain of transposes,
/// reshapes (tg.reshape, amprt.view) and slices starts from:
/// as far back as each step keeps a view (a reshape across non-contiguous
/// dimensions, or a dynamic shape, stops the chain there).
ValueView viewOf(Value v) {
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

/// op(x) of a product: the last two dimensions swapped when transposed.
void transposeLast(ValueView &v) {
  size_t r = v.shape.size();
  std::swap(v.shape[r - 1], v.shape[r - 2]);
  std::swap(v.strides[r - 1], v.strides[r - 2]);
}

/// {offset, shape..., strides...}, amprt_batch_matmul_strided's views.
SmallVector<int64_t> encode(int64_t offset, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> strides) {
  SmallVector<int64_t> view{offset};
  view.append(shape.begin(), shape.end());
  view.append(strides.begin(), strides.end());
  return view;
}

/// Whether a view's chain copies when lowered as written (a transpose or
/// a slice; reshapes already view).
bool copies(const ValueView &v) {
  return llvm::any_of(v.ops, [](Operation *op) {
    return isa<tg::TransposeOp, tg::SliceOp>(op);
  });
}

struct StridedProduct : OpFusionPattern<tg::BatchMatmulOp> {
  using OpFusionPattern::OpFusionPattern;
  LogicalResult matchAndRewrite(tg::BatchMatmulOp product,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(product.getType());
    Value a = product.getA(), b = product.getB();
    Type element = type.getElementType();
    if (!isStatic(a) || !isStatic(b) || !type.hasStaticShape() ||
        type.getRank() > 8 || getElementTypeOrSelf(a.getType()) != element ||
        getElementTypeOrSelf(b.getType()) != element)
      return failure();
    ValueView av = viewOf(a), bv = viewOf(b);
    // A cast read as it is read has its input's tensor, of another type.
    if (isa_and_nonnull<rt::CastOnReadOp>(av.storage.getDefiningOp()) ||
        isa_and_nonnull<rt::CastOnReadOp>(bv.storage.getDefiningOp()))
      return failure();
    if (product.getTransposeA())
      transposeLast(av);
    if (product.getTransposeB())
      transposeLast(bv);
    // A transpose that alone reads the product takes it where it lies.
    tg::TransposeOp out =
        product->hasOneUse()
            ? dyn_cast<tg::TransposeOp>(*product->getUsers().begin())
            : nullptr;
    RankedTensorType resultType = out ? out.getType() : type;
    SmallVector<int64_t> cStrides = denseStrides(type.getShape());
    if (out) {
      SmallVector<int64_t> written = denseStrides(resultType.getShape());
      for (auto [d, from] : llvm::enumerate(out.getPerm()))
        cStrides[from] = written[d];
    }
    if (!out && !copies(av) && !copies(bv))
      return failure();
    SmallVector<Operation *> fused(llvm::reverse(av.ops));
    fused.append(bv.ops.rbegin(), bv.ops.rend());
    fused.push_back(product);
    if (out)
      fused.push_back(out);
    if (!allowed(fused))
      return failure();
    auto strided = rt::StridedBatchMatmulOp::create(
        rewriter, fusedLoc(fused), resultType, av.storage,
        encode(av.offset, av.shape, av.strides), bv.storage,
        encode(bv.offset, bv.shape, bv.strides),
        encode(0, type.getShape(), cStrides));
    if (out) {
      rewriter.replaceOp(out, strided);
      rewriter.eraseOp(product);
    } else {
      rewriter.replaceOp(product, strided);
    }
    // The view ops nothing reads any more, each after its reader.
    llvm::SetVector<Operation *> chain;
    chain.insert(av.ops.begin(), av.ops.end());
    chain.insert(bv.ops.begin(), bv.ops.end());
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
    return success();
  }
};

} // namespace

void amp::populateStridedProductPatterns(RewritePatternSet &patterns,
                                         RuntimeFusionControlFn control) {
  addFusionPattern<StridedProduct>(patterns, std::move(control));
}
