//===- TGEnums.h - Closed sets of names in tg IR ----------------*- C++ -*-===//
//
// The C++ enums generated from TGEnums.td, with their string conversions
// (`symbolizeLayout("NCHW")`, `stringifyRole(Role::Param)`, ...).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGENUMS_H
#define AMP_DIALECT_TG_IR_TGENUMS_H

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

#include "amp/Dialect/TG/IR/TGEnums.h.inc"

namespace amp::tg {
/// Roles a training step may give its arguments and its results.
bool isArgumentRole(Role role);
bool isResultRole(Role role);
/// Roles whose values the host carries from one step to the next (the step
/// returns their new value under the same role).
bool isCarriedRole(Role role);
} // namespace amp::tg

#endif // AMP_DIALECT_TG_IR_TGENUMS_H
