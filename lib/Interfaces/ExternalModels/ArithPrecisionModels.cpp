//===- ArithPrecisionModels.cpp - arith ops join the policy ---------------===//
//
// Float arithmetic on tensors: add/sub/mul/div are infer (like tg.add),
// sign, min/max, compare and select are clear, remainder is deny.
// arith.constant is clear; the pass folds casts of constants.
//
//===----------------------------------------------------------------------===//

#include "amp/Interfaces/PrecisionModels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void amp::registerArithPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachClassModels<PrecisionClass::Infer, arith::AddFOp, arith::SubFOp,
                      arith::MulFOp, arith::DivFOp>(ctx);
    attachClassModels<PrecisionClass::Clear, arith::NegFOp, arith::MaximumFOp,
                      arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
                      arith::CmpFOp, arith::SelectOp, arith::ConstantOp>(ctx);
    attachClassModels<PrecisionClass::Deny, arith::RemFOp>(ctx);
  });
}
