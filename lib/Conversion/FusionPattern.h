//===- FusionPattern.h - What runtime fusion patterns share -----*- C++ -*-===//

#ifndef AMP_LIB_CONVERSION_FUSIONPATTERN_H
#define AMP_LIB_CONVERSION_FUSIONPATTERN_H

#include "amp/Conversion/RuntimeFusion.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace amp {

/// What a fusion pattern asks before it fuses.
class FusionControl {
public:
  explicit FusionControl(RuntimeFusionControlFn control)
      : control(std::move(control)) {}
  /// Whether the control function lets `fused` become one op.
  bool allowed(llvm::ArrayRef<mlir::Operation *> fused) const {
    return !control || control(fused);
  }

private:
  RuntimeFusionControlFn control;
};

/// A fusion pattern rooted at ops of type `OpT`.
template <typename OpT>
struct OpFusionPattern : mlir::OpRewritePattern<OpT>, FusionControl {
  OpFusionPattern(mlir::MLIRContext *context, RuntimeFusionControlFn control)
      : mlir::OpRewritePattern<OpT>(context),
        FusionControl(std::move(control)) {}
};

/// A fusion pattern offered any op (each family is applied on its own).
struct AnyOpFusionPattern : mlir::RewritePattern, FusionControl {
  AnyOpFusionPattern(mlir::MLIRContext *context, RuntimeFusionControlFn control)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        FusionControl(std::move(control)) {}
};

/// Adds `PatternT` with `control` to `patterns`.
template <typename PatternT>
void addFusionPattern(mlir::RewritePatternSet &patterns,
                      RuntimeFusionControlFn control) {
  patterns.add<PatternT>(patterns.getContext(), std::move(control));
}

/// Gives `region` (of a new fused op) one block whose arguments stand for
/// `inputs` and clones `ops` into it, in order; returns the mapping from
/// the originals' values to the clones'.
mlir::IRMapping cloneIntoRegion(mlir::PatternRewriter &rewriter,
                                mlir::Region &region, mlir::ValueRange inputs,
                                llvm::ArrayRef<mlir::Operation *> ops);

/// The fused location of `ops`, for the op that runs them.
mlir::Location fusedLoc(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace amp

#endif // AMP_LIB_CONVERSION_FUSIONPATTERN_H
