//===- FusionPlan.cpp - What a lowered step runs together -----------------===//

#include "FusionPlan.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace amp;

namespace {

/// An f32 -> f16 cast read only by products: they round the f32 tensor as
/// they stage it (amprt_matmul takes f32 operands of a 16-bit product), so
/// the cast needs no tensor of its own.
bool foldsIntoProducts(amp::CastOp cast) {
  if (!getElementTypeOrSelf(cast.getX().getType()).isF32() ||
      !getElementTypeOrSelf(cast.getType()).isF16() || cast->use_empty())
    return false;
  return llvm::all_of(cast->getUses(), [](OpOperand &use) {
    return isa<tg::MatmulOp, tg::BatchMatmulOp>(use.getOwner()) &&
           use.getOperandNumber() < 2;
  });
}

/// An f16 or bf16 -> f32 cast read only by bias gradients: they sum the
/// 16-bit tensor into their f32 result (amprt_bias_add_grad), the sums of
/// the widened values, so the cast needs no tensor of its own. The policy
/// keeps reductions in f32, so every 16-bit gradient of a biased layer
/// meets one of these casts.
bool foldsIntoBiasGrads(amp::CastOp cast) {
  if (!isa<Float16Type, BFloat16Type>(
          getElementTypeOrSelf(cast.getX().getType())) ||
      !getElementTypeOrSelf(cast.getType()).isF32() || cast->use_empty())
    return false;
  return llvm::all_of(cast->getUsers(), [](Operation *user) {
    return isa<tg::BiasAddGradOp>(user);
  });
}

/// The unscales whose results `check` tests, when one amprt call can
/// unscale them and test the unscaled values in the same pass: every
/// operand is a distinct amp.unscale by one scale, of f16, bf16 or f32 into
/// f32 (amprt_unscale_all_finite's arithmetic, the same bits as
/// amprt_unscale's), and nothing reads an unscaled gradient before the
/// check. Empty otherwise.
SmallVector<amp::UnscaleOp>
unscalesCheckedTogether(amp::AllFiniteOp check,
                        const llvm::DenseMap<Operation *, unsigned> &position) {
  SmallVector<amp::UnscaleOp> unscales;
  llvm::SmallPtrSet<Operation *, 8> seen;
  unsigned at = position.lookup(check);
  for (Value g : check.getGs()) {
    auto unscale = g.getDefiningOp<amp::UnscaleOp>();
    if (!unscale || unscale->getBlock() != check->getBlock() ||
        !seen.insert(unscale).second ||
        (!unscales.empty() &&
         unscale.getScale() != unscales.front().getScale()) ||
        !getElementTypeOrSelf(unscale.getY().getType()).isF32() ||
        !isa<Float16Type, BFloat16Type, Float32Type>(
            getElementTypeOrSelf(unscale.getG().getType())))
      return {};
    for (Operation *user : unscale->getUsers())
      if (user != check && position.lookup(user) < at)
        return {};
    unscales.push_back(unscale);
  }
  return unscales;
}

/// The tg.bias_add that can run in `op`'s epilogue: `op` is a tg.matmul
/// or a forward tg.conv2d, the bias add is the only reader of its result,
/// adds along the product's channels (a conv's layout; a matmul's result is
/// rank 2) and its bias has the result's type. Null otherwise.
tg::BiasAddOp epilogueBiasAdd(Operation *op) {
  if (!isa<tg::MatmulOp, tg::Conv2DOp>(op) || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return nullptr;
  auto biasAdd = dyn_cast<tg::BiasAddOp>(*op->getResult(0).user_begin());
  if (!biasAdd || biasAdd.getX() != op->getResult(0) ||
      biasAdd->getBlock() != op->getBlock() ||
      getElementTypeOrSelf(biasAdd.getB().getType()) !=
          getElementTypeOrSelf(biasAdd.getX().getType()))
    return nullptr;
  if (auto conv = dyn_cast<tg::Conv2DOp>(op))
    if (conv.getLayout() != biasAdd.getLayout())
      return nullptr;
  return biasAdd;
}

/// The runtime's elementwise function `op` computes, when its lowering
/// names one (RuntimeLoweringOpInterface::getElementwiseStep).
std::optional<ElementwiseStep> elementwiseStepOf(Operation *op) {
  if (auto lowering = dyn_cast<RuntimeLoweringOpInterface>(op))
    return lowering.getElementwiseStep();
  return std::nullopt;
}

/// The amprt_activation of `op` when a product's epilogue can apply it (an
/// op that computes one of the runtime's activations, of any dialect), with
/// its slope (leaky relu's alpha, 0 otherwise).
std::optional<amprt_activation> epilogueActivation(Operation *op,
                                                   double &alpha) {
  alpha = 0;
  std::optional<ElementwiseStep> step = elementwiseStepOf(op);
  if (!step || op->getNumOperands() != 1)
    return std::nullopt;
  alpha = step->alpha;
  switch (step->code) {
#define AMPRT_ACTIVATION(CODE, Kind)                                           \
  case AMPRT_CHAIN_##CODE:                                                     \
    return AMPRT_ACTIVATION_##CODE;
#include "amprt/amprt_activation.def"
  default:
    alpha = 0;
    return std::nullopt;
  }
}

/// The epilogue `op` runs when it is a tg.matmul or forward tg.conv2d:
/// the bias add epilogueBiasAdd finds, then the first activation that
/// reads the (biased) product, when nothing else reads that before the
/// activation runs. Null when neither is there.
std::optional<ProductEpilogue>
productEpilogue(Operation *op, bool fuseBiases, bool fuseActivations,
                const llvm::DenseMap<Operation *, unsigned> &position) {
  if (!isa<tg::MatmulOp, tg::Conv2DOp>(op) || op->getNumResults() != 1)
    return std::nullopt;
  ProductEpilogue e;
  e.product = op;
  if (fuseBiases)
    e.biasAdd = epilogueBiasAdd(op);
  if (fuseActivations) {
    Value pre = e.pre();
    Operation *first = nullptr;
    double alpha = 0;
    for (Operation *user : pre.getUsers())
      if (user->getBlock() == op->getBlock() &&
          epilogueActivation(user, alpha) &&
          (!first || position.lookup(user) < position.lookup(first)))
        first = user;
    if (first && llvm::all_of(pre.getUsers(), [&](Operation *user) {
          return user == first ||
                 position.lookup(user) > position.lookup(first);
        })) {
      e.activation = first;
      e.code = *epilogueActivation(first, e.alpha);
      e.keepsPre = !pre.hasOneUse();
    }
  }
  if (!e.biasAdd && !e.activation)
    return std::nullopt;
  return e;
}

} // namespace

std::optional<amprt_chain_op> amp::chainOp(Operation *op, double &alpha) {
  alpha = 0;
  if (op->getNumResults() != 1)
    return std::nullopt;
  Type type = op->getResult(0).getType();
  if (!isa<FloatType>(getElementTypeOrSelf(type)) ||
      !llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; }))
    return std::nullopt;
  std::optional<ElementwiseStep> step = elementwiseStepOf(op);
  if (!step || op->getNumOperands() != elementwiseOperands(*step))
    return std::nullopt;
  alpha = step->alpha;
  return static_cast<amprt_chain_op>(step->code);
}

