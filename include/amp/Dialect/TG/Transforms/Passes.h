//===- Passes.h - Transforms of tg training graphs --------------*- C++ -*-===//

#ifndef AMP_DIALECT_TG_TRANSFORMS_PASSES_H
#define AMP_DIALECT_TG_TRANSFORMS_PASSES_H

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"

namespace amp {

#define GEN_PASS_DECL
#include "amp/Dialect/TG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/TG/Transforms/Passes.h.inc"

} // namespace amp

#endif // AMP_DIALECT_TG_TRANSFORMS_PASSES_H
