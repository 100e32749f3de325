//===- PrecisionColoring.cpp - The allow/infer/clear/deny graph -----------===//
//
// TensorFlow's auto-mixed-precision painting (grappler's
// AutoMixedPrecisionImpl) on MLIR values: depth-first traversals over the
// graph of ops whose float values are f32. Every traversal visits a node at
// most once per step, so colouring is linear in the size of the graph.
//
//===----------------------------------------------------------------------===//

#include "PrecisionColoring.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace amp {

std::string formatLocation(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

static std::string describe(Operation *op) {
  return op->getName().getStringRef().str() + " at " +
         formatLocation(op->getLoc());
}

/// Element type name for reasons ("f16", "bf16").
static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream(s) << type;
  return s;
}

//===----------------------------------------------------------------------===//
// Building the graph
//===----------------------------------------------------------------------===//

void ColoringGraph::addEdge(unsigned from, unsigned to) {
  // Duplicate edges (an op using one value twice) are harmless: traversals
  // visit each node once. Checking for them would cost O(fan-out) per edge.
  if (from == to)
    return;
  edges.push_back({from, to});
}

void ColoringGraph::indexEdges() {
  size_t n = nodes.size();
  inputStart.assign(n + 1, 0);
  outputStart.assign(n + 1, 0);
  for (auto [from, to] : edges) {
    ++outputStart[from + 1];
    ++inputStart[to + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    inputStart[i + 1] += inputStart[i];
    outputStart[i + 1] += outputStart[i];
  }
  inputs.resize(edges.size());
  outputs.resize(edges.size());
  std::vector<unsigned> nextInput(inputStart.begin(), inputStart.end() - 1);
  std::vector<unsigned> nextOutput(outputStart.begin(), outputStart.end() - 1);
  for (auto [from, to] : edges) {
    outputs[nextOutput[from]++] = to;
    inputs[nextInput[to]++] = from;
  }
  edges.clear();
  edges.shrink_to_fit();
}

unsigned ColoringGraph::addOpNode(Operation *op,
                                  PrecisionPolicyOpInterface iface,
                                  PrecisionClass cls) {
  unsigned id = nodes.size();
  ColorNode node;
  node.op = op;
  node.cls = cls;
  node.supports = PrecisionPolicy::supports(op, iface, policy.getLowType());
  if (auto forced =
          // A dialect attribute: never inherent, so only the op's own
          // dictionary is searched (getAttr asks the op's properties first).
      dyn_cast_if_present<StringAttr>(
          op->getDiscardableAttr(AMPDialect::kPrecisionAttrName))) {
    if (forced.getValue() == "f32") {
      node.forcedF32 = true;
    } else if (FloatType type =
                   parseLowPrecisionType(op->getContext(), forced.getValue())) {
      node.forcedLow = true;
      forcedTypes[id] = type;
    }
  }
  nodes.push_back(std::move(node));
  opNodes[op] = id;
  return id;
}

/// The walk that builds the graph: one node per op whose float values take
/// part, edges between them as their operands are met.
class ColoringGraph::Builder {
public:
  explicit Builder(ColoringGraph &graph) : graph(graph) {}

  /// Adds the node `op` becomes, if any, and links its operands.
  LogicalResult visit(Operation *op) {
    graph.anySuccessors |= op->getNumSuccessors() != 0;
    const NameFacts &facts = factsOf(op);
    if (facts.gradients)
      return op->emitError("tg.gradients must be expanded before "
                           "--amp-auto-mixed-precision: run --tg-autodiff "
                           "first");
    linkOperands(op, addNode(op, facts));
    return success();
  }

  /// Links the operands whose producer may come later in the walk
  /// (another block, a graph region).
  void linkDeferred() {
    for (auto [id, operand] : deferredOperands)
      link(id, operand->getOperandNumber(), cast<OpResult>(operand->get()));
  }

private:
  /// What every op of a name shares (traits, interfaces, list entries),
  /// asked once per name instead of once per op.
  struct NameFacts {
    bool gradients, cast, regionBranch, branch, constant, terminator, empty,
        hasModel;
    std::optional<PrecisionClass> listed;
  };

  const NameFacts &factsOf(Operation *op) {
    auto [it, inserted] = factsByName.try_emplace(op->getName());
    if (inserted)
      it->second = {isa<tg::GradientsOp>(op),
                    isa<CastOp>(op),
                    isa<RegionBranchOpInterface>(op),
                    isa<BranchOpInterface>(op),
                    op->hasTrait<OpTrait::ConstantLike>(),
                    op->hasTrait<OpTrait::IsTerminator>(),
                    isa<tensor::EmptyOp>(op),
                    isa<PrecisionPolicyOpInterface>(op),
                    graph.policy.getListedClass(op->getName())};
    return it->second;
  }

  static bool hasFloat(Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isFloatTensor) ||
           llvm::any_of(op->getResultTypes(), isFloatTensor);
  }

  /// The node `op` becomes, or kNoNode.
  unsigned addNode(Operation *op, const NameFacts &facts) {
    // Constants and existing casts are settled while rewriting: constants
    // fold into low-precision copies, casts are retyped (step 8).
    if (facts.cast)
      graph.existingCasts.push_back(op);
    if (facts.regionBranch)
      graph.regionBranchOps.push_back(op);
    if (facts.branch)
      graph.branchOps.push_back(op);
    // Terminators take the types their parent or successors require, and
    // control flow carries values through its own nodes (below): neither is
    // ever retyped as an op, whatever a list says.
    if (facts.cast || facts.constant || facts.terminator)
      return ColorNode::kNoNode;

    auto iface = facts.hasModel ? cast<PrecisionPolicyOpInterface>(op)
                                : PrecisionPolicyOpInterface();
    std::optional<PrecisionClass> cls =
        facts.listed ? facts.listed : graph.policy.getModelClass(iface);
    if (std::optional<StringRef> reason =
            exclusion(op, facts, iface, cls.has_value())) {
      if (facts.empty || hasFloat(op))
        graph.outside[op] = *reason;
      return ColorNode::kNoNode;
    }
    return addPrecisionNode(op, iface, cls.value_or(PrecisionClass::Clear));
  }

  /// Why `op` stays out of the graph whatever its types, or nullopt.
  static std::optional<StringRef> exclusion(Operation *op,
                                            const NameFacts &facts,
                                            PrecisionPolicyOpInterface iface,
                                            bool classified) {
    // An empty tensor holds no data: a user in another precision gets its
    // own (the rewrite makes one) rather than a cast.
    if (facts.empty)
      return StringRef("empty tensor: users in another precision get their "
                       "own");
    if (!iface && facts.regionBranch)
      return StringRef("control flow: its values are carried values, "
                       "coloured with the ops they connect");
    if (!classified && !op->getDiscardableAttr(AMPDialect::kPrecisionAttrName))
      return StringRef("unknown op");
    // An op with regions keeps its types unless its model says how to
    // convert them (a list naming scf.for would otherwise retype the loop's
    // results without its body); region control flow is coloured through
    // its carried values instead.
    if (!iface && op->getNumRegions() != 0)
      return StringRef("has regions: it changes precision only through "
                       "PrecisionPolicyOpInterface");
    return std::nullopt;
  }

  /// The node of an op the policy classifies, or kNoNode. It takes part
  /// only when every precision value is f32: an op already in f16/bf16 is
  /// never recoloured and colour does not travel through it.
  unsigned addPrecisionNode(Operation *op, PrecisionPolicyOpInterface iface,
                            PrecisionClass cls) {
    unsigned numPrecision = 0;
    bool allF32 = true, anyWide = false;
    unsigned numOperands = op->getNumOperands();
    llvm::SmallBitVector valueBits(numOperands + 2 * op->getNumResults());
    for (unsigned i = 0; i < numOperands; ++i)
      if (PrecisionPolicy::isPrecisionOperand(op, iface, i)) {
        valueBits[i] = true;
        ++numPrecision;
        allF32 &= isF32Tensor(op->getOperand(i).getType());
      }
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      if (PrecisionPolicy::isPrecisionResult(op, iface, i)) {
        bool wide = iface && iface.keepsResultWide(i);
        valueBits[numOperands + 2 * i] = true;
        valueBits[numOperands + 2 * i + 1] = wide;
        anyWide |= wide;
        ++numPrecision;
        allF32 &= isF32Tensor(op->getResult(i).getType());
      }
    if (numPrecision == 0)
      return ColorNode::kNoNode;
    if (!allF32) {
      graph.outside[op] = "already computes in another precision";
      return ColorNode::kNoNode;
    }
    unsigned id = graph.addOpNode(op, iface, cls);
    ColorNode &node = graph.nodes[id];
    node.valueBits = std::move(valueBits);
    node.numOperands = numOperands;
    node.anyWideResult = anyWide;
    node.firstProducer = graph.producers.size();
    graph.producers.resize(graph.producers.size() + numOperands,
                           ColorNode::kNoNode);
    return id;
  }

  /// Every operand is looked at once, as the walk meets its user and while
  /// the user is in cache. A producer in the user's own block of an SSA
  /// region has been walked already; other operands wait for
  /// linkDeferred.
  void linkOperands(Operation *op, unsigned id) {
    Block *block = op->getBlock();
    if (block != lastBlock) {
      lastBlock = block;
      lastBlockOrdered = mayHaveSSADominance(*block->getParent());
    }
    for (auto [index, operand] : llvm::enumerate(op->getOpOperands())) {
      auto result = dyn_cast<OpResult>(operand.get());
      if (!result)
        continue; // A block argument: a carried value or no node.
      Operation *owner = result.getOwner();
      if (id != ColorNode::kNoNode &&
          isPrecisionOperand(graph.nodes[id], index) &&
          owner->hasTrait<OpTrait::ConstantLike>())
        graph.nodes[id].constantOperand = true;
      if (!lastBlockOrdered || owner->getBlock() != block)
        deferredOperands.push_back({id, &operand});
      else
        link(id, index, result);
    }
  }

  /// A precision operand of a node is a data edge; any other use of a
  /// node's result marks the node used outside the graph, so the rewrite
  /// checks that node's uses and no other's.
  void link(unsigned user, unsigned index, OpResult result) {
    auto it = graph.opNodes.find(result.getOwner());
    if (it == graph.opNodes.end())
      return;
    unsigned producer = it->second;
    if (user == ColorNode::kNoNode ||
        !isPrecisionOperand(graph.nodes[user], index))
      graph.nodes[producer].usedOutside = true;
    else if (isPrecisionResult(graph.nodes[producer],
                               result.getResultNumber())) {
      graph.addEdge(producer, user);
      graph.setProducer(user, index, producer);
    }
  }

  ColoringGraph &graph;
  SmallVector<std::pair<unsigned, OpOperand *>> deferredOperands;
  llvm::DenseMap<OperationName, NameFacts> factsByName;
  Block *lastBlock = nullptr;
  bool lastBlockOrdered = false;
};

