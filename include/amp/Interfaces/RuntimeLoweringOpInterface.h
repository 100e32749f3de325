//===- RuntimeLoweringOpInterface.h - How an op runs on amprt ---*- C++ -*-===//

#ifndef AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H
#define AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"

namespace amp {
class RuntimeLoweringBuilder;
} // namespace amp

#include "amp/Interfaces/RuntimeLoweringOpInterface.h.inc"

#endif // AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_H
