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
#include "TensorViews.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace amp;

namespace {

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
    ResultPlacement placed = placeResult(product);
    Operation *out = placed.transpose;
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
        rewriter, fusedLoc(fused), placed.type, av.storage, encodeView(av),
        bv.storage, encodeView(bv), placed.view(type.getShape()));
    if (out) {
      rewriter.replaceOp(out, strided);
      rewriter.eraseOp(product);
    } else {
      rewriter.replaceOp(product, strided);
    }
    eraseUnreadViewOps(rewriter, {av, bv});
    return success();
  }
};

} // namespace

void amp::populateStridedProductPatterns(RewritePatternSet &patterns,
                                         RuntimeFusionControlFn control) {
  addFusionPattern<StridedProduct>(patterns, std::move(control));
}
