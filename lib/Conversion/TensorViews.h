//===- TensorViews.h - Values as strided views of tensors -------*- C++ -*-===//
//
// What the fusions that read and write heads where they lie share: a value
// seen through its chain of transposes, reshapes and slices as a strided
// view of the tensor the chain starts from, in the runtime's view encoding
// ({offset, shape..., strides...}), and the erasure of the chain's ops
// once nothing reads them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_TENSORVIEWS_H
#define AMP_LIB_CONVERSION_TENSORVIEWS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace amp {

/// A value as a view of the tensor `storage`: element (i...) of the value
/// lies at offset + sum of i_d * strides[d] of storage's dense order.
/// `ops` are the view ops between them, the value's own first.
struct ValueView {
  mlir::Value storage;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> shape, strides;
  llvm::SmallVector<mlir::Operation *> ops;
};

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> denseStrides(llvm::ArrayRef<int64_t> shape);

/// Whether `v` is a tensor of static shape.
bool isStatic(mlir::Value v);

/// `v` (static) as a view of the tensor that its chain of transposes,
/// reshapes (tg.reshape, amprt.view) and slices starts from: as far back
/// as each step keeps a view (a reshape across non-contiguous dimensions,
/// or a dynamic shape, stops the chain there).
ValueView viewOf(mlir::Value v);

/// op(x) of a product: the last two dimensions swapped.
void transposeLast(ValueView &v);

/// {offset, shape..., strides...}, the runtime's strided views.
llvm::SmallVector<int64_t> encodeView(int64_t offset,
                                      llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<int64_t> strides);
inline llvm::SmallVector<int64_t> encodeView(const ValueView &v) {
  return encodeView(v.offset, v.shape, v.strides);
}

/// Whether a view's chain copies when lowered as written (a transpose or
/// a slice; reshapes already view).
bool copies(const ValueView &v);

/// Where an op's result `value` is written: through the tg.transpose that
/// alone reads it (the fused op then replaces that transpose and its
/// result has the transpose's type), or densely.
struct ResultPlacement {
  mlir::Operation *transpose = nullptr;
  mlir::RankedTensorType type;
  /// Strides of `value`'s dimensions in the written tensor.
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> view(llvm::ArrayRef<int64_t> shape) const {
    return encodeView(0, shape, strides);
  }
};
ResultPlacement placeResult(mlir::Value value);

/// Erases the ops of `views`' chains that nothing reads any more, each
/// after its readers.
void eraseUnreadViewOps(mlir::PatternRewriter &rewriter,
                        llvm::ArrayRef<ValueView> views);

} // namespace amp

#endif // AMP_LIB_CONVERSION_TENSORVIEWS_H
