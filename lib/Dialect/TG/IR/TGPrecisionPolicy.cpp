//===- TGPrecisionPolicy.cpp - The tg ops' precision lists ----------------===//
//
// The default f16 lists, derived from TensorFlow's CUDA auto-mixed-precision
// lists (docs/auto-mixed-precision.md, "The default lists (f16)"): Tensor
// Core contractions are allow, numerically safe math is infer, exponentials,
// sums, losses and optimizer updates are deny, data movement is clear. For
// bf16 the sum and mean reductions are infer (bf16 has f32's range).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"

using namespace mlir;
using amp::PrecisionClass;

namespace amp::tg {
namespace {

/// How a tg op takes part: its f16 class, whether bf16 relaxes it to infer,
/// whether it can run in low precision at all, and the operands/results that
/// are not precision data (norm statistics and affine parameters).
struct TGPolicy {
  PrecisionClass f16Class;
  bool inferForBF16 = false;
  bool supportsLow = true;
  llvm::ArrayRef<unsigned> fixedOperands = {};
  llvm::ArrayRef<unsigned> fixedResults = {};
};

template <typename OpT>
struct TGModel : PrecisionPolicyOpInterface::ExternalModel<TGModel<OpT>, OpT> {
  static TGPolicy policy();

  PrecisionClass getPrecisionClass(Operation *, FloatType lowType) const {
    TGPolicy p = policy();
    if (p.inferForBF16 && lowType.isBF16())
      return PrecisionClass::Infer;
    return p.f16Class;
  }
  bool isPrecisionOperand(Operation *op, unsigned index) const {
    return !llvm::is_contained(policy().fixedOperands, index) &&
           isFloatTensor(op->getOperand(index).getType());
  }
  bool isPrecisionResult(Operation *op, unsigned index) const {
    return !llvm::is_contained(policy().fixedResults, index) &&
           isFloatTensor(op->getResult(index).getType());
  }
  bool supportsPrecision(Operation *, FloatType) const {
    return policy().supportsLow;
  }
};

constexpr unsigned kStatsOperands[] = {2, 3, 4};
constexpr unsigned kAffineOperands[] = {1, 2};
constexpr unsigned kStatsResults[] = {1, 2};

#define TG_POLICY(OP, ...)                                                     \
  template <> TGPolicy TGModel<OP>::policy() { return TGPolicy{__VA_ARGS__}; }

constexpr PrecisionClass kAllow = PrecisionClass::Allow;
constexpr PrecisionClass kInfer = PrecisionClass::Infer;
constexpr PrecisionClass kClear = PrecisionClass::Clear;
constexpr PrecisionClass kDeny = PrecisionClass::Deny;

// allow: Tensor Core work.
TG_POLICY(MatmulOp, kAllow)
TG_POLICY(BatchMatmulOp, kAllow)
TG_POLICY(Conv2DOp, kAllow)
TG_POLICY(Conv2DBackwardInputOp, kAllow)
TG_POLICY(Conv2DBackwardFilterOp, kAllow)

// infer: safe in low precision, worth it between allow ops.
TG_POLICY(AddOp, kInfer)
TG_POLICY(SubOp, kInfer)
TG_POLICY(MulOp, kInfer)
TG_POLICY(DivOp, kInfer)
TG_POLICY(BiasAddOp, kInfer)
TG_POLICY(BiasAddGradOp, kInfer)
TG_POLICY(AvgPool2DOp, kInfer)
TG_POLICY(AvgPool2DGradOp, kInfer)
TG_POLICY(BatchNormOp, kInfer, false, true, kAffineOperands, kStatsResults)
TG_POLICY(BatchNormGradOp, kInfer, false, true, kStatsOperands, kStatsResults)
TG_POLICY(LayerNormOp, kInfer, false, true, kAffineOperands, kStatsResults)
TG_POLICY(LayerNormGradOp, kInfer, false, true, kStatsOperands, kStatsResults)
TG_POLICY(LeakyReluOp, kInfer)
TG_POLICY(LeakyReluGradOp, kInfer)
TG_POLICY(GeluOp, kInfer)
TG_POLICY(GeluGradOp, kInfer)
TG_POLICY(SiluOp, kInfer)
TG_POLICY(ErfOp, kInfer)
TG_POLICY(LogOp, kInfer)
TG_POLICY(SqrtOp, kInfer)
TG_POLICY(RsqrtOp, kInfer)
TG_POLICY(ReciprocalOp, kInfer)
TG_POLICY(SquareOp, kInfer)
TG_POLICY(SigmoidOp, kInfer)
TG_POLICY(SigmoidGradOp, kInfer)
TG_POLICY(TanhOp, kInfer)
TG_POLICY(TanhGradOp, kInfer)
TG_POLICY(SoftmaxOp, kInfer)
TG_POLICY(SoftmaxGradOp, kInfer)
TG_POLICY(LogSoftmaxOp, kInfer)
TG_POLICY(LogSoftmaxGradOp, kInfer)

// deny: overflow-prone or accumulating math, losses and updates.
TG_POLICY(ExpOp, kDeny)
TG_POLICY(PowOp, kDeny)
TG_POLICY(ReduceSumOp, kDeny, /*inferForBF16=*/true)
TG_POLICY(ReduceMeanOp, kDeny, /*inferForBF16=*/true)
TG_POLICY(SoftmaxCrossEntropyOp, kDeny)
TG_POLICY(SoftmaxCrossEntropyGradOp, kDeny)
TG_POLICY(GatherGradOp, kDeny)
TG_POLICY(SgdUpdateOp, kDeny, false, /*supportsLow=*/false)
TG_POLICY(MomentumUpdateOp, kDeny, false, /*supportsLow=*/false)
TG_POLICY(AdamUpdateOp, kDeny, false, /*supportsLow=*/false)
TG_POLICY(ClipByGlobalNormOp, kDeny, false, /*supportsLow=*/false)
// The wire precision of a collective is --tg-data-parallel's grad-comm.
TG_POLICY(AllReduceOp, kDeny, false, /*supportsLow=*/false)

// clear: precision-agnostic, follows its neighbours.
TG_POLICY(NegOp, kClear)
TG_POLICY(AbsOp, kClear)
TG_POLICY(ReluOp, kClear)
TG_POLICY(ReluGradOp, kClear)
TG_POLICY(MaximumOp, kClear)
TG_POLICY(MinimumOp, kClear)
TG_POLICY(CompareOp, kClear)
TG_POLICY(SelectOp, kClear)
TG_POLICY(IsFiniteOp, kClear)
TG_POLICY(ReduceMaxOp, kClear)
TG_POLICY(MaxPool2DOp, kClear)
TG_POLICY(MaxPool2DGradOp, kClear)
TG_POLICY(ReshapeOp, kClear)
TG_POLICY(BroadcastToOp, kClear)
TG_POLICY(TransposeOp, kClear)
TG_POLICY(ConcatOp, kClear)
TG_POLICY(SliceOp, kClear)
TG_POLICY(PadOp, kClear)
TG_POLICY(GatherOp, kClear)
TG_POLICY(GradSeedOp, kClear)

#undef TG_POLICY

template <typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<TGModel<Ops>>(*ctx), ...);
}

} // namespace