LogicalResult ColoringGraph::build(Operation *function) {
  // Most functions are one block of ops: size the node table once.
  if (function->getNumRegions() == 1 && !function->getRegion(0).empty()) {
    size_t numOps = function->getRegion(0).front().getOperations().size();
    nodes.reserve(numOps);
    opNodes.reserve(numOps);
  }
  Builder builder(*this);
  WalkResult walk = function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == function)
      return WalkResult::advance();
    return failed(builder.visit(op)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  buildCarriedValueClasses();
  builder.linkDeferred();
  indexEdges();
  return success();
}

/// Every value that receives a forwarded operand (a loop's iter_arg and
/// result, a branch target's block argument), and every carried value
/// forwarded on, must keep one type with what it is tied to: classes of
/// values, each one node.
struct ColoringGraph::CarriedLinks {
  struct Forward {
    Operation *user;
    unsigned operand;
    Value input;
  };
  llvm::EquivalenceClasses<Value> classes;
  SmallVector<Forward> forwarded;
  /// Values whose type the pass cannot change.
  llvm::DenseSet<Value> fixed;

  void link(Operation *user, unsigned operand, Value input) {
    classes.insert(input);
    forwarded.push_back({user, operand, input});
  }
  /// Operand k of `operands` forwards into input k of `inputs`.
  void linkAll(Operation *user, OperandRange operands, ValueRange inputs) {
    for (unsigned k = 0, e = std::min(operands.size(), inputs.size()); k < e;
         ++k)
      link(user, operands.getBeginOperandIndex() + k, inputs[k]);
  }
};

