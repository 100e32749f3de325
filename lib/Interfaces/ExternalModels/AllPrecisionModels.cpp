//===- AllPrecisionModels.cpp - Every shipped external model --------------===//

#include "amp/Interfaces/PrecisionPolicyInterface.h"

void amp::registerAllPrecisionModels(mlir::DialectRegistry &registry) {
  registerArithPrecisionModels(registry);
  registerMathPrecisionModels(registry);
  registerLinalgPrecisionModels(registry);
  registerTensorPrecisionModels(registry);
  registerFuncPrecisionModels(registry);
  registerTosaPrecisionModels(registry);
}
