//===- AttachModels.h - Interfaces for the ops that have a rule -*- C++ -*-===//
//
// The tg and amp ops get their gradient and runtime-lowering interfaces
// from one overload per op (`rule(tg::ExpOp)`, `lower(tg::ExpOp)`). The
// helper below attaches a model to every tg and amp op for which such an
// overload exists (attachModelsWhere), so the overload is the only place
// an op is named: no second list to keep in step with it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_ATTACHMODELS_H
#define AMP_INTERFACES_ATTACHMODELS_H

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/AttachModelsWhere.h"
#include "mlir/IR/DialectRegistry.h"

namespace amp {

/// Attaches `Model<OpT>` to each tg and amp op for which `Has<OpT>::value`,
/// when the dialect is loaded.
template <template <typename> class Model, template <typename...> class Has>
void attachModelsToTGAndAMPOps(mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *context, tg::TGDialect *) {
    attachModelsWhere<Model, Has,
#define GET_OP_LIST
#include "amp/Dialect/TG/IR/TGOps.cpp.inc"
                      >(context);
  });
  registry.addExtension(+[](mlir::MLIRContext *context, AMPDialect *) {
    attachModelsWhere<Model, Has,
#define GET_OP_LIST
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"
                      >(context);
  });
}

} // namespace amp

#endif // AMP_INTERFACES_ATTACHMODELS_H
