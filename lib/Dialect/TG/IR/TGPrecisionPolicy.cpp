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

constexpr PrecisionClass kAllow = PrecisionClass::Allow;
constexpr PrecisionClass kInfer = PrecisionClass::Infer;
constexpr PrecisionClass kClear = PrecisionClass::Clear;
constexpr PrecisionClass kDeny = PrecisionClass::Deny;

#define TG_POLICY(OP, ...)                                                     \
  template <> TGPolicy TGModel<OP>::policy() { return TGPolicy{__VA_ARGS__}; }
#include "TGPrecisionPolicies.def"

} // namespace

void attachPrecisionPolicy(MLIRContext *ctx) {
#define TG_POLICY(OP, ...) OP::attachInterface<TGModel<OP>>(*ctx);
#include "TGPrecisionPolicies.def"
}

} // namespace amp::tg
