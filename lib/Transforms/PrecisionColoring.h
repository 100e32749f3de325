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
#include "NearbyKeyInfo.h"
#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include <string>
#include <vector>

namespace amp {

/// Why a node ended with its colour; turned into text only when a report,
/// remark or annotation asks (building strings per op would dominate the
/// pass's run time on large graphs).
enum class ColorReason : uint8_t {
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
  ClearAfterWideResult,
  ClearFewerCastsWide,
};

/// An op, or a class of values carried through region control flow, in the
/// colouring graph. One cache line: the build writes a million of them and
/// the rewrite reads them again (edges, painting state and forced types live
/// in the graph).
struct ColorNode {
  static constexpr unsigned kNoNode = ~0u;

  mlir::Operation *op = nullptr; // Null for a carried-value class.
  /// The outcome: the type an allow node computes in.
  mlir::FloatType target;
  /// Cached interface answers: bit i for operand i is set when it is
  /// precision data; then two bits per result: precision data, and kept
  /// f32 when the op is low (an accumulator). Read them through
  /// ColoringGraph::isPrecisionOperand and the like.
  llvm::SmallBitVector valueBits;
  PrecisionClass cls = PrecisionClass::Clear;
  /// Carried values only: index into ColoringGraph::getCarried().
  unsigned carried = ~0u;
  /// Op nodes only: where the producers of its operands start in the
  /// graph's flat table (ColoringGraph::getProducer).
  unsigned firstProducer = 0;
  /// Op nodes only: where the result bits start in valueBits.
  unsigned numOperands = 0;
  /// For DenySpread: the deny node it spread from.
  unsigned reasonSource = ~0u;
  /// None on a node that keeps f32 for want of a reason of its own:
  /// ColoringGraph::describeReason works that one out when asked.
  ColorReason reason = ColorReason::None;

  bool supports = true;
  bool forcedF32 = false;
  /// amp.precision names a low type (ColoringGraph keeps which).
  bool forcedLow = false;
  /// Some precision operand comes from a constant-like op (its values may
  /// not fit the low type).
  bool constantOperand = false;
  /// Some result is used other than as a precision operand of a node (by
  /// a terminator, an op outside the graph, a non-precision operand).
  bool usedOutside = false;
  /// Some precision result keeps f32 when the op is low.
  bool anyWideResult = false;

