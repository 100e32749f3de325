//===- GradientRules.h - Reverse-mode rules for the tg ops ------*- C++ -*-===//
//
// One rule per differentiable op: given the adjoints of its results, emit
// the backward ops and add the adjoints of its operands. Broadcasts are
// undone with reductions, and with tg.bias_add_grad where the pattern is a
// bias, so the backward pass keeps the same allow spans as the forward.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_GRADIENTRULES_H
#define AMP_LIB_TRANSFORMS_GRADIENTRULES_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace amp {

/// Accumulates adjoints while the backward pass is emitted.
class GradientBuilder {
public:
  GradientBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : b(builder), loc(loc) {}

  /// The adjoint of `value`, or null when nothing flows into it.
  mlir::Value adjoint(mlir::Value value) const {
    return adjoints.lookup(value);
  }
  /// Adds `gradient` to the adjoint of `value` (a sum when it fans out).
  void accumulate(mlir::Value value, mlir::Value gradient);
  /// Whether `value` should receive a gradient (it depends on a `wrt`).
  void setActive(llvm::DenseSet<mlir::Value> values) {
    active = std::move(values);
  }

  /// Emits the rule of `op`; fails with a diagnostic naming the op when it
  /// has none.
  llvm::LogicalResult differentiate(mlir::Operation *op);

  /// A zero tensor of `type`.
  mlir::Value zeros(mlir::Type type);

private:
  /// Adds `gradient` (shaped like a broadcast result) to `operand`'s
  /// adjoint, reducing the broadcast dimensions away.
  void accumulateUnbroadcast(mlir::Value operand, mlir::Value gradient);
  mlir::Value scalar(mlir::Type like, double value);
  mlir::Value unbroadcast(mlir::Value gradient, mlir::Type target);
  bool isActive(mlir::Value value) const { return active.contains(value); }

  mlir::OpBuilder &b;
  mlir::Location loc;
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
  llvm::DenseSet<mlir::Value> active;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_GRADIENTRULES_H
