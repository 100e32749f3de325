//===- Passes.h - amp's precision passes ------------------------*- C++ -*-===//

#ifndef AMP_TRANSFORMS_PASSES_H
#define AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Transforms/LossScalingDefaults.h"
#include "amp/Transforms/PassOptions.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/Pass.h"

namespace amp {

#define GEN_PASS_DECL
#include "amp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Transforms/Passes.h.inc"

} // namespace amp

#endif // AMP_TRANSFORMS_PASSES_H
