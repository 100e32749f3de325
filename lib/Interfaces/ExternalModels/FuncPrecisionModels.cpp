//===- FuncPrecisionModels.cpp - func.call joins the policy ---------------===//
//
// A call's callee is opaque to the pass, so calls are deny: arguments reach
// the callee in f32 and results come back as f32.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace {
struct CallModel
    : amp::PrecisionPolicyOpInterface::ExternalModel<CallModel,
                                                     func::CallOp> {
  amp::PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return amp::PrecisionClass::Deny;
  }
  bool supportsPrecision(Operation *, FloatType) const { return false; }
};
} // namespace

void amp::registerFuncPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, func::FuncDialect *) {
    func::CallOp::attachInterface<CallModel>(*ctx);
  });
}
