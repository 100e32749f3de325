//===- PrecisionModels.h - Building blocks for precision models -*- C++ -*-===//
//
// Ready-made external models of PrecisionPolicyOpInterface. A downstream
// compiler attaches them to its own ops:
//
//   MyOp::attachInterface<amp::ClassPrecisionModel<MyOp,
//                                                  amp::PrecisionClass::Infer>>(ctx);
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_PRECISIONMODELS_H
#define AMP_INTERFACES_PRECISIONMODELS_H

#include "amp/Interfaces/AttachModelsWhere.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Interfaces/PrecisionPolicyTrait.h"
#include <type_traits>

namespace amp {

/// An op of a fixed class whose float tensor operands and results all follow
/// its precision (the interface defaults).
template <typename OpT, PrecisionClass Class>
struct ClassPrecisionModel
    : PrecisionPolicyOpInterface::ExternalModel<
          ClassPrecisionModel<OpT, Class>, OpT> {
  PrecisionClass getPrecisionClass(mlir::Operation *,
                                   mlir::FloatType) const {
    return Class;
  }
};

/// Attaches ClassPrecisionModel<Op, Class> to every op in `Ops`.
template <PrecisionClass Class, typename... Ops>
void attachClassModels(mlir::MLIRContext *context) {
  (Ops::template attachInterface<ClassPrecisionModel<Ops, Class>>(*context),
   ...);
}

/// The model of an op that declares its policy in ODS (AMP_Precision).
template <typename OpT>
struct DeclaredPrecisionModel
    : PrecisionPolicyOpInterface::ExternalModel<DeclaredPrecisionModel<OpT>,
                                                OpT> {
  static constexpr DeclaredPolicy policy = OpT::kDeclaredPolicy;

  PrecisionClass getPrecisionClass(mlir::Operation *,
                                   mlir::FloatType lowType) const {
    if (policy.inferForBF16 && lowType.isBF16())
      return PrecisionClass::Infer;
    return policy.f16Class;
  }
  bool isPrecisionOperand(mlir::Operation *op, unsigned index) const {
    return !policy.isFixedOperand(index) &&
           isFloatTensor(op->getOperand(index).getType());
  }
  bool isPrecisionResult(mlir::Operation *op, unsigned index) const {
    return !policy.isFixedResult(index) &&
           isFloatTensor(op->getResult(index).getType());
  }
  bool supportsPrecision(mlir::Operation *op, mlir::FloatType) const {
    return policy.supportsLow && hasOnlyRankedFloatTensors(op);
  }
};

/// Whether OpT carries an AMP_Precision trait.
template <typename OpT, typename = void>
struct DeclaresPrecision : std::false_type {};
template <typename OpT>
struct DeclaresPrecision<OpT, std::void_t<decltype(OpT::kDeclaredPolicy)>>
    : std::true_type {};

/// Attaches DeclaredPrecisionModel to each of `Ops` (a dialect's
/// GET_OP_LIST) that declares its policy; the others are left alone.
template <typename... Ops>
void attachDeclaredPrecisionModels(mlir::MLIRContext *context) {
  attachModelsWhere<DeclaredPrecisionModel, DeclaresPrecision, Ops...>(context);
}

} // namespace amp

#endif // AMP_INTERFACES_PRECISIONMODELS_H