void attachPrecisionPolicy(MLIRContext *ctx) {
  attach<MatmulOp, BatchMatmulOp, Conv2DOp, Conv2DBackwardInputOp,
         Conv2DBackwardFilterOp>(ctx);
  attach<AddOp, SubOp, MulOp, DivOp, BiasAddOp, BiasAddGradOp, AvgPool2DOp,
         AvgPool2DGradOp, BatchNormOp, BatchNormGradOp, LayerNormOp,
         LayerNormGradOp, LeakyReluOp, LeakyReluGradOp, GeluOp, GeluGradOp,
         SiluOp, ErfOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SquareOp,
         SigmoidOp, SigmoidGradOp, TanhOp, TanhGradOp, SoftmaxOp, SoftmaxGradOp,
         LogSoftmaxOp, LogSoftmaxGradOp>(ctx);
  attach<ExpOp, PowOp, ReduceSumOp, ReduceMeanOp, SoftmaxCrossEntropyOp,
         SoftmaxCrossEntropyGradOp, GatherGradOp, SgdUpdateOp, MomentumUpdateOp,
         AdamUpdateOp, ClipByGlobalNormOp, AllReduceOp>(ctx);
  attach<NegOp, AbsOp, ReluOp, ReluGradOp, MaximumOp, MinimumOp, CompareOp,
         SelectOp, IsFiniteOp, ReduceMaxOp, MaxPool2DOp, MaxPool2DGradOp,
         ReshapeOp, BroadcastToOp, TransposeOp, ConcatOp, SliceOp, PadOp,
         GatherOp, GradSeedOp>(ctx);
}

} // namespace amp::tg