void ColoringGraph::buildCarriedValueClasses() {
  CarriedLinks links;
  for (Operation *op : regionBranchOps)
    linkRegionForwards(cast<RegionBranchOpInterface>(op), links);
  linkBranchForwards(links);
  // One operand has one type: the values it forwards into (a yield's
  // operand reaches the next iteration and the loop's result) join, and a
  // forwarded operand that is itself carried joins its targets.
  llvm::DenseMap<std::pair<Operation *, unsigned>, Value> firstInput;
  for (CarriedLinks::Forward &f : links.forwarded) {
    auto [it, inserted] = firstInput.try_emplace({f.user, f.operand}, f.input);
    if (!inserted)
      links.classes.unionSets(it->second, f.input);
    Value source = f.user->getOperand(f.operand);
    if (links.classes.contains(source))
      links.classes.unionSets(source, f.input);
  }
  if (links.classes.empty())
    return;
  llvm::DenseMap<Value, unsigned> classNode = addCarriedNodes(links);
  linkCarriedNodes(links, classNode);
}

void ColoringGraph::linkRegionForwards(RegionBranchOpInterface branch,
                                       CarriedLinks &links) {
  SmallVector<RegionSuccessor> successors;
  branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (RegionSuccessor &successor : successors)
    links.linkAll(branch, branch.getEntrySuccessorOperands(successor),
                  successor.getSuccessorInputs());
  for (Region &region : branch->getRegions())
    for (Block &block : region) {
      auto terminator = dyn_cast_or_null<RegionBranchTerminatorOpInterface>(
          block.empty() ? nullptr : &block.back());
      if (!terminator)
        continue;
      successors.clear();
      branch.getSuccessorRegions(RegionBranchPoint(terminator), successors);
      for (RegionSuccessor &successor : successors)
        links.linkAll(terminator, terminator.getSuccessorOperands(successor),
                      successor.getSuccessorInputs());
    }
}

