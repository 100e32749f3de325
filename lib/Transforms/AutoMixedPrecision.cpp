//===- AutoMixedPrecision.cpp - --amp-auto-mixed-precision ----------------===//
//
// Colours each function (PrecisionColoring), then rewrites it: allow ops and
// carried values take the low-precision type in place, every use whose
// producer and consumer disagree gets one shared amp.cast (or a folded
// constant), ops finish their conversion through the interface, and the
// decisions go to remarks, `amp.color` and the JSON report.
//
//===----------------------------------------------------------------------===//

#include "PrecisionColoring.h"
#include "PrecisionReport.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace amp {
#define GEN_PASS_DEF_AUTOMIXEDPRECISIONPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream(s) << type;
  return s;
}

RankedTensorType withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// Rewrites one function from its colouring.
class FunctionRewriter {
public:
  /// `signatureFixed`: a caller in the module depends on the signature.
  FunctionRewriter(FunctionOpInterface function, const ColoringGraph &graph,
                   bool keepIoTypes, bool signatureFixed)
      : function(function), graph(graph), rewriter(function.getContext()) {
    auto func = dyn_cast<func::FuncOp>(function.getOperation());
    // Results may change type only where no caller depends on the signature
    // and the training-step contract (tg.role) does not fix it.
    if (!keepIoTypes && func && func.getBody().hasOneBlock() &&
        !signatureFixed) {
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        if (!func.getResultAttr(i, "tg.role"))
          flexibleResults.insert(i);
    }
  }

  LogicalResult run();

  unsigned numConverted = 0, numCasts = 0, numFolded = 0;
  /// Ops the pass created (casts and folded constants).
  llvm::DenseSet<Operation *> created;
  /// Existing casts retyped to feed low-precision users.
  llvm::DenseSet<Operation *> retypedCasts;
  /// Constants that got a low-precision copy.
  llvm::DenseSet<Operation *> foldedConstants;

private:
  void retype(Value value, FloatType element);
  Type lowered(Type type, FloatType element);
  Value getOrCreateCast(Value value, Type type);
  void retypeExistingCasts();
  void updateSignature();

  FunctionOpInterface function;
  const ColoringGraph &graph;
  IRRewriter rewriter;
  llvm::DenseMap<std::pair<Type, Type>, Type> loweredTypes;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  llvm::DenseSet<unsigned> flexibleResults;
};

void FunctionRewriter::retype(Value value, FloatType element) {
  value.setType(lowered(value.getType(), element));
}

Type FunctionRewriter::lowered(Type type, FloatType element) {
  // Cached: uniquing a tensor type takes the context's lock.
  Type &entry = loweredTypes[{type, element}];
  if (!entry)
    entry = withElement(type, element);
  return entry;
}

Value FunctionRewriter::getOrCreateCast(Value value, Type type) {
  auto [it, inserted] = casts.try_emplace({value, type}, Value());
  if (!inserted)
    return it->second;
  auto target = cast<FloatType>(cast<RankedTensorType>(type).getElementType());
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue())) {
      // Casts of constants fold: the low-precision users get their own
      // constant and the f32 one stays for everyone else.
      const llvm::fltSemantics &semantics = target.getFloatSemantics();
      Attribute folded = dense.mapValues(target, [&](const APFloat &v) {
        APFloat converted = v;
        bool losesInfo = false;
        converted.convert(semantics, APFloat::rmNearestTiesToEven,
                          &losesInfo);
        return converted.bitcastToAPInt();
      });
      rewriter.setInsertionPointAfter(constant);
      auto lowConstant = arith::ConstantOp::create(
          rewriter, constant.getLoc(), type, cast<TypedAttr>(folded));
      created.insert(lowConstant);
      foldedConstants.insert(constant);
      ++numFolded;
      return it->second = lowConstant;
    }
  }
  if (auto result = dyn_cast<OpResult>(value))
    rewriter.setInsertionPointAfter(result.getOwner());
  else
    rewriter.setInsertionPointToStart(
        cast<BlockArgument>(value).getOwner());
  auto castOp = CastOp::create(rewriter, value.getLoc(), type, value);
  created.insert(castOp);
  ++numCasts;
  return it->second = castOp;
}