  // The outcome.
  bool allow = false;
  bool deny = false;
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
  /// Forgets `ops`, which the rewrite erased: the graph knows ops by
  /// address, and an op made later (an FP8 quantization) may take one of
  /// those addresses; it must not be described as the erased op. The ops
  /// are not read.
  void forget(llvm::ArrayRef<mlir::Operation *> ops);
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
    return index < node.numOperands && node.valueBits[index];
  }
  static bool isPrecisionResult(const ColorNode &node, unsigned index) {
    unsigned bit = node.numOperands + 2 * index;
    return bit < node.valueBits.size() && node.valueBits[bit];
  }
  /// Whether result `index` of the op of `node` takes the low type when the
  /// op does (a precision result that does not stay wide).
  static bool isRetypedResult(const ColorNode &node, unsigned index) {
    return isPrecisionResult(node, index) &&
           !node.valueBits[node.numOperands + 2 * index + 1];
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
  class Builder;
  unsigned addOpNode(mlir::Operation *op, PrecisionPolicyOpInterface iface,
                     PrecisionClass cls);
  void buildCarriedValueClasses();
  struct CarriedLinks;
  void linkRegionForwards(mlir::RegionBranchOpInterface branch,
                          CarriedLinks &links);
  void linkBranchForwards(CarriedLinks &links);
  llvm::DenseMap<mlir::Value, unsigned>
  addCarriedNodes(const CarriedLinks &links);
  void linkCarriedNodes(const CarriedLinks &links,
                        const llvm::DenseMap<mlir::Value, unsigned> &classNode);
  /// Whether result `index` of `op` is precision data of a graph node.
  bool isNodeResult(mlir::Value value, unsigned &node) const;
  void addEdge(unsigned from, unsigned to);
  /// Turns the edge list into the input and output tables.
  void indexEdges();
  void setProducer(unsigned node, unsigned index, unsigned producer) {
    producers[nodes[node].firstProducer + index] = producer;
  }
  PrecisionClass effectiveClass(const ColorNode &node) const;
  /// Why a node that ends in f32 with no reason of its own keeps it.
  ColorReason keptReason(const ColorNode &node) const;

  // One byte per node for the painting steps, beside the nodes: the sweeps
  // and traversals over a million nodes then read a megabyte instead of a
  // hundred bytes per node. The low two bits hold the effective class.
  static constexpr uint8_t kClassMask = 3;
  /// Forced or unable to take the type: propagation never paints it.
  static constexpr uint8_t kPinnedBit = 4;
  static constexpr uint8_t kForcedTypeBit = 8;
  static constexpr uint8_t kAllowBit = 16;
  static constexpr uint8_t kDenyBit = 32;
  /// Allow in the policy's low type: a root of propagation.
  static constexpr uint8_t kLowAllowBit = 64;
  PrecisionClass paintedClass(unsigned id) const {
    return static_cast<PrecisionClass>(paint[id] & kClassMask);
  }
  /// Whether propagation may turn node `id` allow: not yet painted, not
  /// forced, and able to take the type.
  bool isPromotable(unsigned id) const {
    return !(paint[id] & (kAllowBit | kDenyBit | kPinnedBit));
  }
  /// Whether every precision result of op node `id` stays f32 when the op
  /// is low (a contraction into an f32 accumulator): its users get f32
  /// either way.
  bool resultsStayWide(unsigned id) const;
  void markAllow(unsigned id, mlir::FloatType target, ColorReason reason);
  void markDeny(unsigned id, ColorReason reason, unsigned source);
  llvm::SmallVector<unsigned> lowAllowNodes() const;

  void spreadDeny();
  void joinBetweenAllow();
  void followAllowForBF16();
  void spreadAllowThroughClear();
  void removeUnsupported();
  void keepWideWhereFewerCasts();
  /// The clear nodes that propagation alone turned low, connected to `seed`
  /// through one another; each gets `seed` as its `groupOf`.
  llvm::SmallVector<unsigned>
  propagatedLowGroup(unsigned seed, std::vector<unsigned> &groupOf);
  /// What enters and leaves a group of nodes: values that arrive f32 or
  /// low, and group nodes with f32 or low users outside it.
  struct GroupEdges {
    unsigned wideIn = 0, lowIn = 0, wideOut = 0, lowOut = 0;
  };
  GroupEdges edgesOf(llvm::ArrayRef<unsigned> group, unsigned seed,
                     const std::vector<unsigned> &groupOf) const;

  const PrecisionPolicy &policy;
  ConstantConverter &constants;
  std::vector<ColorNode> nodes;
  std::vector<uint8_t> paint;
  /// The low type amp.precision forces on a node (ColorNode::forcedLow).
  llvm::DenseMap<unsigned, mlir::FloatType> forcedTypes;
  /// Whether step 1 found an allow op (else nothing converts).
  bool anyAllow = false;
  std::vector<CarriedValues> carried;
  /// Every op node's operands' producers, node after node.
  std::vector<unsigned> producers;
  /// Edges as added while building (from, to), then per node in order of
  /// addition: inputs[inputStart[id] .. inputStart[id + 1]) and likewise
  /// for outputs.
  std::vector<std::pair<unsigned, unsigned>> edges;
  std::vector<unsigned> inputStart, inputs, outputStart, outputs;
  llvm::DenseMap<mlir::Operation *, unsigned, NearbyKeyInfo<mlir::Operation>>
      opNodes;
  llvm::DenseMap<mlir::Value, unsigned> carrierNodes;
  llvm::DenseMap<std::pair<mlir::Operation *, unsigned>, unsigned> forwards;
  llvm::DenseMap<mlir::Operation *, llvm::StringRef,
                 NearbyKeyInfo<mlir::Operation>>
      outside;
  llvm::SmallVector<mlir::Operation *> regionBranchOps, branchOps,
      existingCasts, carryingOps;
  bool anySuccessors = false;
};

/// "loc(...)" of `loc`, for reasons and reports.
std::string formatLocation(mlir::Location loc);

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONCOLORING_H
