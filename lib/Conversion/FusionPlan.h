//===- FusionPlan.h - What a lowered step runs together ---------*- C++ -*-===//
//
// Before --amp-lower-to-runtime emits a call, it decides which ops make no
// tensor of their own (casts folded into their readers, reshapes that are
// views) and which run inside another op's call (unscales in their finite
// check, bias adds and activations in a product's epilogue, elementwise
// trees as one chain). Each decision depends on the block and the options
// alone.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_FUSIONPLAN_H
#define AMP_LIB_CONVERSION_FUSIONPLAN_H

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amprt/amprt.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace amp {

/// Which fusions the lowering may make (the pass's options of those names).
struct FusionOptions {
  bool foldCastsIntoProducts = true;
  bool foldCastsIntoBiasGrads = true;
  bool reshapeViews = true;
  bool fuseBiasEpilogues = true;
  bool fuseActivationEpilogues = true;
  bool fuseElementwiseChains = true;
};

/// A product and the ops that run in its epilogue, as one call at the
/// place of the last of them (the anchor).
struct ProductEpilogue {
  mlir::Operation *product = nullptr;
  mutable tg::BiasAddOp biasAdd;         // null: no bias
  mlir::Operation *activation = nullptr; // null: no activation
  amprt_activation code = AMPRT_ACTIVATION_RELU;
  double alpha = 0;
  /// Whether the activation's input is also read after it: the call then
  /// writes it too (amprt_matmul_bias_act's `pre`).
  bool keepsPre = false;

  mlir::Operation *anchor() const {
    return activation ? activation : biasAdd.getOperation();
  }
  /// The activation's input: the biased product, or the product.
  mlir::Value pre() const {
    return biasAdd ? mlir::Value(biasAdd.getResult()) : product->getResult(0);
  }
};

/// Elementwise ops run as one amprt_elementwise_chain call at the place of
/// the last (the root): its steps in block order, and the values they read
/// from outside (its inputs).
struct ElementwiseChain {
  llvm::SmallVector<mlir::Operation *> steps;
  llvm::SmallVector<mlir::Value> inputs;
};

/// The amprt_chain_op of an op, of any dialect, that an
/// amprt_elementwise_chain step can run: one whose lowering names the
/// runtime function it computes (RuntimeLoweringOpInterface::
/// getElementwiseStep), with the operands that function takes, all float
/// and of the result's type (no broadcasting); with its slope (leaky
/// relu's alpha, 0 otherwise).
std::optional<amprt_chain_op> chainOp(mlir::Operation *op, double &alpha);

/// Every fusion of one block. Ops that run inside another op's call map to
/// that op (checkedBy, runsWith, chainedInto); the op that makes the call
/// holds what it runs (unscalesOf, epilogueAt, chainAt).
class FusionPlan {
public:
  /// Plans `body`, a function's single block.
  FusionPlan(mlir::Block &body, const FusionOptions &options);

  /// Position of each op of the block.
  unsigned positionOf(mlir::Operation *op) const { return position.lookup(op); }
  /// The value a folded cast's result stands for (through casts of casts),
  /// else `v`.
  mlir::Value sharedHandle(mlir::Value v) const;
  /// The value that owns `v`'s storage: through folded casts, then a view's
  /// root (a folded cast of a view reads the view's root).
  mlir::Value storage(mlir::Value v) const;
  bool isFoldedCast(mlir::Value v) const { return foldedInto.count(v); }
  mlir::Value foldedInput(mlir::Value v) const { return foldedInto.lookup(v); }
  bool isView(mlir::Value v) const { return viewOf.count(v); }
  /// Whether `op` runs inside another op's call (its check, its product's
  /// epilogue or its chain).
  bool runsInsideAnother(mlir::Operation *op) const {
    return checkedBy.count(op) || runsWith.count(op) || chainedInto.count(op);
  }
  /// The op whose call runs `op`, or `op` itself.
  mlir::Operation *runsAt(mlir::Operation *op) const;
  /// What the op at `op`'s place runs, or null.
  const llvm::SmallVector<UnscaleOp> *unscalesRunBy(mlir::Operation *op) const;
  const ProductEpilogue *epilogueAnchoredAt(mlir::Operation *op) const;
  const ElementwiseChain *chainRootedAt(mlir::Operation *op) const;

  unsigned numFoldedCasts() const { return foldedInto.size(); }
  unsigned numReshapeViews() const { return viewOf.size(); }
  unsigned numFusedChecks() const { return unscalesOf.size(); }
  unsigned numFusedBiases() const { return fusedBiases; }
  unsigned numFusedActivations() const { return fusedActivations; }
  unsigned numChains() const { return chainAt.size(); }
  unsigned numChainedOps() const { return chainedOps; }

private:
  void planFoldedCasts(mlir::Block &body, const FusionOptions &options);
  void planViews(mlir::Block &body);
  void planUnscaleChecks(mlir::Block &body);
  void planEpilogues(mlir::Block &body, const FusionOptions &options);
  void planChains(mlir::Block &body);
  bool chainable(mlir::Operation *op, mlir::Block &body) const;
  std::optional<ElementwiseChain> growChain(mlir::Operation *root,
                                            mlir::Block &body) const;

  llvm::DenseMap<mlir::Operation *, unsigned> position;
  /// Casts that make no tensor: their result is their input's tensor.
  llvm::DenseMap<mlir::Value, mlir::Value> foldedInto;
  /// Reshapes that make no copy: a view of their input's storage.
  llvm::DenseMap<mlir::Value, mlir::Value> viewOf;
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<UnscaleOp>> unscalesOf;
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> checkedBy;
  llvm::DenseMap<mlir::Operation *, ProductEpilogue> epilogueAt;
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> runsWith;
  llvm::DenseMap<mlir::Operation *, ElementwiseChain> chainAt;
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> chainedInto;
  unsigned fusedBiases = 0, fusedActivations = 0, chainedOps = 0;
};

/// Where each value of a planned block is read for the last time, by op
/// position: a folded cast's readers read its input, an op run inside
/// another's call reads where that call runs, and a view's reads are its
/// storage's too. Each value's answer is kept, so a value read by many
/// ops (the learning rate, by every update) costs its readers once.
class BufferLifetimes {
public:
  explicit BufferLifetimes(const FusionPlan &plan) : plan(plan) {}
  /// The last read of `v`'s storage.
  int64_t lastUse(mlir::Value v);
  /// The last read of `v` itself through the folded casts that share its
  /// handle (a view's handle is released there).
  int64_t lastDirectUse(mlir::Value v);

private:
  int64_t runsAt(mlir::Operation *user) const {
    return plan.positionOf(plan.runsAt(user));
  }
  const FusionPlan &plan;
  llvm::DenseMap<mlir::Value, int64_t> lastUses, lastDirectUses;
};

} // namespace amp

#endif // AMP_LIB_CONVERSION_FUSIONPLAN_H
