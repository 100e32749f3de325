//===- MathPrecisionModels.cpp - math ops join the policy -----------------===//
//
// The same classes as the corresponding tg ops: exponentials, powers and
// the hyperbolic functions that grow like them are deny (they overflow f16),
// logs, roots, trigonometry and smooth activations are infer, absolute
// value, rounding, clamping and classification are clear.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void amp::registerMathPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachClassModels<PrecisionClass::Deny, math::ExpOp, math::Exp2Op,
                      math::ExpM1Op, math::PowFOp, math::FPowIOp, math::SinhOp,
                      math::CoshOp>(ctx);
    attachClassModels<PrecisionClass::Infer, math::LogOp, math::Log2Op,
                      math::Log10Op, math::Log1pOp, math::SqrtOp, math::RsqrtOp,
                      math::CbrtOp, math::TanhOp, math::ErfOp, math::ErfcOp,
                      math::SinOp, math::CosOp, math::TanOp, math::AsinOp,
                      math::AcosOp, math::AtanOp, math::Atan2Op, math::AsinhOp,
                      math::AcoshOp, math::AtanhOp, math::FmaOp>(ctx);
    attachClassModels<PrecisionClass::Clear, math::AbsFOp, math::FloorOp,
                      math::CeilOp, math::RoundOp, math::RoundEvenOp,
                      math::TruncOp, math::CopySignOp, math::ClampFOp,
                      math::IsFiniteOp, math::IsInfOp, math::IsNaNOp,
                      math::IsNormalOp>(ctx);
  });
}
