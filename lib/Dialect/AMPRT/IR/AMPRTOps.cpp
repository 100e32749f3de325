//===- AMPRTOps.cpp - What each runtime call can run ----------------------===//
//
// The verifiers hold each fused op to what its runtime entry computes, so
// that IR the lowering could not run is refused where it is built.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amprt/amprt.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace amp;
using namespace amp::rt;

#define GET_OP_CLASSES
#include "amp/Dialect/AMPRT/IR/AMPRTOps.cpp.inc"

unsigned amp::elementwiseOperands(ElementwiseStep step) {
  return step.code >= AMPRT_CHAIN_ADD ? 2 : 1;
}

static std::optional<ElementwiseStep> elementwiseStepOf(Operation *op) {
  if (auto lowering = dyn_cast<RuntimeLoweringOpInterface>(op))
    return lowering.getElementwiseStep();
  return std::nullopt;
}

std::optional<ElementwiseStep> amp::rt::chainStepOf(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Type type = op->getResult(0).getType();
  if (!isa<FloatType>(getElementTypeOrSelf(type)) ||
      !llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; }))
    return std::nullopt;
  std::optional<ElementwiseStep> step = elementwiseStepOf(op);
  if (!step || op->getNumOperands() != elementwiseOperands(*step))
    return std::nullopt;
  return step;
}

std::optional<ElementwiseStep> amp::rt::epilogueActivationOf(Operation *op) {
  std::optional<ElementwiseStep> step = elementwiseStepOf(op);
  if (!step || op->getNumOperands() != 1 || op->getNumResults() != 1)
    return std::nullopt;
  switch (step->code) {
#define AMPRT_ACTIVATION(CODE, Kind)                                           \
  case AMPRT_CHAIN_##CODE:                                                     \
    return ElementwiseStep{AMPRT_ACTIVATION_##CODE, step->alpha};
#include "amprt/amprt_activation.def"
  default:
    return std::nullopt;
  }
}

bool amp::rt::runsInFusedOp(Operation *op) {
  return isa_and_nonnull<ProductEpilogueOp, ElementwiseChainOp>(
      op->getParentOp());
}

bool amp::rt::isEpilogueProduct(Operation *op) {
  return isa<tg::MatmulOp, tg::Conv2DOp>(op) && op->getNumResults() == 1;
}

bool amp::rt::addsAlongProductChannels(tg::BiasAddOp biasAdd,
                                       Operation *product) {
  if (getElementTypeOrSelf(biasAdd.getB().getType()) !=
      getElementTypeOrSelf(biasAdd.getX().getType()))
    return false;
  if (auto conv = dyn_cast<tg::Conv2DOp>(product))
    return conv.getLayout() == biasAdd.getLayout();
  return true;
}

//===----------------------------------------------------------------------===//
// amprt.cast_on_read
//===----------------------------------------------------------------------===//

bool amp::rt::roundsAsProductOperand(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<tg::MatmulOp, tg::BatchMatmulOp>(user))
    return use.getOperandNumber() < 2;
  // The epilogue may not be verified yet: look before reaching in.
  auto epilogue = dyn_cast<ProductEpilogueOp>(user);
  if (!epilogue || !epilogue.getBody().hasOneBlock() ||
      epilogue.getBody().front().empty() ||
      use.getOperandNumber() >= epilogue.getBody().getNumArguments() ||
      !isa<tg::MatmulOp>(epilogue.getProduct()))
    return false;
  Value inner = epilogue.getBody().getArgument(use.getOperandNumber());
  return llvm::all_of(inner.getUses(), [&](OpOperand &innerUse) {
    return innerUse.getOwner() == epilogue.getProduct() &&
           innerUse.getOperandNumber() < 2;
  });
}

