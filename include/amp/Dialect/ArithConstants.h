//===- ArithConstants.h - Folded constants as arith.constant ----*- C++ -*-===//
//
// Both amp dialects materialize the constants their folders produce as
// arith.constant, which every downstream pipeline already lowers.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_ARITHCONSTANTS_H
#define AMP_DIALECT_ARITHCONSTANTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace amp {

/// An arith.constant of `type` holding `value`, or null when `value` is
/// not a typed attribute of that type.
inline mlir::Operation *materializeArithConstant(mlir::OpBuilder &builder,
                                                 mlir::Attribute value,
                                                 mlir::Type type,
                                                 mlir::Location loc) {
  auto typed = mlir::dyn_cast<mlir::TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return mlir::arith::ConstantOp::create(builder, loc, type, typed);
}

} // namespace amp

#endif // AMP_DIALECT_ARITHCONSTANTS_H
