//===- AutoMixedPrecision.cpp - --amp-auto-mixed-precision ----------------===//
//
// Colours each function (PrecisionColoring), then rewrites it: allow ops and
// carried values take the low-precision type in place, every use whose
// producer and consumer disagree gets one shared amp.cast (or a folded
// constant), ops finish their conversion through the interface, and the
// decisions go to remarks, `amp.color` and the JSON report.
//
//===----------------------------------------------------------------------===//

#include "ChangedOpVerifier.h"
#include "Fp8Operands.h"
#include "NearbyKeyInfo.h"
#include "PrecisionColoring.h"
#include "PrecisionReport.h"
#include "TensorCoreAlignment.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/TensorCoreShapeInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Analysis/CFGLoopInfo.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

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

/// The op the pass writes for a precision conversion. Upstream: tosa or
/// arith, chosen per value (upstreamCastFor).
enum class CastKind { Auto, Amp, Arith, Tosa, Upstream };

CastKind castKindOf(CastOpChoice choice) {
  switch (choice) {
  case CastOpChoice::Auto:
    return CastKind::Auto;
  case CastOpChoice::Amp:
    return CastKind::Amp;
  case CastOpChoice::Arith:
    return CastKind::Arith;
  case CastOpChoice::Tosa:
    return CastKind::Tosa;
  }
  llvm_unreachable("every cast-op choice is a cast kind");
}

bool isTosaOp(Operation *op) {
  return op && op->getName().getDialectNamespace() ==
                   tosa::TosaDialect::getDialectNamespace();
}

/// tosa.cast for a value a TOSA op produces or uses, so TOSA's own
/// lowering converts it; arith.truncf/extf for one that only linalg or
/// other upstream ops touch.
CastKind upstreamCastFor(Value value) {
  if (isTosaOp(value.getDefiningOp()))
    return CastKind::Tosa;
  return llvm::any_of(value.getUsers(), isTosaOp) ? CastKind::Tosa
                                                  : CastKind::Arith;
}

/// One conversion of `value` to `type` (same shape, float elements) with ops
/// of `kind`: arith converts through f32 between two types of one width.
Value createCast(OpBuilder &builder, Location loc, CastKind kind, Value value,
                 Type type) {
  switch (kind) {
  case CastKind::Upstream:
    return createCast(builder, loc, upstreamCastFor(value), value, type);
  case CastKind::Auto:
  case CastKind::Amp:
    return CastOp::create(builder, loc, type, value);
  case CastKind::Tosa:
    return tosa::CastOp::create(builder, loc, type, value);
  case CastKind::Arith: {
    auto from = cast<FloatType>(getElementTypeOrSelf(value.getType()));
    auto to = cast<FloatType>(getElementTypeOrSelf(type));
    if (from.getWidth() == to.getWidth()) {
      Type wide =
          cast<ShapedType>(type).clone(Float32Type::get(builder.getContext()));
      value = arith::ExtFOp::create(builder, loc, wide, value);
      return arith::TruncFOp::create(builder, loc, type, value);
    }
    if (from.getWidth() < to.getWidth())
      return arith::ExtFOp::create(builder, loc, type, value);
    return arith::TruncFOp::create(builder, loc, type, value);
  }
  }
  llvm_unreachable("unknown cast kind");
}