LogicalResult CastOnReadOp::verify() {
  auto from = cast<RankedTensorType>(getX().getType());
  auto to = cast<RankedTensorType>(getY().getType());
  if (from.getShape() != to.getShape())
    return emitOpError("shapes differ: ") << from << " and " << to;
  Type a = from.getElementType(), b = to.getElementType();
  // Its input lives as long as its readers read: with none, nothing would
  // free it.
  if (getY().use_empty())
    return emitOpError("has no reader; a cast nothing reads is an amp.cast");
  if (a.isF32() && b.isF16()) {
    for (OpOperand &use : getY().getUses())
      if (!roundsAsProductOperand(use))
        return emitOpError("an f32 -> f16 cast on read is read only by "
                           "product operands (tg.matmul, tg.batch_matmul), "
                           "but '")
               << use.getOwner()->getName() << "' reads it";
    return success();
  }
  if (isa<Float16Type, BFloat16Type>(a) && b.isF32()) {
    for (Operation *user : getY().getUsers())
      if (!isa<tg::BiasAddGradOp>(user))
        return emitOpError("a 16-bit -> f32 cast on read is read only by "
                           "tg.bias_add_grad, but '")
               << user->getName() << "' reads it";
    return success();
  }
  return emitOpError("no reader converts ")
         << a << " to " << b
         << " on read (f32 -> f16 for products, f16 or bf16 -> f32 for bias "
            "gradients)";
}

//===----------------------------------------------------------------------===//
// amprt.view
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  auto from = cast<RankedTensorType>(getX().getType());
  auto to = cast<RankedTensorType>(getY().getType());
  if (from.getElementType() != to.getElementType())
    return emitOpError("a view keeps the element type: ")
           << from << " to " << to;
  if (from.getNumElements() != to.getNumElements())
    return emitOpError("a view keeps the element count: ")
           << from.getNumElements() << " to " << to.getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// amprt.strided_batch_matmul
//===----------------------------------------------------------------------===//

namespace {
/// A view attribute, {offset, shape..., strides...}, in parts.
struct ViewParts {
  int64_t offset;
  ArrayRef<int64_t> shape, strides;
};

/// `view`'s parts at `rank`, checked to lie inside `storage`.
FailureOr<ViewParts> viewParts(Operation *op, StringRef name,
                               ArrayRef<int64_t> view, int64_t rank,
                               RankedTensorType storage) {
  if ((int64_t)view.size() != 1 + 2 * rank)
    return op->emitOpError(name)
           << " has " << view.size() << " values, not 1 + 2 * " << rank;
  ViewParts parts{view[0], view.slice(1, rank), view.slice(1 + rank, rank)};
  int64_t last = parts.offset;
  bool empty = false, overflow = false;
  for (auto [size, stride] : llvm::zip(parts.shape, parts.strides)) {
    if (size < 0 || stride < 0)
      return op->emitOpError(name) << " has a negative size or stride";
    empty |= size == 0;
    int64_t reach = 0;
    overflow |= size > 0 && llvm::MulOverflow(size - 1, stride, reach);
    overflow |= llvm::AddOverflow(last, reach, last);
  }
  // As amprt's view check: an offset past int64 is refused even for a
  // view that names no element.
  if (parts.offset < 0 || overflow ||
      (!empty && last >= storage.getNumElements()))
    return op->emitOpError(name) << " reaches past its tensor's "
                                 << storage.getNumElements() << " elements";
  return parts;
}

/// Whether no two indices of the view name one element (an empty view
/// names none).
bool oneToOne(const ViewParts &v) {
  if (llvm::is_contained(v.shape, 0))
    return true;
  SmallVector<std::pair<int64_t, int64_t>> dims;
  for (auto [size, stride] : llvm::zip(v.shape, v.strides))
    if (size > 1)
      dims.push_back({stride, size});
  llvm::sort(dims);
  int64_t extent = 1;
  for (auto [stride, size] : dims) {
    if (stride < extent)
      return false;
    extent += stride * (size - 1);
  }
  return true;
}
} // namespace