/// Unstructured control flow: branch operands forward into the block
/// arguments of their successors. Arguments a branch produces itself, or
/// that a predecessor feeds in a way the pass cannot read, are fixed.
void ColoringGraph::linkBranchForwards(CarriedLinks &links) {
  for (Operation *op : branchOps) {
    auto branch = cast<BranchOpInterface>(op);
    for (unsigned i = 0, e = op->getNumSuccessors(); i < e; ++i) {
      Block *target = op->getSuccessor(i);
      SuccessorOperands operands = branch.getSuccessorOperands(i);
      unsigned produced = operands.getProducedOperandCount();
      for (unsigned k = 0; k < produced && k < target->getNumArguments(); ++k)
        links.fixed.insert(target->getArgument(k));
      OperandRange forwardedOperands = operands.getForwardedOperands();
      for (unsigned k = 0, n = forwardedOperands.size(); k < n; ++k)
        if (produced + k < target->getNumArguments())
          links.link(op, forwardedOperands.getBeginOperandIndex() + k,
                     target->getArgument(produced + k));
    }
  }
  for (Operation *op : branchOps)
    for (Block *target : op->getSuccessors())
      for (Block *pred : target->getPredecessors())
        if (!isa<BranchOpInterface>(pred->getTerminator()))
          for (BlockArgument arg : target->getArguments())
            links.fixed.insert(arg);
}

llvm::DenseMap<Value, unsigned>
ColoringGraph::addCarriedNodes(const CarriedLinks &links) {
  // One node per class whose carried values are all f32 tensors.
  llvm::DenseMap<Value, unsigned> classNode;
  const llvm::EquivalenceClasses<Value> &classes = links.classes;
  for (auto it = classes.begin(), e = classes.end(); it != e; ++it) {
    if (!(*it)->isLeader())
      continue;
    SmallVector<Value, 4> members(classes.member_begin(**it),
                                  classes.member_end());
    bool allF32 =
        llvm::all_of(members, [](Value v) { return isF32Tensor(v.getType()); });
    if (!allF32)
      continue;
    unsigned id = nodes.size();
    ColorNode node;
    node.carried = carried.size();
    bool typeFixed =
        llvm::any_of(members, [&](Value v) { return links.fixed.contains(v); });
    node.supports = !typeFixed;
    carried.push_back({members, {}, typeFixed});
    nodes.push_back(std::move(node));
    classNode[(*it)->getData()] = id;
    for (Value v : members) {
      carrierNodes[v] = id;
      if (Operation *owner = v.getDefiningOp())
        carryingOps.push_back(owner);
      else
        carryingOps.push_back(cast<BlockArgument>(v).getOwner()->getParentOp());
    }
  }
  llvm::sort(carryingOps);
  carryingOps.erase(llvm::unique(carryingOps), carryingOps.end());
  return classNode;
}

void ColoringGraph::linkCarriedNodes(
    const CarriedLinks &links,
    const llvm::DenseMap<Value, unsigned> &classNode) {
  // Feeders: the forwarded operands.
  for (const CarriedLinks::Forward &f : links.forwarded) {
    auto it = classNode.find(links.classes.getLeaderValue(f.input));
    if (it == classNode.end())
      continue;
    unsigned id = it->second;
    forwards[{f.user, f.operand}] = id;
    carried[nodes[id].carried].feeds.push_back(
        &f.user->getOpOperand(f.operand));
    Value source = f.user->getOperand(f.operand);
    if (carrierNodes.count(source))
      continue;
    unsigned producer;
    if (isNodeResult(source, producer))
      addEdge(producer, id);
  }
  // Consumers: every other use of a carried value.
  for (auto &[leader, id] : classNode) {
    for (Value v : carried[nodes[id].carried].values)
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (forwards.count({user, use.getOperandNumber()}))
          continue;
        auto consumer = opNodes.find(user);
        if (consumer != opNodes.end() &&
            isPrecisionOperand(nodes[consumer->second],
                               use.getOperandNumber())) {
          addEdge(id, consumer->second);
          // An op result that is also carried stays with its op (the walk
          // linked it already).
          unsigned index = use.getOperandNumber();
          if (getProducer(nodes[consumer->second], index) == ColorNode::kNoNode)
            setProducer(consumer->second, index, id);
        }
      }
  }
}

bool ColoringGraph::isNodeResult(Value value, unsigned &node) const {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return false;
  auto it = opNodes.find(result.getOwner());
  if (it == opNodes.end() ||
      !isPrecisionResult(nodes[it->second], result.getResultNumber()))
    return false;
  node = it->second;
  return true;
}

const ColorNode *ColoringGraph::lookup(Operation *op) const {
  auto it = opNodes.find(op);
  return it == opNodes.end() ? nullptr : &nodes[it->second];
}