/// Rewrites one function from its colouring.
class FunctionRewriter {
public:
  /// `signatureFixed`: a caller in the module depends on the signature.
  FunctionRewriter(FunctionOpInterface function, const ColoringGraph &graph,
                   bool keepIoTypes, bool signatureFixed, CastKind castKind,
                   ConstantConverter &constants)
      : verifier(function.getContext()), function(function), graph(graph),
        rewriter(function.getContext()), castKind(castKind),
        constants(constants), firstCasts(graph.getNodes().size()) {
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

  /// Checks what the rewrite changes as it changes it, while the op is in
  /// cache (a separate sweep over tens of thousands of ops cost a third of
  /// the pass); the pass reports the first broken op.
  ChangedOpVerifier verifier;

  unsigned numConverted = 0, numCasts = 0, numFolded = 0;
  /// Ops the pass created (casts and folded constants).
  llvm::DenseSet<Operation *, NearbyKeyInfo<Operation>> created;
  /// Existing casts retyped to feed low-precision users.
  llvm::DenseSet<Operation *> retypedCasts;
  /// Constants that got a low-precision copy.
  llvm::DenseSet<Operation *> foldedConstants;
  /// The ops the rewrite erased (their addresses only), for the graph to
  /// forget.
  SmallVector<Operation *> erasedOps;
  /// Every cast inserted: the value, the cast's result, and the first user
  /// that needed it (its reason in the report).
  struct CastRecord {
    Value source, result;
    Operation *firstUser;
  };
  std::vector<CastRecord> castRecords;
  /// Every folded constant and what the conversion did to its values.
  struct FoldRecord {
    Operation *lowConstant;
    ConversionCounts counts;
  };
  std::vector<FoldRecord> folds;

private:
  void retype(Value value, FloatType element);
  LogicalResult finishConversion(const ColorNode &node);
  Type lowered(Type type, FloatType element);
  /// The one cast of `use`'s value to `type`, made on first request.
  /// `producerNode`: the graph node whose op defines the value, when the
  /// caller knows it (else it is looked up).
  Value getOrCreateCast(OpOperand &use, Type type,
                        unsigned producerNode = ColorNode::kNoNode);
  void
  placeCastsOutsideLoops(ArrayRef<std::pair<OpOperand *, Type>> mismatches);
  void retypeExistingCasts();
  void updateSignature();
  LogicalResult rewriteOpNodes();
  bool castOperands(const ColorNode &node, unsigned id);
  void castOtherUses();
  void addFeeder(Value value);
  /// Records that `use` needs `required`, if it has another type.
  void require(OpOperand &use, Type required);
  void eraseUnusedFeeders();

  /// Ops that may lose their last user to a converted copy.
  llvm::SetVector<Operation *> feeders;
  /// Values retyped in place whose uses outside the graph need reading.
  SmallVector<Value> retyped;
  /// Where a producer and a consumer disagree, one cast per (value, type)
  /// to make after step 1. A use found twice is fixed the first time and
  /// re-checked the second.
  SmallVector<std::pair<OpOperand *, Type>> mismatches;
  /// Allow ops finished after every cast is made.
  SmallVector<const ColorNode *> finishLater;

  FunctionOpInterface function;
  const ColoringGraph &graph;
  IRRewriter rewriter;
  CastKind castKind;
  ConstantConverter &constants;
  llvm::DenseMap<std::pair<Type, Type>, Type> loweredTypes;
  /// Per node: the first cast made of its op's first result.
  std::vector<Value> firstCasts;
  /// Every other cast, by (value, type).
  llvm::DenseMap<std::pair<Value, Type>, Value, NearbyValueTypeInfo> casts;
  llvm::DenseSet<std::pair<Type, Type>> verifiedCastTypes;
  /// Casts placed at the start of a block other than their value's, because
  /// every use is there and that block runs less often (outside a cf loop).
  llvm::DenseMap<std::pair<Value, Type>, Block *> castBlocks;
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

Value FunctionRewriter::getOrCreateCast(OpOperand &use, Type type,
                                        unsigned producerNode) {
  Value value = use.get();
  // The first cast of a node's first result is kept by node id, in the
  // order the rewrite walks, and only other casts in the map: a million
  // casts made one hash-table miss each. (Every cast has the type it was
  // made for.)
  auto result = dyn_cast<OpResult>(value);
  if (producerNode == ColorNode::kNoNode && result)
    if (const ColorNode *node = graph.lookup(result.getOwner()))
      producerNode = node - graph.getNodes().data();
  Value *slot = nullptr;
  if (producerNode != ColorNode::kNoNode && result &&
      result.getResultNumber() == 0) {
    Value &first = firstCasts[producerNode];
    if (!first)
      slot = &first;
    else if (first.getType() == type)
      return first;
  }
  if (!slot) {
    auto [it, inserted] = casts.try_emplace({value, type}, Value());
    if (!inserted)
      return it->second;
    slot = &it->second;
  }
  Operation *producer = value.getDefiningOp();
  Attribute constant;
  ElementsAttr folded;
  if (producer && producer->hasTrait<OpTrait::ConstantLike>() &&
      matchPattern(value, m_Constant(&constant)))
    folded = constants.convert(constant, cast<ShapedType>(type));
  if (folded) {
    // Casts of constants fold, in bulk: the low-precision users get their
    // own constant, made by the constant's dialect (arith.constant,
    // tosa.const...), and the f32 one stays while anything else uses it.
    rewriter.setInsertionPointAfter(producer);
    Operation *lowConstant = producer->getDialect()->materializeConstant(
        rewriter, folded, type, producer->getLoc());
    if (!lowConstant)
      lowConstant = arith::ConstantOp::create(rewriter, producer->getLoc(),
                                              type, cast<TypedAttr>(folded));
    created.insert(lowConstant);
    (void)verifier.verify(lowConstant, /*withRegions=*/true);
    foldedConstants.insert(producer);
    folds.push_back(
        {lowConstant,
         *constants.count(constant,
                          cast<FloatType>(getElementTypeOrSelf(type)))});
    ++numFolded;
    return *slot = lowConstant->getResult(0);
  }
  if (auto empty = dyn_cast_if_present<tensor::EmptyOp>(producer)) {
    // An uninitialised tensor needs no conversion, only its own type.
    rewriter.setInsertionPointAfter(empty);
    auto lowEmpty = tensor::EmptyOp::create(rewriter, empty.getLoc(),
                                            cast<RankedTensorType>(type),
                                            empty.getDynamicSizes());
    created.insert(lowEmpty);
    (void)verifier.verify(lowEmpty, /*withRegions=*/false);
    return *slot = lowEmpty;
  }
  if (Block *block = castBlocks.lookup({value, type}))
    rewriter.setInsertionPointToStart(block);
  else if (producer)
    rewriter.setInsertionPointAfter(producer);
  else
    rewriter.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  Value converted = createCast(rewriter, value.getLoc(), castKind, value, type);
  // One op, or two for arith between types of one width.
  // The casts carry no attributes: two with the same types verify alike,
  // so the first of each pair of types is checked.
  bool check = verifiedCastTypes.insert({value.getType(), type}).second;
  for (Value v = converted; v != value; v = v.getDefiningOp()->getOperand(0)) {
    created.insert(v.getDefiningOp());
    if (check)
      (void)verifier.verify(v.getDefiningOp(), /*withRegions=*/false);
  }
  castRecords.push_back({value, converted, use.getOwner()});
  ++numCasts;
  return *slot = converted;
}

void FunctionRewriter::placeCastsOutsideLoops(
    ArrayRef<std::pair<OpOperand *, Type>> mismatches) {
  // Casts go right after their value, shared by every user, unless the
  // value is computed in a cf loop and used only after it: then the cast
  // moves to the users' block, out of the loop.
  std::optional<DominanceInfo> dominance;
  llvm::DenseMap<Region *, std::unique_ptr<CFGLoopInfo>> loops;
  llvm::DenseMap<std::pair<Value, Type>, Block *> useBlocks;
  for (auto [use, type] : mismatches) {
    Value value = use->get();
    Block *home = value.getParentBlock();
    if (home->getParent()->hasOneBlock())
      continue;
    Block *at = home->getParent()->findAncestorBlockInRegion(
        *use->getOwner()->getBlock());
    auto [it, inserted] = useBlocks.try_emplace({value, type}, at);
    if (!inserted && it->second != at)
      it->second = nullptr;
  }
  for (auto &[key, block] : useBlocks) {
    Block *home = key.first.getParentBlock();
    if (!block || block == home)
      continue;
    Region *region = home->getParent();
    if (!dominance)
      dominance.emplace(function);
    std::unique_ptr<CFGLoopInfo> &info = loops[region];
    if (!info)
      info = std::make_unique<CFGLoopInfo>(dominance->getDomTree(region));
    if (info->getLoopDepth(block) < info->getLoopDepth(home))
      castBlocks[key] = block;
  }
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
  func.setFunctionType(FunctionType::get(
      func.getContext(), func.getArgumentTypes(), ret.getOperandTypes()));
}

LogicalResult FunctionRewriter::finishConversion(const ColorNode &node) {
  // Ops whose bodies or attributes depend on the types finish here, once
  // every operand has its final type.
  if (auto iface = dyn_cast<PrecisionPolicyOpInterface>(node.op))
    if (failed(iface.convertToPrecision(rewriter, node.target)))
      return failure();
  // Converted with its regions (a linalg body): checked with them.
  (void)verifier.verify(node.op, /*withRegions=*/true);
  return success();
}

LogicalResult FunctionRewriter::run() {
  // Carried values take the low type in place (allow ops in step 1).
  for (const ColorNode &node : graph.getNodes()) {
    if (!node.allow || node.op)
      continue;
    // What feeds a converted op may lose its last user to a converted copy
    // (a folded constant, a fresh empty tensor, a converted fill value):
    // remembered now, erased at the end if so.
    for (OpOperand *feed : graph.getCarried(node).feeds)
      addFeeder(feed->get());
    for (Value v : graph.getCarried(node).values) {
      retype(v, node.target);
      retyped.push_back(v);
    }
  }
  retypeExistingCasts();
  if (failed(rewriteOpNodes()))
    return failure();
  castOtherUses();
  // 3. Operands forwarded into low carried values.
  for (const ColorNode &node : graph.getNodes())
    if (node.allow && !node.op)
      for (OpOperand *use : graph.getCarried(node).feeds)
        require(*use, lowered(use->get().getType(), node.target));
  if (graph.hasSuccessors())
    placeCastsOutsideLoops(mismatches);
  for (auto [use, type] : mismatches)
    if (use->get().getType() != type)
      use->set(getOrCreateCast(*use, type));

  for (const ColorNode *node : finishLater)
    if (failed(finishConversion(*node)))
      return failure();
  verifier.forgetVerifiedOps();

  // A retyped cast whose input already has the type disappears.
  for (Operation *op : retypedCasts) {
    auto castOp = cast<CastOp>(op);
    if (castOp.getX().getType() == castOp.getType())
      castOp.getResult().replaceAllUsesWith(castOp.getX());
  }
  updateSignature();
  eraseUnusedFeeders();
  return success();
}

void FunctionRewriter::addFeeder(Value value) {
  if (Operation *op = value.getDefiningOp())
    feeders.insert(op);
}

void FunctionRewriter::require(OpOperand &use, Type required) {
  if (required != use.get().getType())
    mismatches.push_back({&use, required});
}

/// 1. The ops of the graph, each touched once: allow ops take the low type
/// in place, and every precision operand is checked. An allow op whose
/// operands all have their final types finishes now, in cache; the others
/// wait in finishLater (steps 2 and 3 cast only non-precision operands and
/// the operands of terminators and region ops).
LogicalResult FunctionRewriter::rewriteOpNodes() {
  ArrayRef<ColorNode> nodes = graph.getNodes();
  for (const ColorNode &node : nodes) {
    if (!node.op)
      continue;
    if (node.allow) {
      ++numConverted;
      for (OpResult result : node.op->getResults())
        if (ColoringGraph::isRetypedResult(node, result.getResultNumber())) {
          retype(result, node.target);
          // Uses as precision operands of nodes are settled here from the
          // graph; only results used otherwise need their uses read.
          if (node.usedOutside)
            retyped.push_back(result);
        }
    }
    bool operandsSettled = castOperands(node, &node - nodes.data());
    if (!node.allow)
      continue;
    if (operandsSettled && node.op->getNumRegions() == 0) {
      if (failed(finishConversion(node)))
        return failure();
    } else {
      finishLater.push_back(&node);
    }
  }
  return success();
}

/// Each operand was f32 when the graph was built, so the colouring says
/// which type it ends with: the operand is read only where a cast is due.
/// Node ids follow the walk, so a producer with a smaller id, or outside the
/// graph, has its final type already: its cast is made now, while the user
/// is in cache (a second sweep over the uses cost a quarter of the pass at
/// a million ops). Other producers may not be retyped yet: those casts are
/// made after step 1, and so are all of them where casts may move out of
/// cf loops (that needs every use first). Returns whether every operand
/// of `node`'s op has its final type.
bool FunctionRewriter::castOperands(const ColorNode &node, unsigned id) {
  ArrayRef<ColorNode> nodes = graph.getNodes();
  FloatType f32 = Float32Type::get(function.getContext());
  FloatType wanted = node.allow ? node.target : f32;
  bool castNow = !graph.hasSuccessors();
  bool operandsSettled = castNow;
  for (auto [index, use] : llvm::enumerate(node.op->getOpOperands())) {
    bool precision = ColoringGraph::isPrecisionOperand(node, index);
    unsigned producer =
        precision ? graph.getProducer(node, index) : ColorNode::kNoNode;
    // A node's result keeps a user (or a cast for it): only other
    // producers can be left unused.
    if (node.allow && producer == ColorNode::kNoNode)
      addFeeder(use.get());
    if (!precision) {
      // Steps 2 and 3 may still cast it.
      operandsSettled = false;
      continue;
    }
    FloatType now = f32;
    if (producer != ColorNode::kNoNode && nodes[producer].allow) {
      const ColorNode &from = nodes[producer];
      if (!from.op || !from.anyWideResult ||
          ColoringGraph::isRetypedResult(
              from, cast<OpResult>(use.get()).getResultNumber()))
        now = from.target;
    }
    if (now == wanted)
      continue;
    Type type = lowered(use.get().getType(), wanted);
    bool opProducer = producer != ColorNode::kNoNode && nodes[producer].op;
    if (castNow && (!opProducer || producer < id)) {
      if (use.get().getType() != type)
        use.set(getOrCreateCast(use, type,
                                opProducer ? producer : ColorNode::kNoNode));
    } else {
      mismatches.push_back({&use, type});
      operandsSettled = false;
    }
  }
  return operandsSettled;
}

/// 2. Every other use of a retyped value: it expects f32, unless it
/// forwards into a low carried value or returns from a flexible signature.
void FunctionRewriter::castOtherUses() {
  FloatType f32 = Float32Type::get(function.getContext());
  bool castNow = !graph.hasSuccessors();
  for (Value value : retyped) {
    Type type = value.getType();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      // A cast made in step 1 takes the value as it is now.
      if (castNow && created.contains(user))
        continue;
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
}

/// Drops what the conversion left unused, and what that leaves unused.
void FunctionRewriter::eraseUnusedFeeders() {
  while (!feeders.empty()) {
    Operation *op = feeders.pop_back_val();
    if (created.contains(op) || retypedCasts.contains(op) ||
        !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        feeders.insert(producer);
    foldedConstants.erase(op);
    erasedOps.push_back(op);
    rewriter.eraseOp(op);
  }
}

struct AutoMixedPrecisionPass
    : amp::impl::AutoMixedPrecisionPassBase<AutoMixedPrecisionPass> {
  using Base::Base;

  /// precision=fp8 (the policy itself is bf16's).
  bool fp8 = false;
  /// The fp8-* options, checked.
  Fp8Options fp8Options;
  /// Every converted contraction's Tensor Core alignment.
  TensorCoreChecks tensorCores;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    tensorCores = TensorCoreChecks();
    PrecisionLists lists =
        PrecisionLists::of(allowOps, inferOps, clearOps, denyOps);
    FailureOr<Fp8Options> parsed =
        parseFp8Options(module.getLoc(), "amp-auto-mixed-precision", fp8Format,
                        fp8Scaling, amaxHistoryLen, fp8Margin);
    if (failed(parsed))
      return signalPassFailure();
    fp8Options = *parsed;
    // An fp8 graph is a bf16 graph whose contraction operands are FP8.
    fp8 = precision == LowPrecision::FP8;
    FailureOr<PrecisionPolicy> policy = PrecisionPolicy::create(
        &getContext(), module.getLoc(), precision, level, lists, listsFile);
    if (failed(policy))
      return signalPassFailure();
    CastKind requestedCasts = castKindOf(castOp);
    ConstantConverter constants(constantOverflow);

    // Every function of the module and of modules nested in it; those that
    // something calls keep their signature.
    SmallVector<FunctionOpInterface> functions;
    module.walk([&](FunctionOpInterface function) {
      if (!function.isExternal() && isa<ModuleOp>(function->getParentOp()))
        functions.push_back(function);
      return WalkResult::skip();
    });
    llvm::DenseSet<Operation *> called;
    if (!keepIoTypes)
      module.walk([&](CallOpInterface call) {
        if (Operation *callee = call.resolveCallable())
          called.insert(callee);
      });
    // IR that holds no amp or tg op comes back in its own dialects' ops, so
    // the compiler that gave it lowers it with its own pipeline.
    bool ampModule = false;
    if (requestedCasts == CastKind::Auto)
      module.walk([&](Operation *op) {
        StringRef ns = op->getName().getDialectNamespace();
        ampModule = ns == AMPDialect::getDialectNamespace() ||
                    ns == tg::TGDialect::getDialectNamespace();
        return ampModule ? WalkResult::interrupt() : WalkResult::advance();
      });

    PrecisionReport report(*policy, optionName(level.getValue()),
                           fp8 ? "fp8" : "");
    for (FunctionOpInterface function : functions) {
      CastKind kind = requestedCasts != CastKind::Auto ? requestedCasts
                      : ampModule                       ? CastKind::Amp
                                                        : CastKind::Upstream;
      if (failed(runOnFunction(function, *policy, report,
                               called.contains(function.getOperation()), kind,
                               constants)))
        return signalPassFailure();
    }
    numTensorCoreAligned += tensorCores.aligned;
    numTensorCoreMisaligned += tensorCores.contractions - tensorCores.aligned;
    report.setTensorCoreTotals(tensorCores);
    if (tensorCoreSummary && tensorCores.contractions)
      mlir::emitRemark(module.getLoc())
          << tensorCores.summary(optionName(precision.getValue()));
    if (!reportPath.empty() &&
        failed(report.write(reportPath, module.getLoc())))
      return signalPassFailure();
  }

  /// Checks the contractions `graph` moved to low precision against Tensor
  /// Core alignment (their operands' width: 8 bits for fp8).
  void checkTensorCores(const ColoringGraph &graph, FloatType lowType) {
    unsigned bits = fp8 ? 8 : lowType.getWidth();
    for (const ColorNode &node : graph.getNodes())
      if (node.op && node.allow && node.cls == PrecisionClass::Allow)
        tensorCores.check(node.op, bits);
  }

  /// precision=fp8: FP8 operands for the converted contractions, explained
  /// like every other decision, and checked like them.
  LogicalResult quantizeFp8Operands(FunctionOpInterface function,
                                    const ColoringGraph &graph,
                                    bool signatureFixed, CastKind castKind,
                                    PrecisionReport &report) {
    Fp8Options options = fp8Options;
    options.upstreamOps = castKind == CastKind::Arith ||
                          castKind == CastKind::Tosa ||
                          castKind == CastKind::Upstream;
    std::vector<Fp8Operand> operands;
    if (failed(insertFp8Operands(function, graph, options, signatureFixed,
                                 operands)))
      return failure();
    numFp8Operands += operands.size();
    for (const Fp8Operand &operand : operands) {
      if (remarks)
        mlir::emitRemark(operand.user->getLoc())
            << "amp: operand #" << operand.operand << " in " << operand.format
            << ", " << operand.scaling << " scaling (" << operand.reason << ")";
      if (!reportPath.empty()) {
        Fp8Entry entry;
        entry.op = operand.user->getName().getStringRef().str();
        entry.location = formatLocation(operand.user->getLoc());
        entry.operand = operand.operand;
        entry.format = operand.format;
        entry.scaling = operand.scaling;
        entry.reason = operand.reason;
        entry.historyArgument = operand.historyArgument;
        report.addFp8Operand(function, std::move(entry));
      }
    }
    // The chains are new ops and the signature may have grown: the whole
    // function is checked (fp8 is opt-in; the f16/bf16 path checks only what
    // it changed).
    if (!operands.empty() && failed(mlir::verify(function)))
      return function->emitError()
             << "amp-auto-mixed-precision: giving contractions FP8 operands "
                "produced invalid IR; this is a defect of the pass";
    return success();
  }

  LogicalResult runOnFunction(FunctionOpInterface function,
                              const PrecisionPolicy &policy,
                              PrecisionReport &report, bool signatureFixed,
                              CastKind castKind, ConstantConverter &constants) {
    ColoringGraph graph(policy, constants);
    if (failed(graph.build(function)))
      return failure();
    FunctionRewriter rewriter(function, graph, keepIoTypes, signatureFixed,
                              castKind, constants);
    if (graph.color()) {
      if (failed(rewriter.run()))
        return failure();
      // Drop retyped casts that became identities, now nothing uses them.
      SmallVector<Operation *> retyped(rewriter.retypedCasts.begin(),
                                       rewriter.retypedCasts.end());
      for (Operation *op : retyped)
        if (op->use_empty()) {
          rewriter.retypedCasts.erase(op);
          rewriter.erasedOps.push_back(op);
          op->erase();
        }
      graph.forget(rewriter.erasedOps);
      if (failed(verifyRewrite(function, graph, rewriter, policy.getLowType())))
        return failure();
      checkTensorCores(graph, policy.getLowType());
      if (fp8 && failed(quantizeFp8Operands(function, graph, signatureFixed,
                                            castKind, report)))
        return failure();
    }
    numConverted += rewriter.numConverted;
    numCasts += rewriter.numCasts;
    numFolded += rewriter.numFolded;
    report.addTotals(rewriter.numConverted, rewriter.numCasts,
                     rewriter.numFolded);
    for (const FunctionRewriter::FoldRecord &fold : rewriter.folds)
      report.addConstant(function, fold.lowConstant, fold.counts);

    // Explain every decision, when asked: describing ops costs more than
    // colouring them.
    if (!annotate && !remarks && reportPath.empty())
      return success();
    function->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == function.getOperation() ||
          (rewriter.created.contains(op) &&
           !op->hasTrait<OpTrait::ConstantLike>()))
        return;
      std::optional<PrecisionEntry> entry =
          describeOp(op, graph, policy, rewriter, constants);
      if (!entry)
        return;
      if (annotate && graph.lookup(op))
        op->setAttr(AMPDialect::kColorAttrName,
                    StringAttr::get(op->getContext(), entry->color));
      // Remarks explain what computes: constants are accounted for in the
      // report (a diagnostic quotes its source line, and a weight's line
      // holds its data). The remark names the op by its location only, for
      // the same reason.
      if (const TensorCoreAlignment *alignment = tensorCores.lookup(op))
        entry->tensorCore = *alignment;
      if (auto padded = op->getAttrOfType<DictionaryAttr>(
              AMPDialect::kTensorCorePaddedAttrName))
        for (NamedAttribute dim : padded)
          if (auto size = dyn_cast<IntegerAttr>(dim.getValue()))
            entry->paddedFrom.push_back({dim.getName().str(), size.getInt()});
      if (remarks && !op->hasTrait<OpTrait::ConstantLike>())
        mlir::emitRemark(op->getLoc())
            << "amp: " << entry->precision << " (" << entry->reason << ")"
            << describeTensorCores(entry->tensorCore);
      report.add(function, op, *entry);
    });
    if (!reportPath.empty())
      for (const FunctionRewriter::CastRecord &record : rewriter.castRecords)
        report.addCast(function, describeCast(record, graph, function));
    return success();
  }

