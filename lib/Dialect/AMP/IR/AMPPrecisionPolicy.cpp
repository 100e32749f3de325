//===- AMPPrecisionPolicy.cpp - The amp ops' precision lists --------------===//
//
// Loss-scaling ops are deny and f32-only: they exist to keep gradients and
// the scale in f32. amp.cast is clear; the pass retypes an existing cast
// instead of doubling it when every user computes in low precision.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Interfaces/PrecisionModels.h"

using namespace mlir;

namespace amp {
namespace {

template <typename OpT>
struct LossScaleModel
    : PrecisionPolicyOpInterface::ExternalModel<LossScaleModel<OpT>, OpT> {
  PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return PrecisionClass::Deny;
  }
  bool supportsPrecision(Operation *, FloatType) const { return false; }
};

/// A cast's input already has its own type: only the result follows.
struct CastModel
    : PrecisionPolicyOpInterface::ExternalModel<CastModel, CastOp> {
  PrecisionClass getPrecisionClass(Operation *, FloatType) const {
    return PrecisionClass::Clear;
  }
  bool isPrecisionOperand(Operation *, unsigned) const { return false; }
};

} // namespace

void attachPrecisionPolicy(MLIRContext *ctx) {
  CastOp::attachInterface<CastModel>(*ctx);
  ScaleOp::attachInterface<LossScaleModel<ScaleOp>>(*ctx);
  UnscaleOp::attachInterface<LossScaleModel<UnscaleOp>>(*ctx);
  AllFiniteOp::attachInterface<LossScaleModel<AllFiniteOp>>(*ctx);
  UpdateScaleOp::attachInterface<LossScaleModel<UpdateScaleOp>>(*ctx);
}

} // namespace amp
