//===- AttachModelsWhere.h - A model for each op that qualifies -*- C++ -*-===//
//
// Attaches an external model to the ops of an ODS op list (GET_OP_LIST) for
// which a compile-time test holds: an op that declares its precision in
// ODS, or one that has a gradient rule or a lowering overload. The op list
// comes from ODS, so no second list of ops is kept by hand.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_ATTACHMODELSWHERE_H
#define AMP_INTERFACES_ATTACHMODELSWHERE_H

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

} // namespace amp

#endif // AMP_INTERFACES_ATTACHMODELSWHERE_H