FusionPlan::FusionPlan(Block &body, const FusionOptions &options) {
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;
  planFoldedCasts(body, options);
  if (options.reshapeViews)
    planViews(body);
  planUnscaleChecks(body);
  planEpilogues(body, options);
  if (options.fuseElementwiseChains)
    planChains(body);
}

Value FusionPlan::sharedHandle(Value v) const {
  while (Value input = foldedInto.lookup(v))
    v = input;
  return v;
}

Value FusionPlan::storage(Value v) const {
  Value shared = sharedHandle(v);
  if (Value root = viewOf.lookup(shared))
    return root;
  return shared;
}

Operation *FusionPlan::runsAt(Operation *op) const {
  if (Operation *check = checkedBy.lookup(op))
    return check;
  if (Operation *anchor = runsWith.lookup(op))
    return anchor;
  if (Operation *root = chainedInto.lookup(op))
    return root;
  return op;
}

const SmallVector<UnscaleOp> *FusionPlan::unscalesRunBy(Operation *op) const {
  auto it = unscalesOf.find(op);
  return it == unscalesOf.end() ? nullptr : &it->second;
}

const ProductEpilogue *FusionPlan::epilogueAnchoredAt(Operation *op) const {
  auto it = epilogueAt.find(op);
  return it == epilogueAt.end() ? nullptr : &it->second;
}

const ElementwiseChain *FusionPlan::chainRootedAt(Operation *op) const {
  auto it = chainAt.find(op);
  return it == chainAt.end() ? nullptr : &it->second;
}

/// Casts that make no tensor: their result is their input's tensor,
/// which lives until the last product or bias gradient that reads it.
void FusionPlan::planFoldedCasts(Block &body, const FusionOptions &options) {
  for (auto cast : body.getOps<CastOp>())
    if ((options.foldCastsIntoProducts && foldsIntoProducts(cast)) ||
        (options.foldCastsIntoBiasGrads && foldsIntoBiasGrads(cast)))
      foldedInto[cast.getResult()] = cast.getX();
}

/// Reshapes that make no copy: their result is a view of their input's
/// storage (amprt_tensor_view), which lives until the view's last use. A
/// returned reshape gets a tensor of its own for the caller to own. Views
/// and their storage are never written in place while both live: an op
/// writes over an operand only where that operand's storage dies.
void FusionPlan::planViews(Block &body) {
  Operation *ret = body.getTerminator();
  llvm::DenseSet<Value> returned(ret->getOperands().begin(),
                                 ret->getOperands().end());
  for (auto reshape : body.getOps<tg::ReshapeOp>())
    if (!returned.contains(reshape.getResult()))
      viewOf[reshape.getResult()] = storage(reshape.getX());
}