  /// What a remark adds for a converted contraction.
  static std::string
  describeTensorCores(const std::optional<TensorCoreAlignment> &alignment) {
    if (!alignment)
      return "";
    if (alignment->aligned())
      return "; Tensor Core aligned";
    return "; misses Tensor Core alignment (multiples of " +
           std::to_string(alignment->multiple) +
           "): " + alignment->describeMisaligned();
  }

  /// A cast for the report: which value, where, between which types, and
  /// for whom.
  static CastEntry describeCast(const FunctionRewriter::CastRecord &record,
                                const ColoringGraph &graph,
                                FunctionOpInterface function) {
    CastEntry entry;
    Value source = record.source;
    if (auto arg = dyn_cast<BlockArgument>(source)) {
      Operation *parent = arg.getOwner()->getParentOp();
      entry.value =
          "argument #" + std::to_string(arg.getArgNumber()) +
          (parent == function.getOperation()
               ? " of @" + function.getName().str()
               : " of a block of " + parent->getName().getStringRef().str());
    } else {
      auto result = cast<OpResult>(source);
      entry.value = "result #" + std::to_string(result.getResultNumber()) +
                    " of " + result.getOwner()->getName().getStringRef().str();
    }
    entry.location = formatLocation(source.getLoc());
    entry.from = typeName(getElementTypeOrSelf(source.getType()));
    entry.to = typeName(getElementTypeOrSelf(record.result.getType()));
    Operation *user = record.firstUser;
    std::string target = user->getName().getStringRef().str() + " at " +
                         formatLocation(user->getLoc());
    if (const ColorNode *node = graph.lookup(user))
      entry.reason = "for " + target + ", which computes in " +
                     (node->allow ? typeName(node->target) : "f32") + " (" +
                     graph.describeReason(*node) + ")";
    else if (user->hasTrait<OpTrait::IsTerminator>())
      entry.reason =
          "for " + target + ", which forwards or returns it in " + entry.to;
    else
      entry.reason = "for " + target + ", which takes it in " + entry.to;
    return entry;
  }

