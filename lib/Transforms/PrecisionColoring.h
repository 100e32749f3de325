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
  /// Op nodes only: where the producers of its operands start in the
  /// graph's flat table (ColoringGraph::getProducer). Edges live in the
  /// graph too: a node stays small, so the painting steps sweep few bytes.
  unsigned firstProducer = 0;

  /// Which operands and results are precision data (cached interface
  /// answers).
  llvm::SmallBitVector precisionOperands, precisionResults;
  /// Precision results that keep f32 when the op is low (accumulators).
  llvm::SmallBitVector wideResults;
  /// Some precision operand comes from a constant-like op (its values may
  /// not fit the low type).
  bool constantOperand = false;
  /// Some result is used other than as a precision operand of a node (by
  /// a terminator, an op outside the graph, a non-precision operand).
  bool usedOutside = false;

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
  /// The node producing operand `index` of the op of `node` (an op or a
  /// carried value), or kNoNode.
  unsigned getProducer(const ColorNode &node, unsigned index) const {
    return producers[node.firstProducer + index];
  }
  /// The nodes with an edge into / out of node `id`.
  llvm::ArrayRef<unsigned> getInputs(unsigned id) const {
    return llvm::ArrayRef(inputs).slice(inputStart[id],
                                        inputStart[id + 1] - inputStart[id]);
  }
  llvm::ArrayRef<unsigned> getOutputs(unsigned id) const {
    return llvm::ArrayRef(outputs).slice(outputStart[id],
                                         outputStart[id + 1] - outputStart[id]);
  }
  /// Whether some op of the function has successors (without them no
  /// value is computed inside a cf loop).
  bool hasSuccessors() const { return anySuccessors; }
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
  /// Turns the edge list into the input and output tables.
  void indexEdges();
  void setProducer(unsigned node, unsigned index, unsigned producer) {
    producers[nodes[node].firstProducer + index] = producer;
  }
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
  /// Every op node's operands' producers, node after node.
  std::vector<unsigned> producers;
  /// Edges as added while building (from, to), then per node in order of
  /// addition: inputs[inputStart[id] .. inputStart[id + 1]) and likewise
  /// for outputs.
  std::vector<std::pair<unsigned, unsigned>> edges;
  std::vector<unsigned> inputStart, inputs, outputStart, outputs;
  llvm::DenseMap<mlir::Operation *, unsigned> opNodes;
  llvm::DenseMap<mlir::Value, unsigned> carrierNodes;
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, unsigned> forwards;
  llvm::DenseMap<mlir::Operation *, llvm::StringRef> outside;
  llvm::SmallVector<mlir::Operation *> regionBranchOps, branchOps,
      existingCasts, carryingOps;
  bool anySuccessors = false;
};

/// "loc(...)" of `loc`, for reasons and reports.
std::string formatLocation(mlir::Location loc);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