void ColoringGraph::forget(ArrayRef<Operation *> ops) {
  if (ops.empty())
    return;
  llvm::SmallPtrSet<Operation *, 16> erased(ops.begin(), ops.end());
  for (Operation *op : erased) {
    opNodes.erase(op);
    outside.erase(op);
  }
  // One pass over the forwards, whatever the number of erased ops.
  SmallVector<std::pair<Operation *, unsigned>> stale;
  for (const auto &forward : forwards)
    if (erased.contains(forward.first.first))
      stale.push_back(forward.first);
  for (const auto &key : stale)
    forwards.erase(key);
}

const ColorNode *ColoringGraph::forwardedInto(Operation *user,
                                              unsigned index) const {
  auto it = forwards.find({user, index});
  return it == forwards.end() ? nullptr : &nodes[it->second];
}

StringRef ColoringGraph::outsideReason(Operation *op) const {
  auto it = outside.find(op);
  return it == outside.end() ? StringRef() : it->second;
}

std::string ColoringGraph::describeReason(const ColorNode &node) const {
  std::string target =
      typeName(node.target ? node.target : policy.getLowType());
  // Nodes that keep f32 are named only when asked: naming them took a
  // sweep over every node.
  ColorReason reason = node.reason == ColorReason::None && !node.allow
                           ? keptReason(node)
                           : node.reason;
  switch (reason) {
  case ColorReason::None:
    return "";
  case ColorReason::AllowList:
  case ColorReason::DenyList: {
    std::string list =
        reason == ColorReason::AllowList ? "allow list" : "deny list";
    // A class read from the op's body (a linalg.generic) says so.
    if (node.op && node.op->getNumRegions() != 0 && !policy.isListed(node.op))
      list += " (by what its body computes)";
    return list;
  }
  case ColorReason::ForcedByAttribute:
    return "forced by amp.precision";
  case ColorReason::InferAsDeny:
    return "infer op treated as deny (level=infer-as-deny)";
  case ColorReason::DenySpread:
    return "deny spread from " + describe(nodes[node.reasonSource].op);
  case ColorReason::BetweenAllow:
    return "between allow ops";
  case ColorReason::FollowsAllowBF16:
    return "infer op following allow ops (bf16 rule)";
  case ColorReason::ClearConnected:
    return "clear op connected to allow ops";
  case ColorReason::CarriedConnected:
    return "carried value connected to allow ops";
  case ColorReason::ForceAll:
    return "level=force-all";
  case ColorReason::CannotCompute:
    return "cannot compute in " + target;
  case ColorReason::ConstantOutOfRange:
    return "constant operand out of " + target + " range";
  case ColorReason::CarriedTypeFixed:
    return "carried value whose type a branch fixes";
  case ColorReason::CarriedNotConnected:
    return "carried value not connected to allow ops";
  case ColorReason::NoAllowOps:
    return "no allow op in the function: nothing converts";
  case ColorReason::TensorCoresOnly:
    return "level=tensor-cores-only converts only allow ops";
  case ColorReason::InferNotBetween:
    return "infer op not between allow ops";
  case ColorReason::ClearNotConnected:
    return "clear op not connected to allow ops";
  case ColorReason::ClearAfterWideResult:
    return "clear op after an allow op's f32 result, with no " + target +
           " user";
  case ColorReason::ClearFewerCastsWide:
    return "clear op whose f32 inputs and users need fewer casts than " +
           target + " would";
  }
  llvm_unreachable("unknown colour reason");
}

//===----------------------------------------------------------------------===//
// Painting
//===----------------------------------------------------------------------===//

PrecisionClass ColoringGraph::effectiveClass(const ColorNode &node) const {
  if (node.forcedF32)
    return PrecisionClass::Deny;
  if (node.cls == PrecisionClass::Infer &&
      policy.getLevel() == PrecisionLevel::InferAsDeny)
    return PrecisionClass::Deny;
  return node.cls;
}

/// Depth-first traversal from `roots` along `next` (in or out edges),
/// entering a node only when `enter` accepts it; calls `visit` once per
/// entered node (roots included).
template <typename Next, typename Enter, typename Visit>
static void traverse(size_t numNodes, ArrayRef<unsigned> roots, Next next,
                     Enter enter, Visit visit) {
  std::vector<bool> seen(numNodes, false);
  SmallVector<unsigned> stack;
  for (unsigned root : roots) {
    if (seen[root])
      continue;
    seen[root] = true;
    stack.push_back(root);
    visit(root, root);
    while (!stack.empty()) {
      unsigned id = stack.pop_back_val();
      for (unsigned n : next(id)) {
        if (seen[n] || !enter(n))
          continue;
        seen[n] = true;
        visit(n, root);
        stack.push_back(n);
      }
    }
  }
}

void ColoringGraph::markAllow(unsigned id, FloatType target,
                              ColorReason reason) {
  paint[id] |= kAllowBit | (target == policy.getLowType() ? kLowAllowBit : 0);
  nodes[id].allow = true;
  nodes[id].target = target;
  nodes[id].reason = reason;
}