void FunctionRewriter::retypeExistingCasts() {
  // Step 8: a cast to f32 whose users all compute in one low type is
  // retyped to produce that type, instead of being cast back down.
  for (Operation *op : graph.getExistingCasts()) {
    auto castOp = cast<CastOp>(op);
    Value result = castOp.getResult();
    auto resultType = cast<RankedTensorType>(result.getType());
    if (!resultType.getElementType().isF32() || result.use_empty())
      continue;
    FloatType target;
    for (OpOperand &use : result.getUses()) {
      const ColorNode *node = graph.lookup(use.getOwner());
      if (!node || !node->allow ||
          !ColoringGraph::isPrecisionOperand(*node, use.getOperandNumber()) ||
          (target && target != node->target)) {
        target = nullptr;
        break;
      }
      target = node->target;
    }
    if (!target)
      continue;
    retype(result, target);
    retypedCasts.insert(castOp);
  }
}

void FunctionRewriter::updateSignature() {
  auto func = dyn_cast<func::FuncOp>(function.getOperation());
  if (!func || flexibleResults.empty())
    return;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(),
                                         ret.getOperandTypes()));
}

LogicalResult FunctionRewriter::run() {
  FloatType f32 = Float32Type::get(function.getContext());
  ArrayRef<ColorNode> nodes = graph.getNodes();

  // Allow ops and carried values take the low type in place.
  SmallVector<Value> retyped;
  for (const ColorNode &node : nodes) {
    if (!node.allow)
      continue;
    if (!node.op) {
      for (Value v : graph.getCarried(node).values) {
        retype(v, node.target);
        retyped.push_back(v);
      }
      continue;
    }
    ++numConverted;
    for (OpResult result : node.op->getResults())
      if (ColoringGraph::isPrecisionResult(node, result.getResultNumber())) {
        retype(result, node.target);
        retyped.push_back(result);
      }
  }
  retypeExistingCasts();

  // Where a producer and a consumer now disagree, one cast per (value, type).
  // Every retyped value was f32 before, so its f32 type is known without a
  // lookup. Decide every use before rewriting any; a use found twice is
  // fixed the first time and re-checked the second.
  SmallVector<std::pair<OpOperand *, Type>> mismatches;
  auto require = [&](OpOperand &use, Type required) {
    if (required != use.get().getType())
      mismatches.push_back({&use, required});
  };
  // 1. Precision operands of the ops in the graph.
  for (const ColorNode &node : nodes) {
    if (!node.op)
      continue;
    for (OpOperand &use : node.op->getOpOperands()) {
      unsigned index = use.getOperandNumber();
      if (!ColoringGraph::isPrecisionOperand(node, index))
        continue;
      Type type = use.get().getType();
      unsigned producer = node.producers[index];
      if (node.allow)
        require(use, lowered(type, node.target));
      else if (producer != ColorNode::kNoNode && nodes[producer].allow)
        require(use, lowered(type, f32));
    }
  }
  // 2. Every other use of a retyped value: it expects f32, unless it
  // forwards into a low carried value or returns from a flexible signature.
  for (Value value : retyped) {
    Type type = value.getType();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      unsigned index = use.getOperandNumber();
      const ColorNode *node = graph.lookup(user);
      if (node && ColoringGraph::isPrecisionOperand(*node, index))
        continue;
      if (const ColorNode *carried = graph.forwardedInto(user, index))
        require(use, carried->allow ? lowered(type, carried->target)
                                    : lowered(type, f32));
      else if (!(isa<func::ReturnOp>(user) && flexibleResults.contains(index)))
        require(use, lowered(type, f32));
    }
  }
  // 3. Operands forwarded into low carried values.
  for (const ColorNode &node : nodes)
    if (node.allow && !node.op)
      for (OpOperand *use : graph.getCarried(node).feeds)
        require(*use, lowered(use->get().getType(), node.target));

  for (auto [use, type] : mismatches)
    if (use->get().getType() != type)
      use->set(getOrCreateCast(use->get(), type));

  // Ops whose bodies or attributes depend on the types finish here.
  for (const ColorNode &node : nodes) {
    if (!node.allow || !node.op)
      continue;
    if (auto iface = dyn_cast<PrecisionPolicyOpInterface>(node.op))
      if (failed(iface.convertToPrecision(rewriter, node.target)))
        return failure();
  }

  // A retyped cast whose input already has the type disappears.
  for (Operation *op : retypedCasts) {
    auto castOp = cast<CastOp>(op);
    if (castOp.getX().getType() == castOp.getType())
      castOp.getResult().replaceAllUsesWith(castOp.getX());
  }
  updateSignature();
  return success();
}

