//===- PadForTensorCores.cpp - Zeros that put contractions on Tensor Cores ===//
//
// --amp-pad-for-tensor-cores: every contraction whose Tensor Core dimension
// misses the multiple (TensorCoreAlignment.h) and is owned by a parameter
// is rewritten by its TensorCoreShapeOpInterface to run on shapes padded
// with zeros, its results sliced back. Dimensions no parameter owns (a
// batch of 30 rows) are the user's to change and are left as they are.
// The rewritten op records the sizes it was padded from in
// `amp.tensor_core_padded`, which the precision report reads.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreAlignment.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace amp {
#define GEN_PASS_DEF_PADFORTENSORCORESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// The sizes to pad `dims` to: the padded size of each misaligned dimension
/// a parameter owns, the dimension's own size otherwise.
SmallVector<int64_t> paddedSizes(ArrayRef<TensorCoreDim> dims,
                                 const TensorCoreAlignment &alignment) {
  SmallVector<int64_t> sizes;
  for (const TensorCoreDim &dim : dims) {
    int64_t size = dim.size;
    for (const MisalignedDim &miss : alignment.misaligned)
      if (miss.name == dim.name && miss.parameterOwned)
        size = miss.padded;
    sizes.push_back(size);
  }
  return sizes;
}

/// {dimension: the size it had} for each dimension padded, for the report.
DictionaryAttr paddedFrom(MLIRContext *ctx, ArrayRef<TensorCoreDim> dims,
                          ArrayRef<int64_t> sizes) {
  Builder b(ctx);
  SmallVector<NamedAttribute> from;
  for (auto [dim, size] : llvm::zip(dims, sizes))
    if (size != dim.size)
      from.push_back(b.getNamedAttr(dim.name, b.getI64IntegerAttr(dim.size)));
  return b.getDictionaryAttr(from);
}

/// The ops a builder creates.
struct CreatedOps : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

struct PadForTensorCoresPass
    : amp::impl::PadForTensorCoresPassBase<PadForTensorCoresPass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned bits = precision == LowPrecision::FP8 ? 8 : 16;
    SmallVector<TensorCoreShapeOpInterface> contractions;
    getOperation().walk(
        [&](TensorCoreShapeOpInterface op) { contractions.push_back(op); });
    for (TensorCoreShapeOpInterface op : contractions)
      padOne(op, bits);
  }

  void padOne(TensorCoreShapeOpInterface op, unsigned bits) {
    std::optional<TensorCoreAlignment> alignment =
        checkTensorCoreAlignment(op, bits);
    if (!alignment || !alignment->paddable())
      return;
    SmallVector<TensorCoreDim> dims = op.getTensorCoreDims();
    SmallVector<int64_t> sizes = paddedSizes(dims, *alignment);
    OpBuilder builder(op);
    CreatedOps created;
    builder.setListener(&created);
    FailureOr<SmallVector<Value>> replacements =
        op.padTensorCoreDims(builder, sizes);
    if (failed(replacements)) {
      if (remarks)
        emitRemark(op.getLoc())
            << "amp: misses Tensor Core alignment ("
            << alignment->describeMisaligned() << ") but cannot be padded";
      return;
    }
    // The rebuilt contraction is the op of the original's kind among those
    // the model built (the rest are pads and slices).
    DictionaryAttr from = paddedFrom(op->getContext(), dims, sizes);
    for (Operation *padded : created.ops)
      if (padded->getName() == op->getName())
        padded->setAttr(AMPDialect::kTensorCorePaddedAttrName, from);
    if (remarks)
      emitRemark(op.getLoc())
          << "amp: padded for Tensor Cores (multiples of "
          << alignment->multiple << "): " << describe(dims, sizes);
    op->replaceAllUsesWith(*replacements);
    op->erase();
    ++numPadded;
  }

  /// "N 10 -> 16, K 100 -> 104" for the dimensions padded.
  static std::string describe(ArrayRef<TensorCoreDim> dims,
                              ArrayRef<int64_t> sizes) {
    std::string text;
    for (auto [dim, size] : llvm::zip(dims, sizes))
      if (size != dim.size)
        text += (text.empty() ? "" : ", ") + dim.name.str() + " " +
                std::to_string(dim.size) + " -> " + std::to_string(size);
    return text;
  }
};

} // namespace