void ColoringGraph::markDeny(unsigned id, ColorReason reason, unsigned source) {
  paint[id] |= kDenyBit;
  nodes[id].deny = true;
  nodes[id].reason = reason;
  nodes[id].reasonSource = source;
}

SmallVector<unsigned> ColoringGraph::lowAllowNodes() const {
  SmallVector<unsigned> ids;
  for (unsigned id = 0, e = paint.size(); id < e; ++id)
    if (paint[id] & kLowAllowBit)
      ids.push_back(id);
  return ids;
}

void ColoringGraph::spreadDeny() {
  // Clear nodes upstream (through clear nodes only) of a deny or infer node.
  std::vector<bool> upstream(nodes.size(), false);
  SmallVector<unsigned> denyOrInfer, denyRoots;
  for (unsigned id = 0, e = paint.size(); id < e; ++id) {
    if (paint[id] & kAllowBit)
      continue;
    PrecisionClass cls = paintedClass(id);
    if (cls == PrecisionClass::Deny || cls == PrecisionClass::Infer)
      denyOrInfer.push_back(id);
    if (cls == PrecisionClass::Deny)
      denyRoots.push_back(id);
  }
  auto inputsOf = [&](unsigned id) { return getInputs(id); };
  auto outputsOf = [&](unsigned id) { return getOutputs(id); };
  traverse(
      nodes.size(), denyOrInfer, inputsOf,
      [&](unsigned n) {
        return !(paint[n] & kAllowBit) &&
               paintedClass(n) == PrecisionClass::Clear;
      },
      [&](unsigned n, unsigned) { upstream[n] = true; });

  // Deny spreads forward from deny nodes through that upstream set; one
  // traversal from every root, so each node is visited once.
  for (unsigned root : denyRoots)
    markDeny(root,
             nodes[root].forcedF32 ? ColorReason::ForcedByAttribute
             : nodes[root].cls == PrecisionClass::Infer
                 ? ColorReason::InferAsDeny
                 : ColorReason::DenyList,
             ~0u);
  traverse(
      nodes.size(), denyRoots, outputsOf,
      [&](unsigned n) {
        return upstream[n] &&
               !(paint[n] & (kDenyBit | kAllowBit | kForcedTypeBit));
      },
      [&](unsigned n, unsigned root) {
        if (n != root)
          markDeny(n, ColorReason::DenySpread, root);
      });
}

void ColoringGraph::joinBetweenAllow() {
  auto isClearOrInfer = [&](unsigned n) {
    PrecisionClass cls = paintedClass(n);
    return (cls == PrecisionClass::Clear || cls == PrecisionClass::Infer) &&
           isPromotable(n);
  };
  SmallVector<unsigned> allowNodes = lowAllowNodes();
  std::vector<bool> downstream(nodes.size(), false);
  auto inputsOf = [&](unsigned id) { return getInputs(id); };
  auto outputsOf = [&](unsigned id) { return getOutputs(id); };
  traverse(nodes.size(), allowNodes, outputsOf, isClearOrInfer,
           [&](unsigned n, unsigned) { downstream[n] = true; });
  SmallVector<unsigned> between;
  traverse(nodes.size(), allowNodes, inputsOf, isClearOrInfer,
           [&](unsigned n, unsigned) {
             if (!(paint[n] & kAllowBit) && downstream[n])
               between.push_back(n);
           });
  for (unsigned n : between)
    markAllow(n, policy.getLowType(), ColorReason::BetweenAllow);
}

void ColoringGraph::followAllowForBF16() {
  // Node ids follow the IR walk, a topological order of the data edges, so
  // one sweep carries the rule along chains of infer ops.
  for (unsigned id = 0, e = paint.size(); id < e; ++id) {
    if (paintedClass(id) != PrecisionClass::Infer || !isPromotable(id))
      continue;
    ArrayRef<unsigned> in = getInputs(id);
    bool followsAllow =
        llvm::any_of(in, [&](unsigned p) { return paint[p] & kAllowBit; });
    bool followsDeny =
        llvm::any_of(in, [&](unsigned p) { return paint[p] & kDenyBit; });
    if (followsAllow && !followsDeny)
      markAllow(id, policy.getLowType(), ColorReason::FollowsAllowBF16);
  }
}

bool ColoringGraph::resultsStayWide(unsigned id) const {
  const ColorNode &node = nodes[id];
  if (!node.op || !node.anyWideResult)
    return false;
  for (unsigned i = 0, e = node.op->getNumResults(); i < e; ++i)
    if (isRetypedResult(node, i))
      return false;
  return true;
}

