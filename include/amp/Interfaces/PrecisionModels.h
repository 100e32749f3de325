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

#include "amp/Interfaces/PrecisionPolicyInterface.h"

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

} // namespace amp

#endif // AMP_INTERFACES_PRECISIONMODELS_H
