//===- RuntimeFusion.h - What a lowered step runs together ------*- C++ -*-===//
//
// The rewrites --amp-fuse-for-runtime makes, as pattern sets an embedder can
// apply on their own: each turns tg and amp ops into the amprt op that runs
// them in one runtime call (or in none). --amp-lower-to-runtime applies them
// first, with the same options.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_RUNTIMEFUSION_H
#define AMP_CONVERSION_RUNTIMEFUSION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include <functional>

namespace amp {

/// Decides whether a fusion a pattern has matched is made. It is given the
/// ops the fused op stands for, in block order: the cast; the reshape; the
/// unscales and their amp.all_finite; an attention's products and softmax
/// (and its gradient's five ops, the two fused together); a strided
/// product's view ops, product and transpose; the product, its bias add
/// and its activation; a chain's steps. No function: every match is made.
using RuntimeFusionControlFn =
    std::function<bool(llvm::ArrayRef<mlir::Operation *> fused)>;

/// amp.cast -> amprt.cast_on_read where every reader converts as it reads:
/// f32 -> f16 read only as product operands, f16/bf16 -> f32 read only by
/// tg.bias_add_grad.
void populateCastOnReadPatterns(mlir::RewritePatternSet &patterns,
                                RuntimeFusionControlFn control = {});
/// tg.reshape -> amprt.view where the result is not returned.
void populateReshapeViewPatterns(mlir::RewritePatternSet &patterns,
                                 RuntimeFusionControlFn control = {});
/// tg.batch_matmul(q, k^T) -> tg.softmax along the keys ->
/// tg.batch_matmul(p, v), the scores and probabilities read by nothing else
/// -> amprt.attention; with autodiff's five ops for its gradient (dp, dv,
/// softmax_grad, dq, dk) where those read p -> amprt.attention_grad too.
/// Operands are views of the tensors their transposes, reshapes and slices
/// start from; a result only a tg.transpose reads is written through it.
void populateAttentionPatterns(mlir::RewritePatternSet &patterns,
                               RuntimeFusionControlFn control = {});
/// tg.batch_matmul whose operands are tg.transposes (of reshapes or
/// amprt.views, of tg.slices) or whose result only a tg.transpose reads ->
/// amprt.strided_batch_matmul over views of the tensors they start from;
/// the view ops nothing reads any more are erased.
void populateStridedProductPatterns(mlir::RewritePatternSet &patterns,
                                    RuntimeFusionControlFn control = {});
/// amp.all_finite of amp.unscale results (one scale; f16, bf16 or f32
/// gradients; none read before the check) -> amprt.unscale_all_finite.
void populateUnscaleCheckPatterns(mlir::RewritePatternSet &patterns,
                                  RuntimeFusionControlFn control = {});
/// tg.matmul / forward tg.conv2d with the tg.bias_add that is its only
/// reader and the first activation of that (read by nothing before it) ->
/// amprt.product_epilogue. Where the control function refuses the whole,
/// the product with its bias add alone is offered next.
void populateProductEpiloguePatterns(mlir::RewritePatternSet &patterns,
                                     RuntimeFusionControlFn control = {});
/// Trees of chain steps whose intermediates each have one reader ->
/// amprt.elementwise_chain at the last one's place, grown from that op back
/// through its operands (up to the runtime's step and input limits). The
/// chains are those of the unfused block whatever order ops are offered
/// in. A chain the control function refuses leaves its steps apart: no
/// smaller chain of them is offered.
void populateElementwiseChainPatterns(mlir::RewritePatternSet &patterns,
                                      RuntimeFusionControlFn control = {});

/// Which fusions --amp-fuse-for-runtime makes: its options, which
/// --amp-lower-to-runtime shares (Passes.td's RuntimeFusionOptions list; a
/// new one is a field here, in that list's order, and in fusionOptions).
struct RuntimeFusionOptions {
  bool foldCastsIntoProducts = true;
  bool foldCastsIntoBiasGrads = true;
  bool reshapeViews = true;
  bool fuseUnscaleChecks = true;
  bool fuseAttention = true;
  int64_t attentionMinKeys = 128;
  bool stridedProducts = true;
  bool fuseBiasEpilogues = true;
  bool fuseActivationEpilogues = true;
  bool fuseElementwiseChains = true;
};

/// A pass whose generated base `PassBase` declares the fusion options
/// (Passes.td's RuntimeFusionOptions list), read as one struct.
template <typename PassBase> struct WithRuntimeFusionOptions : PassBase {
  using PassBase::PassBase;
  RuntimeFusionOptions fusionOptions() const {
    return {this->foldCastsIntoProducts,
            this->foldCastsIntoBiasGrads,
            this->reshapeViews,
            this->fuseUnscaleChecks,
            this->fuseAttention,
            this->attentionMinKeys,
            this->stridedProducts,
            this->fuseBiasEpilogues,
            this->fuseActivationEpilogues,
            this->fuseElementwiseChains};
  }
};

/// Refuses option values no fusion can take (attention-min-keys below 0),
/// the error at `loc` naming `pass` and the option.
mlir::LogicalResult checkFusionOptions(mlir::Location loc, llvm::StringRef pass,
                                       const RuntimeFusionOptions &options);

/// Applies the fusions `options` allow to the ops of `func`'s body, one
/// family after another in the order declared above, each op offered once
/// (in block order; chains from the last op back). No folding and no
/// dead-code elimination: an op the patterns leave is lowered as written.
void fuseForRuntime(mlir::func::FuncOp func,
                    const RuntimeFusionOptions &options);

} // namespace amp

#endif // AMP_CONVERSION_RUNTIMEFUSION_H
