//===- GradientOpInterface.h - How an op is differentiated ------*- C++ -*-===//

#ifndef AMP_INTERFACES_GRADIENTOPINTERFACE_H
#define AMP_INTERFACES_GRADIENTOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"

namespace amp {
class GradientBuilder;
} // namespace amp

#include "amp/Interfaces/GradientOpInterface.h.inc"

#endif // AMP_INTERFACES_GRADIENTOPINTERFACE_H