void ColoringGraph::spreadAllowThroughClear() {
  SmallVector<unsigned> allowNodes = lowAllowNodes();
  SmallVector<unsigned> reached;
  // Low colour flows into a clear op's neighbours on either side, except
  // out of an allow op whose results stay f32: a clear op after it (a
  // reshape of a matmul's f32 accumulator) would round that f32 result to
  // the low type for users that may want f32. It turns low only when it is
  // between allow ops (step 3) or feeds one (spreading back from it).
  auto both = [&](unsigned id) {
    bool wideAllow = (paint[id] & kAllowBit) && resultsStayWide(id);
    return llvm::concat<const unsigned>(
        getInputs(id), wideAllow ? ArrayRef<unsigned>() : getOutputs(id));
  };
  traverse(
      nodes.size(), allowNodes, both,
      [&](unsigned n) {
        return paintedClass(n) == PrecisionClass::Clear && isPromotable(n);
      },
      [&](unsigned n, unsigned) {
        if (!(paint[n] & kAllowBit))
          reached.push_back(n);
      });
  for (unsigned n : reached)
    markAllow(n, policy.getLowType(),
              nodes[n].op ? ColorReason::ClearConnected
                          : ColorReason::CarriedConnected);
  // The clear ops that kept f32 downstream of such an op say why.
  SmallVector<unsigned> wideAllow;
  for (unsigned id : allowNodes)
    if (resultsStayWide(id))
      wideAllow.push_back(id);
  traverse(
      nodes.size(), wideAllow, [&](unsigned id) { return getOutputs(id); },
      [&](unsigned n) {
        return nodes[n].op && paintedClass(n) == PrecisionClass::Clear &&
               isPromotable(n);
      },
      [&](unsigned n, unsigned root) {
        if (n != root)
          nodes[n].reason = ColorReason::ClearAfterWideResult;
      });
}

void ColoringGraph::removeUnsupported() {
  for (unsigned id = 0, e = paint.size(); id < e; ++id) {
    if (!(paint[id] & kAllowBit))
      continue;
    ColorNode &node = nodes[id];
    if (!node.op)
      continue;
    FloatType target = node.target;
    // `supports` answered for the policy's type when the graph was built.
    bool supported =
        target == policy.getLowType()
            ? node.supports
            : PrecisionPolicy::supports(
                  node.op, dyn_cast<PrecisionPolicyOpInterface>(node.op),
                  target);
    // A constant operand with values past the target type's range keeps
    // the op in f32 rather than turn them into inf (unless the user asked
    // to saturate). Tiny values flush, as TensorFlow and PyTorch cast
    // weights: the report counts them.
    ColorReason demoted =
        supported ? ColorReason::None : ColorReason::CannotCompute;
    if (supported && node.constantOperand)
      for (auto [index, use] : llvm::enumerate(node.op->getOpOperands())) {
        Attribute constant;
        if (isPrecisionOperand(node, index) &&
            matchPattern(use.get(), m_Constant(&constant)) &&
            !constants.fits(constant, target)) {
          demoted = ColorReason::ConstantOutOfRange;
          break;
        }
      }
    if (demoted == ColorReason::None)
      continue;
    node.allow = false;
    node.reason = demoted;
    paint[id] &= ~(kAllowBit | kLowAllowBit);
  }
}

/// Whether propagation alone made node `id` low: a clear op that steps 3
/// and 5 painted, not one the user or the allow list chose.
static bool propagatedLow(const ColorNode &node) {
  return node.op && node.allow && node.cls == PrecisionClass::Clear &&
         (node.reason == ColorReason::BetweenAllow ||
          node.reason == ColorReason::ClearConnected);
}

SmallVector<unsigned>
ColoringGraph::propagatedLowGroup(unsigned seed,
                                  std::vector<unsigned> &groupOf) {
  SmallVector<unsigned> group{seed};
  groupOf[seed] = seed;
  for (size_t next = 0; next < group.size(); ++next) {
    unsigned id = group[next];
    for (unsigned n :
         llvm::concat<const unsigned>(getInputs(id), getOutputs(id)))
      if (groupOf[n] == ColorNode::kNoNode && propagatedLow(nodes[n])) {
        groupOf[n] = seed;
        group.push_back(n);
      }
  }
  return group;
}

ColoringGraph::GroupEdges
ColoringGraph::edgesOf(ArrayRef<unsigned> group, unsigned seed,
                       const std::vector<unsigned> &groupOf) const {
  auto inGroup = [&](unsigned n) { return groupOf[n] == seed; };
  // Values entering the group, by whether they arrive low: each needs one
  // cast on the side that differs, however many group ops read it.
  DenseSet<Value> wideIn, lowIn;
  unsigned wideOut = 0, lowOut = 0;
  for (unsigned id : group) {
    const ColorNode &node = nodes[id];
    for (auto [index, operand] : llvm::enumerate(node.op->getOperands())) {
      if (!isPrecisionOperand(node, index))
        continue;
      unsigned producer = getProducer(node, index);
      if (producer != ColorNode::kNoNode && inGroup(producer))
        continue;
      auto result = dyn_cast<OpResult>(operand);
      bool low = producer != ColorNode::kNoNode && nodes[producer].allow &&
                 (!nodes[producer].op ||
                  (result &&
                   isRetypedResult(nodes[producer], result.getResultNumber())));
      (low ? lowIn : wideIn).insert(operand);
    }
    // Users outside the group: f32 ones need a widening cast of a low
    // result, low ones a narrowing cast of an f32 result.
    bool wideUser = node.usedOutside, lowUser = false;
    for (unsigned user : getOutputs(id))
      if (!inGroup(user))
        (nodes[user].allow ? lowUser : wideUser) = true;
    wideOut += wideUser;
    lowOut += lowUser;
  }
  return {unsigned(wideIn.size()), unsigned(lowIn.size()), wideOut, lowOut};
}