/// Unscales run by the amp.all_finite that checks their results, in one
/// pass over each gradient (amprt_unscale_all_finite) instead of an
/// unscale and a second read of the unscaled gradient.
void FusionPlan::planUnscaleChecks(Block &body) {
  for (auto check : body.getOps<AllFiniteOp>()) {
    SmallVector<UnscaleOp> unscales = unscalesCheckedTogether(check, position);
    for (UnscaleOp unscale : unscales)
      checkedBy[unscale] = check;
    if (!unscales.empty())
      unscalesOf[check] = std::move(unscales);
  }
}

/// Products run with the bias add and the activation after them, where
/// the last of those is (its bias may be made after the product, a cast
/// of the f32 master bias for one).
void FusionPlan::planEpilogues(Block &body, const FusionOptions &options) {
  for (Operation &op : body)
    if (std::optional<ProductEpilogue> e =
            productEpilogue(&op, options.fuseBiasEpilogues,
                            options.fuseActivationEpilogues, position)) {
      Operation *anchor = e->anchor();
      runsWith[&op] = anchor;
      if (e->biasAdd && e->activation)
        runsWith[e->biasAdd] = anchor;
      fusedBiases += e->biasAdd ? 1 : 0;
      fusedActivations += e->activation ? 1 : 0;
      epilogueAt[anchor] = *e;
    }
}

bool FusionPlan::chainable(Operation *op, Block &body) const {
  double alpha;
  return op->getBlock() == &body && !runsWith.count(op) &&
         !epilogueAt.count(op) && !chainedInto.count(op) &&
         chainOp(op, alpha).has_value();
}

/// Trees of elementwise ops whose intermediates each have one reader, in
/// the tree: one pass over the tensors at the root's place, the
/// intermediates never stored (torch-mlir's decomposed gelu is five ops).
/// Grown from the last op back, so a root is found before its members.
void FusionPlan::planChains(Block &body) {
  for (Operation &root : llvm::reverse(body)) {
    if (!chainable(&root, body))
      continue;
    std::optional<ElementwiseChain> chain = growChain(&root, body);
    if (!chain)
      continue;
    for (Operation *step : chain->steps)
      if (step != &root)
        chainedInto[step] = &root;
    chainedOps += chain->steps.size();
    chainAt[&root] = std::move(*chain);
  }
}

/// The chain rooted at `root`: at least two steps, at most
/// AMPRT_CHAIN_MAX_STEPS steps and AMPRT_CHAIN_MAX_INPUTS inputs.
std::optional<ElementwiseChain> FusionPlan::growChain(Operation *root,
                                                      Block &body) const {
  llvm::SetVector<Operation *> members;
  members.insert(root);
  for (unsigned i = 0; i < members.size(); ++i)
    for (Value v : members[i]->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && v.hasOneUse() && !members.contains(def) &&
          chainable(def, body) && members.size() < AMPRT_CHAIN_MAX_STEPS)
        members.insert(def);
    }
  if (members.size() < 2)
    return std::nullopt;
  ElementwiseChain chain;
  chain.steps.assign(members.begin(), members.end());
  llvm::sort(chain.steps, [&](Operation *x, Operation *y) {
    return position.lookup(x) < position.lookup(y);
  });
  llvm::SetVector<Value> inputs;
  for (Operation *step : chain.steps)
    for (Value v : step->getOperands())
      if (!members.contains(v.getDefiningOp()))
        inputs.insert(v);
  if (inputs.size() > AMPRT_CHAIN_MAX_INPUTS)
    return std::nullopt;
  chain.inputs.assign(inputs.begin(), inputs.end());
  return chain;
}

int64_t BufferLifetimes::lastUse(Value v) {
  if (auto known = lastUses.find(v); known != lastUses.end())
    return known->second;
  int64_t last = -1;
  for (Operation *user : v.getUsers()) {
    bool folded = isa<CastOp>(user) && plan.isFoldedCast(user->getResult(0));
    int64_t at = folded ? lastUse(user->getResult(0)) : runsAt(user);
    if (user->getNumResults() == 1 && plan.isView(user->getResult(0)))
      at = std::max(at, lastUse(user->getResult(0)));
    last = std::max(last, at);
  }
  return lastUses[v] = last;
}

int64_t BufferLifetimes::lastDirectUse(Value v) {
  if (auto known = lastDirectUses.find(v); known != lastDirectUses.end())
    return known->second;
  int64_t last = -1;
  for (Operation *user : v.getUsers()) {
    bool folded = isa<CastOp>(user) && plan.isFoldedCast(user->getResult(0));
    last = std::max(last,
                    folded ? lastDirectUse(user->getResult(0)) : runsAt(user));
  }
  return lastDirectUses[v] = last;
}
