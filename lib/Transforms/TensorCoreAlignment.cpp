//===- TensorCoreAlignment.cpp - Which contractions miss Tensor Cores -----===//

#include "TensorCoreAlignment.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace amp {

namespace {

/// What a cast or transpose reads; null for any other op.
Value sourceOf(Operation *op) {
  if (isa<CastOp, CastOpInterface, tosa::CastOp, tg::TransposeOp,
          tosa::TransposeOp>(op) &&
      op->getNumOperands() >= 1)
    return op->getOperand(0);
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
    return transpose.getInput();
  return {};
}

} // namespace

bool isParameter(Value value) {
  while (Operation *producer = value.getDefiningOp()) {
    if (producer->hasTrait<OpTrait::ConstantLike>())
      return true;
    value = sourceOf(producer);
    if (!value)
      return false;
  }
  auto arg = cast<BlockArgument>(value);
  auto function = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!function)
    return false;
  auto roleOf = [&](unsigned index) {
    auto role = function.getArgAttrOfType<StringAttr>(
        index, tg::TGDialect::kRoleAttrName);
    return role ? role.getValue() : StringRef();
  };
  StringRef role = roleOf(arg.getArgNumber());
  if (!role.empty())
    return role == "param";
  // An evaluation function (amp-run's predict) marks its data as input
  // and leaves the parameters it is given unmarked.
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (roleOf(i) == "input")
      return true;
  return false;
}

bool TensorCoreAlignment::paddable() const {
  return llvm::any_of(
      misaligned, [](const MisalignedDim &dim) { return dim.parameterOwned; });
}

int64_t tensorCoreMultiple(unsigned bits) { return bits <= 8 ? 16 : 8; }

std::optional<TensorCoreAlignment> checkTensorCoreAlignment(Operation *op,
                                                            unsigned bits) {
  auto shape = dyn_cast<TensorCoreShapeOpInterface>(op);
  if (!shape)
    return std::nullopt;
  SmallVector<TensorCoreDim> dims = shape.getTensorCoreDims();
  if (dims.empty())
    return std::nullopt;
  TensorCoreAlignment alignment;
  alignment.multiple = tensorCoreMultiple(bits);
  for (const TensorCoreDim &dim : dims) {
    if (ShapedType::isDynamic(dim.size)) {
      alignment.dynamic.push_back(dim.name.str());
      continue;
    }
    int64_t rest = dim.size % alignment.multiple;
    if (rest == 0)
      continue;
    bool owned = llvm::any_of(dim.operands, [&](unsigned index) {
      return index < op->getNumOperands() && isParameter(op->getOperand(index));
    });
    alignment.misaligned.push_back({dim.name.str(), dim.size,
                                    dim.size + alignment.multiple - rest,
                                    owned});
  }
  return alignment;
}

std::string TensorCoreAlignment::describeMisaligned() const {
  std::string text;
  for (const MisalignedDim &dim : misaligned)
    text += (text.empty() ? "" : ", ") + dim.name + " = " +
            std::to_string(dim.size) + " (pad to " +
            std::to_string(dim.padded) + ")";
  return text;
}

void TensorCoreChecks::check(Operation *op, unsigned bits) {
  std::optional<TensorCoreAlignment> outcome =
      checkTensorCoreAlignment(op, bits);
  if (!outcome)
    return;
  ++contractions;
  aligned += outcome->aligned();
  paddable += outcome->paddable();
  multiple = outcome->multiple;
  outcomes[op] = std::move(*outcome);
}

const TensorCoreAlignment *TensorCoreChecks::lookup(Operation *op) const {
  auto found = outcomes.find(op);
  return found == outcomes.end() ? nullptr : &found->second;
}

std::string TensorCoreChecks::summary(llvm::StringRef precision) const {
  std::string text = "amp: Tensor Cores: " + std::to_string(aligned) + " of " +
                     std::to_string(contractions) + " " + precision.str() +
                     " contractions aligned (multiples of " +
                     std::to_string(multiple) + ")";
  if (aligned == contractions)
    return text;
  return text + "; " + std::to_string(contractions - aligned) +
         " misaligned, " + std::to_string(paddable) +
         " of them in a dimension a parameter owns (paddable)";
}

} // namespace amp