  /// The pass's own check that what it changed verifies, so a defect of
  /// the pass (or of an op's precision model) is reported as such, naming
  /// the op, instead of as an error in the user's input. Converted ops and
  /// the ops the pass created were checked as they were written; the ops
  /// around carried values and retyped casts are checked here. Only what
  /// changed is verified: the rest of the function is untouched.
  LogicalResult verifyRewrite(FunctionOpInterface function,
                              const ColoringGraph &graph,
                              FunctionRewriter &rewriter, FloatType lowType) {
    ChangedOpVerifier &verifier = rewriter.verifier;
    SetVector<Operation *> aroundCarried;
    for (const ColorNode &node : graph.getNodes())
      if (node.allow && !node.op)
        for (OpOperand *feed : graph.getCarried(node).feeds)
          aroundCarried.insert(feed->getOwner());
    aroundCarried.insert(graph.getCarryingOps().begin(),
                         graph.getCarryingOps().end());
    aroundCarried.insert(rewriter.retypedCasts.begin(),
                         rewriter.retypedCasts.end());
    for (Operation *op : aroundCarried) {
      // Loops only for their own types (their bodies were checked op by op).
      bool withRegions = op->getNumRegions() != 0 && graph.lookup(op);
      if (failed(verifier.verify(op, withRegions)))
        break;
    }
    if (!verifier.foundBroken())
      return success();
    return function->emitError()
           << "amp-auto-mixed-precision: converting '"
           << verifier.getBrokenName() << "' at "
           << formatLocation(verifier.getBrokenLoc()) << " to " << lowType
           << " produced invalid IR (" << verifier.getMessages()
           << "); this is a defect of the pass or of the op's precision "
              "model, not of the input: exclude the op with amp.precision = "
              "\"f32\" to go on";
  }

  std::optional<PrecisionEntry> describeOp(Operation *op,
                                           const ColoringGraph &graph,
                                           const PrecisionPolicy &policy,
                                           const FunctionRewriter &rewriter,
                                           ConstantConverter &constants) const {
    PrecisionEntry entry;
    FloatType low = policy.getLowType();
    if (const ColorNode *node = graph.lookup(op)) {
      entry.cls = stringifyPrecisionClass(node->cls).str();
      entry.precision = node->allow ? typeName(node->target) : "f32";
      entry.reason = graph.describeReason(*node);
      entry.color = node->allow ? "allow" : node->deny ? "deny" : entry.cls;
      return entry;
    }
    // Ops outside the graph report the precision their values have.
    Type element;
    for (Type t :
         llvm::concat<Type>(op->getResultTypes(), op->getOperandTypes()))
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
    Attribute constantValue;
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1 &&
        matchPattern(op->getResult(0), m_Constant(&constantValue))) {
      if (rewriter.created.contains(op))
        entry.reason = "constant folded from f32 for its low-precision users";
      else if (rewriter.foldedConstants.contains(op))
        entry.reason = "constant; folded into " + typeName(low) +
                       " copies for its low-precision users";
      else if (!constants.fits(constantValue, low))
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