struct AutoMixedPrecisionPass
    : amp::impl::AutoMixedPrecisionPassBase<AutoMixedPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    PrecisionLists lists;
    lists.allow.assign(allowOps.begin(), allowOps.end());
    lists.infer.assign(inferOps.begin(), inferOps.end());
    lists.clear.assign(clearOps.begin(), clearOps.end());
    lists.deny.assign(denyOps.begin(), denyOps.end());
    FailureOr<PrecisionPolicy> policy =
        PrecisionPolicy::create(&getContext(), module.getLoc(), precision,
                                level, lists, listsFile);
    if (failed(policy))
      return signalPassFailure();

    // Functions that something in the module calls keep their signature.
    llvm::DenseSet<StringAttr> called;
    if (!keepIoTypes)
      module.walk([&](CallOpInterface call) {
        if (auto symbol = dyn_cast_if_present<SymbolRefAttr>(
                call.getCallableForCallee()))
          called.insert(symbol.getRootReference());
      });

    PrecisionReport report(*policy, level);
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      bool signatureFixed = called.contains(
          SymbolTable::getSymbolName(function.getOperation()));
      if (failed(runOnFunction(function, *policy, report, signatureFixed)))
        return signalPassFailure();
    }
    if (!reportPath.empty() && failed(report.write(reportPath, module.getLoc())))
      return signalPassFailure();
  }

  LogicalResult runOnFunction(FunctionOpInterface function,
                              const PrecisionPolicy &policy,
                              PrecisionReport &report, bool signatureFixed) {
    ColoringGraph graph(policy);
    if (failed(graph.build(function)))
      return failure();
    FunctionRewriter rewriter(function, graph, keepIoTypes, signatureFixed);
    if (graph.color()) {
      if (failed(rewriter.run()))
        return failure();
      // Drop retyped casts that became identities, now nothing uses them.
      SmallVector<Operation *> retyped(rewriter.retypedCasts.begin(),
                                       rewriter.retypedCasts.end());
      for (Operation *op : retyped)
        if (op->use_empty()) {
          rewriter.retypedCasts.erase(op);
          op->erase();
        }
    }
    numConverted += rewriter.numConverted;
    numCasts += rewriter.numCasts;
    numFolded += rewriter.numFolded;
    report.addTotals(rewriter.numConverted, rewriter.numCasts,
                     rewriter.numFolded);

    // Explain every decision, when asked: describing ops costs more than
    // colouring them.
    if (!annotate && !remarks && reportPath.empty())
      return success();
    function->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == function.getOperation() || rewriter.created.contains(op))
        return;
      std::optional<PrecisionEntry> entry = describeOp(op, graph, policy,
                                                       rewriter);
      if (!entry)
        return;
      if (annotate && graph.lookup(op))
        op->setAttr(AMPDialect::kColorAttrName,
                    StringAttr::get(op->getContext(), entry->color));
      if (remarks)
        op->emitRemark() << "amp: " << entry->precision << " ("
                         << entry->reason << ")";
      report.add(function, op, *entry);
    });
    return success();
  }

  std::optional<PrecisionEntry>
  describeOp(Operation *op, const ColoringGraph &graph,
             const PrecisionPolicy &policy,
             const FunctionRewriter &rewriter) const {
    PrecisionEntry entry;
    FloatType low = policy.getLowType();
    if (const ColorNode *node = graph.lookup(op)) {
      entry.cls = stringifyPrecisionClass(node->cls).str();
      entry.precision = node->allow ? typeName(node->target) : "f32";
      entry.reason = graph.describeReason(*node);
      entry.color = node->allow  ? "allow"
                    : node->deny ? "deny"
                                 : entry.cls;
      return entry;
    }
    // Ops outside the graph report the precision their values have.
    Type element;
    for (Type t : llvm::concat<Type>(op->getResultTypes(),
                                     op->getOperandTypes()))
      if (isFloatTensor(t)) {
        element = cast<RankedTensorType>(t).getElementType();
        break;
      }
    if (!element || op->hasTrait<OpTrait::IsTerminator>())
      return std::nullopt;
    std::optional<PrecisionClass> cls = policy.getClass(op);
    entry.cls = cls ? stringifyPrecisionClass(*cls).str() : "none";
    entry.precision = typeName(element);
    entry.color = entry.cls;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (rewriter.foldedConstants.contains(op))
        entry.reason = "constant; folded into " + typeName(low) +
                       " copies for its low-precision users";
      else if (!fitsInType(constant.getValue(), low))
        entry.reason = "constant out of " + typeName(low) + " range";
      else
        entry.reason = "constant";
      return entry;
    }
    if (isa<CastOp>(op)) {
      entry.reason = rewriter.retypedCasts.contains(op)
                         ? "existing cast retyped for its low-precision users"
                         : "existing cast";
      return entry;
    }
    StringRef reason = graph.outsideReason(op);
    if (reason.empty())
      return std::nullopt;
    entry.reason = reason.str();
    return entry;
  }
};

} // namespace
