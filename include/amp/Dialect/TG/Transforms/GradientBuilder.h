//===- GradientBuilder.h - Adjoints while a backward pass is built -*- C++ -*-//
//
// What a reverse-mode rule (GradientOpInterface::emitGradient) works with:
// the builder and location of the op being differentiated, the adjoints of
// its results, and the operations that add to its operands' adjoints.
// Broadcasts are undone with reductions, and with tg.bias_add_grad where the
// pattern is a bias, so the backward pass keeps the forward's allow spans.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_TRANSFORMS_GRADIENTBUILDER_H
#define AMP_DIALECT_TG_TRANSFORMS_GRADIENTBUILDER_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace amp {

/// Accumulates adjoints while the backward pass is emitted.
class GradientBuilder {
public:
  GradientBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : b(builder), loc(loc) {}

  /// Where backward ops go, and the location of the op being
  /// differentiated (so diagnostics and reports point at the user's source).
  mlir::OpBuilder &builder() { return b; }
  mlir::Location getLoc() const { return loc; }

  /// The adjoint of `value`, or null when nothing flows into it.
  mlir::Value adjoint(mlir::Value value) const {
    return adjoints.lookup(value);
  }
  /// Adds `gradient` to the adjoint of `value` (a sum when it fans out);
  /// does nothing for inactive values or a null gradient. Zero pads that
  /// cover adjacent spans of one axis (the gradients of slices that tile a
  /// value, as q, k and v of one product) join as a tg.concat instead of
  /// a sum of pads: the same values with one copy, where the sum wrote the
  /// zeros and added them.
  void accumulate(mlir::Value value, mlir::Value gradient);
  /// Erases the pads that joins left without users (and the concats only
  /// they read); call once the adjoints are in place.
  void eraseUnusedJoins();
  /// Adds `gradient` (shaped like a broadcast result) to `operand`'s
  /// adjoint, reducing the broadcast dimensions away.
  void accumulateUnbroadcast(mlir::Value operand, mlir::Value gradient);
  /// Whether `value` should receive a gradient (it depends on a `wrt`).
  bool isActive(mlir::Value value) const { return active.contains(value); }
  void setActive(llvm::DenseSet<mlir::Value> values) {
    active = std::move(values);
  }

  /// Emits the rule of `op` (its GradientOpInterface); fails with a
  /// diagnostic naming the op when it has none.
  llvm::LogicalResult differentiate(mlir::Operation *op);

  /// A zero tensor of `type`.
  mlir::Value zeros(mlir::Type type);
  /// A rank-0 tensor holding `value` in the element type of `like`.
  mlir::Value scalar(mlir::Type like, double value);
  /// `gradient` summed (and reshaped) down to the shape of `target`.
  mlir::Value unbroadcast(mlir::Value gradient, mlir::Type target);

private:
  /// The concat of two zero pads' values, padded to their joint span, when
  /// their spans are adjacent on the one axis each pads; null otherwise.
  mlir::Value joinZeroPads(mlir::Value first, mlir::Value second);

  mlir::OpBuilder &b;
  mlir::Location loc;
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
  llvm::DenseSet<mlir::Value> active;
  llvm::SetVector<mlir::Operation *> joinedPads;
};

namespace tg {
/// Attaches GradientOpInterface to every differentiable tg op and to
/// amp.cast (external models; takes effect when the dialects load). The
/// autodiff pass calls it itself; embedders get it from InitAll.
void registerGradientRules(mlir::DialectRegistry &registry);
} // namespace tg

} // namespace amp

#endif // AMP_DIALECT_TG_TRANSFORMS_GRADIENTBUILDER_H
