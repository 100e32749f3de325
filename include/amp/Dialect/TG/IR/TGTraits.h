//===- TGTraits.h - Traits every tg op carries ------------------*- C++ -*-===//

#ifndef AMP_DIALECT_TG_IR_TGTRAITS_H
#define AMP_DIALECT_TG_IR_TGTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace amp::tg {

/// Fails, naming the operand or result, when one of `op`'s static tensors
/// has more than 2^60 elements (checkedNumElements' bound).
mlir::LogicalResult verifyAddressableTensors(mlir::Operation *op);

/// The tensors of a tg op have sizes amp can address. A trait rather than a
/// predicate of the operand type constraints, so that an oversized static
/// shape is called that, not "must be a statically shaped tensor".
template <typename ConcreteType>
class AddressableTensors
    : public mlir::OpTrait::TraitBase<ConcreteType, AddressableTensors> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyAddressableTensors(op);
  }
};

} // namespace amp::tg

#endif // AMP_DIALECT_TG_IR_TGTRAITS_H
