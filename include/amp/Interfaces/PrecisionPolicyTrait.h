//===- PrecisionPolicyTrait.h - An op's list, declared in ODS ---*- C++ -*-===//
//
// The C++ side of AMP_Precision (PrecisionPolicyTrait.td): the trait holds
// the op's policy as a constant, and DeclaredPrecisionModel turns it into
// PrecisionPolicyOpInterface for every op that carries it. The precision
// classes are declared here, for the ops' headers, which need no more of
// the interface.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_PRECISIONPOLICYTRAIT_H
#define AMP_INTERFACES_PRECISIONPOLICYTRAIT_H

#include "mlir/IR/OpDefinition.h"

#include "amp/Interfaces/PrecisionPolicyEnums.h.inc"

#include <cstdint>

namespace amp {

/// How an op takes part in the precision pass, as its ODS trait declares:
/// its f16 list, whether bf16 relaxes it to infer, whether it can compute
/// in a 16-bit type, and which operands and results (bit i for index i)
/// keep their type because they are not precision data.
struct DeclaredPolicy {
  PrecisionClass f16Class;
  bool inferForBF16;
  bool supportsLow;
  uint64_t fixedOperandMask;
  uint64_t fixedResultMask;

  constexpr bool isFixedOperand(unsigned index) const {
    return index < 64 && (fixedOperandMask >> index & 1);
  }
  constexpr bool isFixedResult(unsigned index) const {
    return index < 64 && (fixedResultMask >> index & 1);
  }
};

/// The trait AMP_Precision attaches (`OpT::kDeclaredPolicy`).
template <PrecisionClass F16Class, bool InferForBF16, bool SupportsLow,
          uint64_t FixedOperandMask, uint64_t FixedResultMask>
struct DeclaredPrecision {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static constexpr DeclaredPolicy kDeclaredPolicy{
        F16Class, InferForBF16, SupportsLow, FixedOperandMask, FixedResultMask};
  };
};

} // namespace amp

#endif // AMP_INTERFACES_PRECISIONPOLICYTRAIT_H
