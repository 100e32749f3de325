//===- PrecisionColoring.h - The allow/infer/clear/deny graph ---*- C++ -*-===//
//
// The colouring half of --amp-auto-mixed-precision: a graph whose nodes are
// the f32 ops that take part (and one node per class of values carried
// through loops and branches), and TensorFlow's painting steps over it. The
// pass rewrites the IR from the result.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
#define AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H

#include "ConstantConversion.h"
#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include <string>
#include <vector>

namespace amp {

/// Why a node ended with its colour; turned into text only when a report,
/// remark or annotation asks (building strings per op would dominate the
/// pass's run time on large graphs).
enum class ColorReason {
  None,
  AllowList,
  DenyList,
  ForcedByAttribute,
  InferAsDeny,
  DenySpread,
  BetweenAllow,
  FollowsAllowBF16,
  ClearConnected,
  CarriedConnected,
  ForceAll,
  CannotCompute,
  ConstantOutOfRange,
  CarriedTypeFixed,
  CarriedNotConnected,
  NoAllowOps,
  TensorCoresOnly,
  InferNotBetween,
  ClearNotConnected,
};

/// An op, or a class of values carried through region control flow, in the
/// colouring graph.
struct ColorNode {
  static constexpr unsigned kNoNode = ~0u;

  mlir::Operation *op = nullptr; // Null for a carried-value class.
  PrecisionClass cls = PrecisionClass::Clear;
  bool supports = true;
  bool forcedF32 = false;
  mlir::FloatType forcedType; // amp.precision = "f16" / "bf16".
  /// Carried values only: index into ColoringGraph::getCarried().
  unsigned carried = ~0u;
  llvm::SmallVector<unsigned, 2> in, out;

  /// Which operands and results are precision data (cached interface
  /// answers).
  llvm::SmallBitVector precisionOperands, precisionResults;
  /// Precision results that keep f32 when the op is low (accumulators).
  llvm::SmallBitVector wideResults;
  /// Per operand: the node producing it (an op or a carried value), or
  /// kNoNode.
  llvm::SmallVector<unsigned, 2> producers;

  // The outcome.
  bool allow = false;
  bool deny = false;
  mlir::FloatType target;
  ColorReason reason = ColorReason::None;
  /// For DenySpread: the deny node it spread from.
  unsigned reasonSource = ~0u;
};

/// Values that control flow (loops, branches, block arguments) ties to one
/// type.
struct CarriedValues {
  llvm::SmallVector<mlir::Value, 4> values;
  /// The operands that forward into them (init operands, yields, branch
  /// operands...).
  llvm::SmallVector<mlir::OpOperand *, 4> feeds;
  /// Something other than a forwarded operand fixes their type (a branch
  /// that produces the operand itself, a predecessor the pass cannot
  /// read): they keep f32.
  bool typeFixed = false;
};

class ColoringGraph {
public:
  ColoringGraph(const PrecisionPolicy &policy, ConstantConverter &constants)
      : policy(policy), constants(constants) {}

  /// Builds the graph for the body of `function`; fails (with a diagnostic)
  /// on IR the pass cannot handle, such as an unexpanded tg.gradients.
  llvm::LogicalResult build(mlir::Operation *function);

  /// Runs the painting steps. Returns false when the allow set is empty:
  /// nothing is converted.
  bool color();

  llvm::ArrayRef<ColorNode> getNodes() const { return nodes; }
  const CarriedValues &getCarried(const ColorNode &node) const {
    return carried[node.carried];
  }
  const ColorNode *lookup(mlir::Operation *op) const;
  /// The carried-value class a terminator operand forwards into, if any.
  const ColorNode *forwardedInto(mlir::Operation *user, unsigned index) const;
  /// Why an op that is not in the graph keeps its types ("unknown op", ...).
  llvm::StringRef outsideReason(mlir::Operation *op) const;
  /// The human-readable reason of `node`'s colour.
  std::string describeReason(const ColorNode &node) const;
  /// Whether operand `index` of the op of `node` is precision data.
  static bool isPrecisionOperand(const ColorNode &node, unsigned index) {
    return index < node.precisionOperands.size() &&
           node.precisionOperands[index];
  }
  static bool isPrecisionResult(const ColorNode &node, unsigned index) {
    return index < node.precisionResults.size() && node.precisionResults[index];
  }
  /// Whether result `index` of the op of `node` takes the low type when the
  /// op does (a precision result that does not stay wide).
  static bool isRetypedResult(const ColorNode &node, unsigned index) {
    return isPrecisionResult(node, index) &&
           !(index < node.wideResults.size() && node.wideResults[index]);
  }
  /// The region-branch ops (loops, ifs) and blocks with branch-fed
  /// arguments whose types follow the carried values.
  llvm::ArrayRef<mlir::Operation *> getCarryingOps() const {
    return carryingOps;
  }
  /// The amp.cast ops that were in the function before the pass.
  llvm::ArrayRef<mlir::Operation *> getExistingCasts() const {
    return existingCasts;
  }

private:
  unsigned addOpNode(mlir::Operation *op, PrecisionPolicyOpInterface iface,
                     PrecisionClass cls);
  void buildCarriedValueClasses(mlir::Operation *function);
  /// Whether result `index` of `op` is precision data of a graph node.
  bool isNodeResult(mlir::Value value, unsigned &node) const;
  void addEdge(unsigned from, unsigned to);
  PrecisionClass effectiveClass(const ColorNode &node) const;
  bool isPromotable(const ColorNode &node) const;
  void markAllow(unsigned id, ColorReason reason);

  void spreadDeny();
  void joinBetweenAllow();
  void followAllowForBF16();
  void spreadAllowThroughClear();
  void removeUnsupported();

  const PrecisionPolicy &policy;
  ConstantConverter &constants;
  std::vector<ColorNode> nodes;
  std::vector<CarriedValues> carried;
  llvm::DenseMap<mlir::Operation *, unsigned> opNodes;
  llvm::DenseMap<mlir::Value, unsigned> carrierNodes;
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, unsigned> forwards;
  llvm::DenseMap<mlir::Operation *, llvm::StringRef> outside;
  llvm::SmallVector<mlir::Operation *> regionBranchOps, branchOps,
      existingCasts, carryingOps;
};

/// "loc(...)" of `loc`, for reasons and reports.
std::string formatLocation(mlir::Location loc);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
