//===- RuntimeLoweringOpInterface.h - How an op runs on amprt ---*- C++ -*-===//

#ifndef AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H
#define AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include <cstdint>
#include <optional>

namespace amp {
class RuntimeLoweringBuilder;

/// The runtime's elementwise function an op computes, as a step of
/// amprt_elementwise_chain: its `amprt_chain_op` code (amprt_unary.def's and
/// amprt_binary.def's AMPRT_CHAIN_<CODE>) and leaky relu's slope.
struct ElementwiseStep {
  int64_t code = 0;
  double alpha = 0;
};
} // namespace amp

#include "amp/Interfaces/RuntimeLoweringOpInterface.h.inc"

#endif // AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H