LogicalResult StridedBatchMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  if (!a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape())
    return emitOpError("needs static shapes");
  if (a.getElementType() != c.getElementType() ||
      b.getElementType() != c.getElementType())
    return emitOpError("multiplies and writes one element type");
  int64_t rank = ((int64_t)getCView().size() - 1) / 2;
  if (rank < 3 || rank > 8)
    return emitOpError("views are of rank 3 to 8");
  FailureOr<ViewParts> av = viewParts(*this, "a_view", getAView(), rank, a);
  FailureOr<ViewParts> bv = viewParts(*this, "b_view", getBView(), rank, b);
  FailureOr<ViewParts> cv = viewParts(*this, "c_view", getCView(), rank, c);
  if (failed(av) || failed(bv) || failed(cv))
    return failure();
  ArrayRef<int64_t> as = av->shape, bs = bv->shape, cs = cv->shape;
  bool fits = as[rank - 1] == bs[rank - 2] && cs[rank - 2] == as[rank - 2] &&
              cs[rank - 1] == bs[rank - 1] &&
              as.drop_back(2) == cs.drop_back(2) &&
              bs.drop_back(2) == cs.drop_back(2);
  if (!fits)
    return emitOpError("views ")
           << tg::formatShape(as) << " x " << tg::formatShape(bs)
           << " do not make " << tg::formatShape(cs);
  int64_t covered = 1;
  for (int64_t size : cs)
    covered *= size;
  if (covered != c.getNumElements() || !oneToOne(*cv))
    return emitOpError("c_view must name every element of its result once");
  return success();
}

//===----------------------------------------------------------------------===//
// amprt.attention, amprt.attention_grad
//===----------------------------------------------------------------------===//

namespace {
/// An attention op's scale: finite once rounded to the f32 the runtime
/// multiplies the scores by (amprt_attention refuses any other).
LogicalResult checkScale(Operation *op, const APFloat &scale) {
  if (!std::isfinite(float(scale.convertToDouble())))
    return op->emitOpError("scale must be finite in f32, got ")
           << scale.convertToDouble();
  return success();
}

/// A view attribute of an attention op, by name, over its tensor.
struct NamedView {
  StringRef name;
  ArrayRef<int64_t> view;
  Value tensor;
};

/// Parses `views` (q, k, v, then the rest) at one rank, checks that q, k
/// and v make heads (q [b..., tq, d], k [b..., tk, d], v [b..., tk, e],
/// tk >= 1) of one static float type with the rest, and returns their
/// parts and o's shape [b..., tq, e] last.
FailureOr<SmallVector<ViewParts>> attentionViews(Operation *op,
                                                 ArrayRef<NamedView> views,
                                                 SmallVector<int64_t> &oShape) {
  Type element = getElementTypeOrSelf(views.front().tensor.getType());
  int64_t rank = ((int64_t)views.front().view.size() - 1) / 2;
  if (rank < 3 || rank > 8)
    return op->emitOpError("views are of rank 3 to 8");
  SmallVector<ViewParts> parts;
  for (const NamedView &v : views) {
    auto type = cast<RankedTensorType>(v.tensor.getType());
    if (!type.hasStaticShape())
      return op->emitOpError("needs static shapes");
    if (type.getElementType() != element)
      return op->emitOpError("reads and writes one element type");
    FailureOr<ViewParts> p = viewParts(op, v.name, v.view, rank, type);
    if (failed(p))
      return failure();
    parts.push_back(*p);
  }
  ArrayRef<int64_t> q = parts[0].shape, k = parts[1].shape, v = parts[2].shape;
  if (q.drop_back(2) != k.drop_back(2) || k.drop_back(2) != v.drop_back(2) ||
      q.back() != k.back() || k[rank - 2] != v[rank - 2] || k[rank - 2] < 1)
    return op->emitOpError("views ")
           << tg::formatShape(q) << ", " << tg::formatShape(k) << ", "
           << tg::formatShape(v)
           << " are not q [b..., tq, d], k [b..., tk, d], v [b..., tk, e]";
  oShape.assign(q.begin(), q.end());
  oShape.back() = v.back();
  return parts;
}

/// A result's view: `shape`, naming every element of its result once.
LogicalResult checkResultView(Operation *op, const NamedView &named,
                              const ViewParts &parts, ArrayRef<int64_t> shape) {
  if (parts.shape != shape)
    return op->emitOpError(named.name) << " is " << tg::formatShape(parts.shape)
                                       << ", not " << tg::formatShape(shape);
  if (cast<RankedTensorType>(named.tensor.getType()).getNumElements() !=
          ShapedType::getNumElements(shape) ||
      !oneToOne(parts))
    return op->emitOpError(named.name)
           << " must name every element of its result once";
  return success();
}
} // namespace

