//===- AttachModels.h - Interfaces for the ops that have a rule -*- C++ -*-===//
//
// The tg and amp ops get their gradient and runtime-lowering interfaces
// from one overload per op (`rule(tg::ExpOp)`, `lower(tg::ExpOp)`). The
// helper below attaches a model to every op of an ODS op list
// (GET_OP_LIST) for which such an overload exists, so the overload is the
// only place an op is named: no second list to keep in step with it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_ATTACHMODELS_H
#define AMP_INTERFACES_ATTACHMODELS_H

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include <type_traits>

namespace amp {

/// Attaches `Model<OpT>` to each of `OpTs` for which `Has<OpT>::value`.
template <template <typename> class Model, template <typename...> class Has,
          typename... OpTs>
void attachModelsWhere(mlir::MLIRContext *context) {
  auto attach = [&](auto *tag) {
    using OpT = std::remove_pointer_t<decltype(tag)>;
    if constexpr (Has<OpT>::value)
      OpT::template attachInterface<Model<OpT>>(*context);
  };
  (attach(static_cast<OpTs *>(nullptr)), ...);
}

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