void ColoringGraph::keepWideWhereFewerCasts() {
  // Propagation paints clear ops low next to allow ops: they move half the
  // bytes, and a group of them between f32 inputs and low users casts once
  // per input. But a group that also has f32 users widens its rounded
  // values back for them: f32 data rounded for nothing. Such a group stays
  // f32 when that needs fewer casts (only at its low users).
  std::vector<unsigned> groupOf(nodes.size(), ColorNode::kNoNode);
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    if (groupOf[id] != ColorNode::kNoNode || !propagatedLow(nodes[id]))
      continue;
    SmallVector<unsigned> group = propagatedLowGroup(id, groupOf);
    GroupEdges edges = edgesOf(group, id, groupOf);
    if (edges.wideOut == 0 ||
        edges.lowIn + edges.lowOut >= edges.wideIn + edges.wideOut)
      continue;
    for (unsigned n : group) {
      paint[n] &= ~(kAllowBit | kLowAllowBit);
      nodes[n].allow = false;
      nodes[n].reason = ColorReason::ClearFewerCastsWide;
    }
  }
}

ColorReason ColoringGraph::keptReason(const ColorNode &node) const {
  if (!anyAllow)
    return node.op && effectiveClass(node) == PrecisionClass::Deny
               ? (node.forcedF32 ? ColorReason::ForcedByAttribute
                                 : ColorReason::DenyList)
               : ColorReason::NoAllowOps;
  if (!node.op)
    return getCarried(node).typeFixed ? ColorReason::CarriedTypeFixed
                                      : ColorReason::CarriedNotConnected;
  if (!node.supports && !node.forcedF32 &&
      effectiveClass(node) != PrecisionClass::Deny)
    return ColorReason::CannotCompute;
  if (policy.getLevel() == PrecisionLevel::TensorCoresOnly &&
      node.cls != PrecisionClass::Allow)
    return ColorReason::TensorCoresOnly;
  switch (node.cls) {
  case PrecisionClass::Infer:
    return ColorReason::InferNotBetween;
  case PrecisionClass::Clear:
    return ColorReason::ClearNotConnected;
  case PrecisionClass::Allow:
    return ColorReason::CannotCompute;
  case PrecisionClass::Deny:
    return ColorReason::DenyList;
  }
  llvm_unreachable("unknown precision class");
}

bool ColoringGraph::color() {
  FloatType low = policy.getLowType();
  PrecisionLevel level = policy.getLevel();
  // Step 1: the allow set, and each node's byte for the painting steps
  // (the one sweep over the nodes themselves).
  paint.assign(nodes.size(), 0);
  anyAllow = false;
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    ColorNode &node = nodes[id];
    bool pinned = node.forcedF32 || node.forcedLow || !node.supports;
    paint[id] = static_cast<uint8_t>(effectiveClass(node)) |
                (pinned ? kPinnedBit : 0) |
                (node.forcedLow ? kForcedTypeBit : 0);
    if (!node.op)
      continue;
    if (node.forcedLow) {
      markAllow(id, forcedTypes.lookup(id), ColorReason::ForcedByAttribute);
    } else if (node.forcedF32) {
      continue;
    } else if (level == PrecisionLevel::ForceAll) {
      if (node.supports &&
          !isa<tg::SoftmaxCrossEntropyOp, tg::SoftmaxCrossEntropyGradOp>(
              node.op))
        markAllow(id, low, ColorReason::ForceAll);
    } else if (node.cls == PrecisionClass::Allow && node.supports) {
      markAllow(id, low, ColorReason::AllowList);
    }
    anyAllow |= node.allow;
  }
  // Nothing converts: every node keeps f32 (keptReason says why).
  if (!anyAllow)
    return false;

  if (level != PrecisionLevel::ForceAll) {
    spreadDeny(); // Step 2.
    if (level != PrecisionLevel::TensorCoresOnly) {
      joinBetweenAllow(); // Step 3.
      if (low.isBF16())
        followAllowForBF16();    // Step 4.
      spreadAllowThroughClear(); // Step 5.
    }
  } else {
    // Carried values follow their neighbours under force-all too.
    spreadAllowThroughClear();
  }
  removeUnsupported(); // Step 6.
  if (level != PrecisionLevel::ForceAll)
    keepWideWhereFewerCasts(); // Step 7.
  return true;
}

} // namespace amp
