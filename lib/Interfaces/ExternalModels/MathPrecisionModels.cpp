//===- MathPrecisionModels.cpp - math ops join the policy -----------------===//
//
// The same classes as the corresponding tg ops: exponentials and powers are
// deny (they overflow f16), logs, roots and smooth activations are infer,
// absolute value and rounding are clear.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void amp::registerMathPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachClassModels<PrecisionClass::Deny, math::ExpOp, math::Exp2Op,
                      math::ExpM1Op, math::PowFOp, math::FPowIOp>(ctx);
    attachClassModels<PrecisionClass::Infer, math::LogOp, math::Log2Op,
                      math::Log10Op, math::Log1pOp, math::SqrtOp,
                      math::RsqrtOp, math::TanhOp, math::ErfOp>(ctx);
    attachClassModels<PrecisionClass::Clear, math::AbsFOp, math::FloorOp,
                      math::CeilOp, math::RoundOp, math::CopySignOp>(ctx);
  });
}