LogicalResult AttentionOp::verify() {
  if (failed(checkScale(*this, getScale())))
    return failure();
  SmallVector<NamedView> views = {{"q_view", getQView(), getQ()},
                                  {"k_view", getKView(), getK()},
                                  {"v_view", getVView(), getV()},
                                  {"o_view", getOView(), getO()}};
  SmallVector<int64_t> oShape;
  FailureOr<SmallVector<ViewParts>> parts =
      attentionViews(*this, views, oShape);
  if (failed(parts))
    return failure();
  return checkResultView(*this, views[3], (*parts)[3], oShape);
}

LogicalResult AttentionGradOp::verify() {
  if (failed(checkScale(*this, getScale())))
    return failure();
  SmallVector<NamedView> views = {{"q_view", getQView(), getQ()},
                                  {"k_view", getKView(), getK()},
                                  {"v_view", getVView(), getV()},
                                  {"grad_o_view", getGradOView(), getGradO()},
                                  {"grad_q_view", getGradQView(), getGradQ()},
                                  {"grad_k_view", getGradKView(), getGradK()},
                                  {"grad_v_view", getGradVView(), getGradV()}};
  SmallVector<int64_t> oShape;
  FailureOr<SmallVector<ViewParts>> parts =
      attentionViews(*this, views, oShape);
  if (failed(parts))
    return failure();
  if ((*parts)[3].shape != ArrayRef<int64_t>(oShape))
    return emitOpError("grad_o_view is ")
           << tg::formatShape((*parts)[3].shape) << ", not o's "
           << tg::formatShape(oShape);
  for (int i = 0; i < 3; ++i)
    if (failed(checkResultView(*this, views[4 + i], (*parts)[4 + i],
                               (*parts)[i].shape)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// amprt.unscale_all_finite
//===----------------------------------------------------------------------===//

LogicalResult UnscaleAllFiniteOp::verify() {
  if (getGs().empty())
    return emitOpError("needs at least one gradient");
  if (getGs().size() != getUnscaled().size())
    return emitOpError("has ") << getGs().size() << " gradients but "
                               << getUnscaled().size() << " unscaled results";
  for (auto [g, unscaled] : llvm::zip(getGs(), getUnscaled())) {
    auto in = cast<RankedTensorType>(g.getType());
    auto out = cast<RankedTensorType>(unscaled.getType());
    if (!isa<Float16Type, BFloat16Type, Float32Type>(in.getElementType()))
      return emitOpError("unscales f16, bf16 or f32 gradients, got ") << in;
    if (!out.getElementType().isF32() || out.getShape() != in.getShape())
      return emitOpError("unscaled ")
             << in << " is f32 of its shape, got " << out;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Region ops
//===----------------------------------------------------------------------===//

/// Checks what both region ops share: one block whose arguments have the
/// operands' types, ending in an amprt.yield of the op's result types.
static LogicalResult verifyIsolatedBody(Operation *op, Block &body,
                                        ValueRange inputs) {
  if (body.getArgumentTypes() != TypeRange(inputs))
    return op->emitOpError("region arguments must have the operands' types");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op->emitOpError("region must end in amprt.yield");
  if (TypeRange(yield.getValues()) != op->getResultTypes())
    return op->emitOpError("yields ")
           << yield.getValues().getTypes() << " for results of types "
           << op->getResultTypes();
  return success();
}

/// The region's ops, without its yield.
static SmallVector<Operation *> stepsOf(Block &body) {
  SmallVector<Operation *> steps;
  for (Operation &op : body.without_terminator())
    steps.push_back(&op);
  return steps;
}

Operation *ProductEpilogueOp::getProduct() {
  return &getBody().front().front();
}

Operation *ProductEpilogueOp::getBiasAdd() {
  Operation *next = getProduct()->getNextNode();
  return isa<tg::BiasAddOp>(next) ? next : nullptr;
}

Operation *ProductEpilogueOp::getActivation() {
  Operation *last = getBody().front().getTerminator()->getPrevNode();
  return last == getProduct() || last == getBiasAdd() ? nullptr : last;
}

/// The epilogue's ops are the product, its bias add, its activation, each
/// reading the one before; the product reads the first region arguments,
/// the bias add the last.
static LogicalResult verifyEpilogueSteps(ProductEpilogueOp op,
                                         ArrayRef<Operation *> steps) {
  Block &body = op.getBody().front();
  Operation *product = steps.front();
  if (!isEpilogueProduct(product))
    return op.emitOpError("runs a tg.matmul or tg.conv2d first, got '")
           << product->getName() << "'";
  if (body.getNumArguments() < 2 ||
      product->getOperand(0) != body.getArgument(0) ||
      product->getOperand(1) != body.getArgument(1))
    return op.emitOpError("the product reads region arguments 0 and 1");
  Value last = product->getResult(0);
  unsigned next = 1, inputs = 2;
  if (auto biasAdd = dyn_cast<tg::BiasAddOp>(steps[next])) {
    if (body.getNumArguments() != 3 || biasAdd.getX() != last ||
        biasAdd.getB() != body.getArgument(2) ||
        !addsAlongProductChannels(biasAdd, product))
      return op.emitOpError("the bias add adds region argument 2 along the "
                            "product's channels, in its element type");
    last = biasAdd.getResult();
    ++next;
    ++inputs;
  }
  if (next < steps.size()) {
    if (!epilogueActivationOf(steps[next]) ||
        steps[next]->getOperand(0) != last)
      return op.emitOpError("'")
             << steps[next]->getName()
             << "' is no epilogue activation of the (biased) product";
    ++next;
  }
  if (next != steps.size())
    return op.emitOpError("runs a product, a bias add and an activation at "
                          "most, in that order");
  if (body.getNumArguments() != inputs)
    return op.emitOpError("takes ")
           << inputs << " operands, got " << body.getNumArguments();
  return success();
}

LogicalResult ProductEpilogueOp::verifyRegions() {
  Block &body = getBody().front();
  if (failed(verifyIsolatedBody(*this, body, getInputs())))
    return failure();
  SmallVector<Operation *> steps = stepsOf(body);
  if (steps.size() < 2 || steps.size() > 3)
    return emitOpError("runs a product and one or two epilogue ops, got ")
           << steps.size() << " ops";
  if (failed(verifyEpilogueSteps(*this, steps)))
    return failure();
  ValueRange yielded = body.getTerminator()->getOperands();
  Operation *activation = getActivation();
  bool yieldsPre = yielded.size() == 2 && activation &&
                   yielded[1] == activation->getOperand(0);
  if (yielded.empty() || yielded[0] != steps.back()->getResult(0) ||
      (yielded.size() == 2 && !yieldsPre) || yielded.size() > 2)
    return emitOpError("yields its last op's result and, with an "
                       "activation, the activation's input");
  return success();
}

LogicalResult ElementwiseChainOp::verifyRegions() {
  Block &body = getBody().front();
  if (failed(verifyIsolatedBody(*this, body, getInputs())))
    return failure();
  if (llvm::any_of(getInputs().getTypes(),
                   [&](Type t) { return t != getType(); }))
    return emitOpError("reads inputs of its result's type only (")
           << getType() << ")";
  if (getInputs().size() > AMPRT_CHAIN_MAX_INPUTS)
    return emitOpError("reads at most ")
           << AMPRT_CHAIN_MAX_INPUTS << " inputs, got " << getInputs().size();
  SmallVector<Operation *> steps = stepsOf(body);
  if (steps.size() < 2 || steps.size() > AMPRT_CHAIN_MAX_STEPS)
    return emitOpError("runs 2 to ")
           << AMPRT_CHAIN_MAX_STEPS << " steps, got " << steps.size();
  for (Operation *step : steps) {
    if (!chainStepOf(step))
      return emitOpError("'")
             << step->getName()
             << "' is no chain step (an op whose runtime lowering names its "
                "elementwise function, on operands of its result's type)";
    if (step != steps.back() && !step->getResult(0).hasOneUse())
      return emitOpError("each intermediate is read by one later step");
  }
  if (body.getTerminator()->getOperands() !=
      ValueRange(steps.back()->getResults()))
    return emitOpError("yields its last step's result");
  return success();
}
