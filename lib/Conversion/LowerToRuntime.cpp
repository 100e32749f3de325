//===- LowerToRuntime.cpp - tg/amp ops to amprt C API calls ---------------===//
//
// Straight-line training steps become straight-line runtime calls: each op
// allocates its results (amprt_tensor_new), calls its amprt_ entry, and
// records the status on the context, which keeps the first failure; the
// step returns it at the end. Intermediates are released after their last
// use, so peak memory follows the live set, not the whole graph.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Conversion/RuntimeLoweringBuilder.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include <functional>

namespace amp {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp

using namespace mlir;
using amp::RuntimeLoweringBuilder;
namespace tg = amp::tg;

std::optional<int32_t> amp::runtimeDtypeCode(Type element) {
  if (element.isF32())
    return AMPRT_F32;
  if (element.isF16())
    return AMPRT_F16;
  if (element.isBF16())
    return AMPRT_BF16;
  if (element.isF64())
    return AMPRT_F64;
  if (element.isInteger(32))
    return AMPRT_I32;
  if (element.isInteger(64))
    return AMPRT_I64;
  if (element.isInteger(1))
    return AMPRT_I1;
  if (isa<Float8E4M3FNType>(element))
    return AMPRT_F8E4M3FN;
  if (isa<Float8E5M2Type>(element))
    return AMPRT_F8E5M2;
  return std::nullopt;
}

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

/// The amprt_activation of `op` when a product's epilogue can apply it
/// (tg's activations: the amprt_unary functions of those names), with its
/// slope (leaky relu's alpha, 0 otherwise).
std::optional<amprt_activation> epilogueActivation(Operation *op,
                                                   double &alpha) {
  alpha = 0;
  if (isa<tg::ReluOp>(op))
    return AMPRT_ACTIVATION_RELU;
  if (isa<tg::GeluOp>(op))
    return AMPRT_ACTIVATION_GELU;
  if (isa<tg::TanhOp>(op))
    return AMPRT_ACTIVATION_TANH;
  if (isa<tg::SigmoidOp>(op))
    return AMPRT_ACTIVATION_SIGMOID;
  if (isa<tg::SiluOp>(op))
    return AMPRT_ACTIVATION_SILU;
  if (auto leaky = dyn_cast<tg::LeakyReluOp>(op)) {
    alpha = leaky.getAlpha().convertToDouble();
    return AMPRT_ACTIVATION_LEAKY_RELU;
  }
  return std::nullopt;
}

/// A product and the ops that run in its epilogue, as one call at the
/// place of the last of them (the anchor).
struct ProductEpilogue {
  Operation *product = nullptr;
  mutable tg::BiasAddOp biasAdd;   // null: no bias
  Operation *activation = nullptr; // null: no activation
  amprt_activation code = AMPRT_ACTIVATION_RELU;
  double alpha = 0;
  /// Whether the activation's input is also read after it: the call then
  /// writes it too (amprt_matmul_bias_act's `pre`).
  bool keepsPre = false;

  Operation *anchor() const {
    return activation ? activation : biasAdd.getOperation();
  }
  /// The activation's input: the biased product, or the product.
  Value pre() const {
    return biasAdd ? Value(biasAdd.getResult()) : product->getResult(0);
  }
};

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

/// The amprt_chain_op of a tg elementwise op an amprt_elementwise_chain
/// step can run: tg's unary arithmetic and activations, and its binary
/// arithmetic, on float operands of the result's type (no broadcasting),
/// with its slope (leaky relu's alpha, 0 otherwise).
std::optional<amprt_chain_op> chainOp(Operation *op, double &alpha) {
  alpha = 0;
  if (op->getNumResults() != 1)
    return std::nullopt;
  Type type = op->getResult(0).getType();
  if (!isa<FloatType>(getElementTypeOrSelf(type)) ||
      !llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; }))
    return std::nullopt;
  using Code = std::optional<amprt_chain_op>;
  return llvm::TypeSwitch<Operation *, Code>(op)
      .Case([](tg::NegOp) { return AMPRT_CHAIN_NEG; })
      .Case([](tg::AbsOp) { return AMPRT_CHAIN_ABS; })
      .Case([](tg::ExpOp) { return AMPRT_CHAIN_EXP; })
      .Case([](tg::LogOp) { return AMPRT_CHAIN_LOG; })
      .Case([](tg::SqrtOp) { return AMPRT_CHAIN_SQRT; })
      .Case([](tg::RsqrtOp) { return AMPRT_CHAIN_RSQRT; })
      .Case([](tg::SquareOp) { return AMPRT_CHAIN_SQUARE; })
      .Case([](tg::ReciprocalOp) { return AMPRT_CHAIN_RECIPROCAL; })
      .Case([](tg::TanhOp) { return AMPRT_CHAIN_TANH; })
      .Case([](tg::SigmoidOp) { return AMPRT_CHAIN_SIGMOID; })
      .Case([](tg::ReluOp) { return AMPRT_CHAIN_RELU; })
      .Case([](tg::GeluOp) { return AMPRT_CHAIN_GELU; })
      .Case([](tg::ErfOp) { return AMPRT_CHAIN_ERF; })
      .Case([](tg::SiluOp) { return AMPRT_CHAIN_SILU; })
      .Case([&](tg::LeakyReluOp leaky) {
        alpha = leaky.getAlpha().convertToDouble();
        return AMPRT_CHAIN_LEAKY_RELU;
      })
      .Case([](tg::AddOp) { return AMPRT_CHAIN_ADD; })
      .Case([](tg::SubOp) { return AMPRT_CHAIN_SUB; })
      .Case([](tg::MulOp) { return AMPRT_CHAIN_MUL; })
      .Case([](tg::DivOp) { return AMPRT_CHAIN_DIV; })
      .Case([](tg::PowOp) { return AMPRT_CHAIN_POW; })
      .Case([](tg::MaximumOp) { return AMPRT_CHAIN_MAXIMUM; })
      .Case([](tg::MinimumOp) { return AMPRT_CHAIN_MINIMUM; })
      .Default([](Operation *) -> Code { return std::nullopt; });
}

/// Elementwise ops run as one amprt_elementwise_chain call at the place of
/// the last (the root): its steps in block order, and the values they read
/// from outside (its inputs).
struct ElementwiseChain {
  SmallVector<Operation *> steps;
  SmallVector<Value> inputs;
};

class FunctionLowering {
public:
  FunctionLowering(ModuleOp module, func::FuncOp func, bool foldCasts,
                   bool foldBiasGradCasts, bool inPlace, bool reshapeViews,
                   bool fuseBiases, bool fuseActivations, bool fuseChains)
      : module(module), func(func), foldCasts(foldCasts),
        foldBiasGradCasts(foldBiasGradCasts), inPlace(inPlace),
        reshapeViews(reshapeViews), fuseBiases(fuseBiases),
        fuseActivations(fuseActivations), fuseChains(fuseChains),
        b(func.getContext()),
        ptr(LLVM::LLVMPointerType::get(func.getContext())),
        i32(b.getI32Type()) {}

  LogicalResult run();
  unsigned numFoldedCasts = 0, numFusedChecks = 0, numInPlaceResults = 0,
           numReshapeViews = 0, numFusedBiases = 0, numFusedActivations = 0,
           numChains = 0, numChainedOps = 0;

private:
  /// Lowers `op` by its RuntimeLoweringOpInterface (constants here).
  LogicalResult lowerOp(RuntimeLoweringBuilder &lowering, Operation *op);
  LogicalResult lowerConstant(RuntimeLoweringBuilder &lowering,
                              arith::ConstantOp op);
  /// `check` and the unscales of its operands as one
  /// amprt_unscale_all_finite call.
  void lowerUnscalesAndCheck(RuntimeLoweringBuilder &lowering,
                             amp::AllFiniteOp check,
                             ArrayRef<amp::UnscaleOp> unscales);
  /// A product and its epilogue as one amprt_matmul_bias /
  /// amprt_conv2d_bias call, or amprt_matmul_bias_act /
  /// amprt_conv2d_bias_act with an activation.
  void lowerEpilogue(RuntimeLoweringBuilder &lowering,
                     const ProductEpilogue &epilogue);

  ModuleOp module;
  func::FuncOp func;
  /// `chain` as one amprt_elementwise_chain call.
  void lowerChain(RuntimeLoweringBuilder &lowering,
                  const ElementwiseChain &chain);

  bool foldCasts, foldBiasGradCasts, inPlace, reshapeViews, fuseBiases,
      fuseActivations, fuseChains;
  OpBuilder b;
  Type ptr, i32;
  unsigned globals = 0;
  std::string baseName;
};

LogicalResult FunctionLowering::lowerConstant(RuntimeLoweringBuilder &lowering,
                                              arith::ConstantOp op) {
  Location loc = lowering.getLoc();
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!dense || !type)
    return op.emitError("amp-lower-to-runtime: only dense tensor constants "
                        "lower to the runtime");
  Value t = lowering.newTensor(type);
  lowering.setHandle(op.getResult(), t);
  Type element = type.getElementType();
  if (dense.isSplat()) {
    double v = isa<FloatType>(element)
                   ? dense.getSplatValue<APFloat>().convertToDouble()
                   : (double)dense.getSplatValue<APInt>().getSExtValue();
    lowering.callChecked(AMPRT_ENTRY(amprt_tensor_fill), t,
                         lowering.constF64(v));
    return success();
  }
  // The data lives in an LLVM global, copied in by amprt_tensor_write.
  // i1 elements are stored one byte each, like the runtime's.
  DenseElementsAttr data = dense;
  Type storage = element;
  if (element.isInteger(1)) {
    storage = b.getI8Type();
    SmallVector<int8_t> bytes;
    for (bool v : dense.getValues<bool>())
      bytes.push_back(v);
    data = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)bytes.size()}, storage),
        ArrayRef<int8_t>(bytes));
  } else {
    data =
        dense.reshape(RankedTensorType::get({type.getNumElements()}, element));
  }
  auto arrayType = LLVM::LLVMArrayType::get(storage, type.getNumElements());
  std::string name = (baseName + "_cst" + Twine(globals++)).str();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name, data);
  }
  Value address = LLVM::AddressOfOp::create(b, loc, ptr, name);
  unsigned bits = storage.getIntOrFloatBitWidth();
  int64_t bytes = type.getNumElements() * std::max(1u, bits / 8);
  Value size = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes));
  lowering.callChecked(AMPRT_ENTRY(amprt_tensor_write), t, address, size);
  return success();
}

void FunctionLowering::lowerUnscalesAndCheck(
    RuntimeLoweringBuilder &lowering, amp::AllFiniteOp check,
    ArrayRef<amp::UnscaleOp> unscales) {
  lowering.setLoc(check.getLoc());
  SmallVector<Value> grads, unscaled;
  for (amp::UnscaleOp unscale : unscales)
    grads.push_back(lowering.handle(unscale.getG()));
  for (amp::UnscaleOp unscale : unscales)
    unscaled.append(lowering.newResults(unscale));
  Value finite = lowering.newResults(check)[0];
  amp::UnscaleOp first = unscales.front();
  lowering.callChecked(
      AMPRT_ENTRY(amprt_unscale_all_finite), lowering.context(),
      lowering.ptrArray(grads), lowering.constI32(grads.size()),
      lowering.handle(first.getScale()), lowering.ptrArray(unscaled), finite);
}

void FunctionLowering::lowerEpilogue(RuntimeLoweringBuilder &lowering,
                                     const ProductEpilogue &e) {
  SmallVector<Location> locs = {e.product->getLoc()};
  if (e.biasAdd)
    locs.push_back(e.biasAdd.getLoc());
  if (e.activation)
    locs.push_back(e.activation->getLoc());
  lowering.setLoc(FusedLoc::get(b.getContext(), locs));
  Value ctx = lowering.context();
  Value y = lowering.newResults(e.anchor())[0];
  Value bias = e.biasAdd ? lowering.handle(e.biasAdd.getB()) : Value();
  auto matmul = dyn_cast<tg::MatmulOp>(e.product);
  auto conv = dyn_cast<tg::Conv2DOp>(e.product);
  if (!e.activation) {
    if (matmul) {
      lowering.callChecked(AMPRT_ENTRY(amprt_matmul_bias), ctx,
                           lowering.handle(matmul.getA()),
                           lowering.handle(matmul.getB()),
                           lowering.constI32(matmul.getTransposeA()),
                           lowering.constI32(matmul.getTransposeB()), bias, y);
      return;
    }
    lowering.callChecked(
        AMPRT_ENTRY(amprt_conv2d_bias), ctx, lowering.handle(conv.getX()),
        lowering.handle(conv.getW()), bias,
        lowering.i64Array(conv.getStrides()),
        lowering.i64Array(conv.getPadding()),
        lowering.i64Array(conv.getDilations()),
        lowering.constI32(amp::abi::layoutCode(conv.getLayout())), y);
    return;
  }
  if (!bias)
    bias = lowering.nullPointer();
  Value pre = e.keepsPre ? lowering.newResults(e.pre().getDefiningOp())[0]
                         : lowering.nullPointer();
  Value act = lowering.constI32(e.code), alpha = lowering.constF64(e.alpha);
  if (matmul) {
    lowering.callChecked(
        AMPRT_ENTRY(amprt_matmul_bias_act), ctx, lowering.handle(matmul.getA()),
        lowering.handle(matmul.getB()),
        lowering.constI32(matmul.getTransposeA()),
        lowering.constI32(matmul.getTransposeB()), bias, act, alpha, pre, y);
    return;
  }
  lowering.callChecked(
      AMPRT_ENTRY(amprt_conv2d_bias_act), ctx, lowering.handle(conv.getX()),
      lowering.handle(conv.getW()), bias, lowering.i64Array(conv.getStrides()),
      lowering.i64Array(conv.getPadding()),
      lowering.i64Array(conv.getDilations()),
      lowering.constI32(amp::abi::layoutCode(conv.getLayout())), act, alpha,
      pre, y);
}

void FunctionLowering::lowerChain(RuntimeLoweringBuilder &lowering,
                                  const ElementwiseChain &chain) {
  SmallVector<Location> locs;
  for (Operation *step : chain.steps)
    locs.push_back(step->getLoc());
  lowering.setLoc(FusedLoc::get(b.getContext(), locs));
  llvm::DenseMap<Value, int64_t> index;
  SmallVector<Value> inputs;
  for (Value v : chain.inputs) {
    index[v] = inputs.size();
    inputs.push_back(lowering.handle(v));
  }
  SmallVector<int64_t> program;
  SmallVector<double> alphas;
  for (Operation *step : chain.steps) {
    double alpha = 0;
    amprt_chain_op code = *chainOp(step, alpha);
    int64_t a = index.lookup(step->getOperand(0));
    int64_t b =
        step->getNumOperands() > 1 ? index.lookup(step->getOperand(1)) : a;
    program.append({code, a, b});
    alphas.push_back(alpha);
    index[step->getResult(0)] = chain.inputs.size() + alphas.size() - 1;
  }
  // Built in argument order, so the IR does not depend on the compiler's
  // order of evaluating call arguments.
  Value inputArray = lowering.ptrArray(inputs);
  Value numInputs = lowering.constI32(inputs.size());
  Value programArray = lowering.i64Array(program);
  Value alphaArray = lowering.f64Array(alphas);
  Value numSteps = lowering.constI32(alphas.size());
  Value y = lowering.resultOver(chain.steps.back()->getResult(0), chain.inputs);
  lowering.callChecked(AMPRT_ENTRY(amprt_elementwise_chain), lowering.context(),
                       inputArray, numInputs, programArray, alphaArray,
                       numSteps, y);
}

LogicalResult FunctionLowering::lowerOp(RuntimeLoweringBuilder &lowering,
                                        Operation *op) {
  lowering.setLoc(op->getLoc());
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(lowering, constant);
  if (auto rule = dyn_cast<amp::RuntimeLoweringOpInterface>(op))
    return rule.lowerToRuntime(lowering);
  if (isa<tg::GradientsOp>(op))
    return op->emitError("amp-lower-to-runtime: 'tg.gradients' has no "
                         "runtime lowering: run --tg-autodiff first");
  return op->emitError() << "amp-lower-to-runtime: '" << op->getName()
                         << "' has no runtime lowering (attach "
                            "amp::RuntimeLoweringOpInterface to give it one; "
                            "ops with regions are not supported)";
}

LogicalResult FunctionLowering::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError("amp-lower-to-runtime: functions must be one "
                          "block");
  Block &body = func.getBody().front();
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
      return func.emitError("amp-lower-to-runtime: arguments and results "
                            "must be tensors of f32, f16, bf16, f64, i32, "
                            "i64 or i1, got ")
             << t;
    if (!tensor.hasStaticShape())
      return func.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
             << t << "; give the step concrete sizes";
  }
  for (Operation &op : body)
    for (Type t : op.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !amp::runtimeDtypeCode(tensor.getElementType()))
        return op.emitError("amp-lower-to-runtime: results must be tensors "
                            "of a runtime element type, got ")
               << t;
      if (!tensor.hasStaticShape())
        return op.emitError("amp-lower-to-runtime: the runtime needs static "
                            "shapes, got ")
               << t;
    }

  // Casts that make no tensor: their result is their input's tensor,
  // which lives until the last product or bias gradient that reads it.
  llvm::DenseMap<Value, Value> foldedInto;
  for (auto cast : body.getOps<amp::CastOp>())
    if ((foldCasts && foldsIntoProducts(cast)) ||
        (foldBiasGradCasts && foldsIntoBiasGrads(cast)))
      foldedInto[cast.getResult()] = cast.getX();
  numFoldedCasts = foldedInto.size();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  llvm::DenseSet<Value> returned(ret.getOperands().begin(),
                                 ret.getOperands().end());

  // Reshapes that make no copy: their result is a view of their input's
  // storage (amprt_tensor_view), which lives until the view's last use. A
  // returned reshape gets a tensor of its own for the caller to own. Views
  // and their storage are never written in place while both live: an op
  // writes over an operand only where that operand's storage dies.
  llvm::DenseMap<Value, Value> viewOf;
  // The value whose handle `v` shares: a folded cast's input (that of a
  // cast of a cast, and so on).
  std::function<Value(Value)> sharedHandle = [&](Value v) -> Value {
    Value input = foldedInto.lookup(v);
    return input ? sharedHandle(input) : v;
  };
  // The value that owns `v`'s storage: through folded casts, then a
  // view's root (a folded cast of a view reads the view's root).
  auto storage = [&](Value v) {
    Value shared = sharedHandle(v);
    if (Value root = viewOf.lookup(shared))
      return root;
    return shared;
  };
  if (reshapeViews)
    for (auto reshape : body.getOps<tg::ReshapeOp>())
      if (!returned.contains(reshape.getResult())) {
        Value input = reshape.getX();
        viewOf[reshape.getResult()] = storage(input);
      }
  numReshapeViews = viewOf.size();

  llvm::DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;

  // Unscales run by the amp.all_finite that checks their results, in one
  // pass over each gradient (amprt_unscale_all_finite) instead of an
  // unscale and a second read of the unscaled gradient.
  llvm::DenseMap<Operation *, SmallVector<amp::UnscaleOp>> unscalesOf;
  llvm::DenseMap<Operation *, Operation *> checkedBy;
  for (auto check : body.getOps<amp::AllFiniteOp>()) {
    SmallVector<amp::UnscaleOp> unscales =
        unscalesCheckedTogether(check, position);
    for (amp::UnscaleOp unscale : unscales)
      checkedBy[unscale] = check;
    if (!unscales.empty())
      unscalesOf[check] = std::move(unscales);
  }
  numFusedChecks = unscalesOf.size();

  // Products run with the bias add and the activation after them, where
  // the last of those is (its bias may be made after the product, a cast
  // of the f32 master bias for one).
  llvm::DenseMap<Operation *, ProductEpilogue> epilogueAt;
  llvm::DenseMap<Operation *, Operation *> runsWith;
  for (Operation &op : body)
    if (std::optional<ProductEpilogue> e =
            productEpilogue(&op, fuseBiases, fuseActivations, position)) {
      Operation *anchor = e->anchor();
      runsWith[&op] = anchor;
      if (e->biasAdd && e->activation)
        runsWith[e->biasAdd] = anchor;
      numFusedBiases += e->biasAdd ? 1 : 0;
      numFusedActivations += e->activation ? 1 : 0;
      epilogueAt[anchor] = *e;
    }

  // Trees of elementwise ops whose intermediates each have one reader, in
  // the tree: one pass over the tensors at the root's place, the
  // intermediates never stored (torch-mlir's decomposed gelu is five ops).
  // Grown from the last op back, so a root is found before its members.
  llvm::DenseMap<Operation *, ElementwiseChain> chainAt;
  llvm::DenseMap<Operation *, Operation *> chainedInto;
  auto chainable = [&](Operation *op) {
    double alpha;
    return op->getBlock() == &body && !runsWith.count(op) &&
           !epilogueAt.count(op) && !chainedInto.count(op) &&
           chainOp(op, alpha).has_value();
  };
  if (fuseChains)
    for (Operation &root : llvm::reverse(body)) {
      if (!chainable(&root))
        continue;
      llvm::SetVector<Operation *> members;
      members.insert(&root);
      for (unsigned i = 0; i < members.size(); ++i)
        for (Value v : members[i]->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (def && v.hasOneUse() && !members.contains(def) &&
              chainable(def) && members.size() < AMPRT_CHAIN_MAX_STEPS)
            members.insert(def);
        }
      if (members.size() < 2)
        continue;
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
        continue;
      chain.inputs.assign(inputs.begin(), inputs.end());
      for (Operation *step : chain.steps)
        if (step != &root)
          chainedInto[step] = &root;
      ++numChains;
      numChainedOps += chain.steps.size();
      chainAt[&root] = std::move(chain);
    }

  // The last use of every value, by op position in the block: a folded
  // cast's users use its input, a deferred unscale reads its operands
  // where its check runs, and a fused product (and bias add) where its
  // epilogue runs. A view's uses are its storage's too.
  auto runsAt = [&](Operation *user) -> int64_t {
    if (checkedBy.count(user))
      return position.lookup(checkedBy[user]);
    if (Operation *anchor = runsWith.lookup(user))
      return position.lookup(anchor);
    if (Operation *root = chainedInto.lookup(user))
      return position.lookup(root);
    return position.lookup(user);
  };
  // Both are asked for every operand of every op: each value's answer is
  // kept, so a value read by many ops (the learning rate, by every
  // update) costs its users once, not once per reader.
  llvm::DenseMap<Value, int64_t> lastUses, lastDirectUses;
  std::function<int64_t(Value)> lastUse = [&](Value v) -> int64_t {
    if (auto known = lastUses.find(v); known != lastUses.end())
      return known->second;
    int64_t last = -1;
    for (Operation *user : v.getUsers()) {
      auto cast = dyn_cast<amp::CastOp>(user);
      int64_t at = cast && foldedInto.count(cast.getResult())
                       ? lastUse(cast.getResult())
                       : runsAt(user);
      if (user->getNumResults() == 1 && viewOf.count(user->getResult(0)))
        at = std::max(at, lastUse(user->getResult(0)));
      last = std::max(last, at);
    }
    return lastUses[v] = last;
  };
  // Where a view itself is read last (through the folded casts that share
  // its handle): its handle is released there.
  std::function<int64_t(Value)> lastDirectUse = [&](Value v) -> int64_t {
    if (auto known = lastDirectUses.find(v); known != lastDirectUses.end())
      return known->second;
    int64_t last = -1;
    for (Operation *user : v.getUsers()) {
      auto cast = dyn_cast<amp::CastOp>(user);
      last = std::max(last, cast && foldedInto.count(cast.getResult())
                                ? lastDirectUse(cast.getResult())
                                : runsAt(user));
    }
    return lastDirectUses[v] = last;
  };

  // The new function, built beside the old one.
  b.setInsertionPoint(func);
  std::string name = func.getName().str();
  baseName = name;
  func.setName(name + "__amp_tensor_form");
  auto lowered = func::FuncOp::create(
      b, func.getLoc(), name, b.getFunctionType({ptr, ptr, ptr}, {i32}));
  Block *entry = lowered.addEntryBlock();
  b.setInsertionPointToStart(entry);
  RuntimeLoweringBuilder lowering(module, b, entry->getArgument(0));
  lowering.setInPlaceElementwise(inPlace);
  Value ctx = lowering.context();
  Value args = entry->getArgument(1), results = entry->getArgument(2);
  Location loc = func.getLoc();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    lowering.setHandle(arg, LLVM::LoadOp::create(b, loc, ptr, slot));
  }

  index = 0;
  for (Operation &op : body) {
    unsigned here = index++;
    if (&op == ret.getOperation())
      break;
    if (op.getNumResults() == 1 && foldedInto.count(op.getResult(0))) {
      lowering.setHandle(op.getResult(0),
                         lowering.handle(foldedInto.lookup(op.getResult(0))));
      continue;
    }
    if (checkedBy.count(&op) || runsWith.count(&op) || chainedInto.count(&op))
      continue; // runs with its check, its product's epilogue or its chain
    auto fused = unscalesOf.find(&op);
    auto epilogue = epilogueAt.find(&op);
    auto chain = chainAt.find(&op);
    // What this op (and the unscales or product it runs) uses for the last
    // time, and its unused results: freed after it. The results inside a
    // fused epilogue are never made, but for an activation's input that is
    // read later (its `pre`).
    SmallVector<Value> reads;
    if (epilogue != epilogueAt.end()) {
      Operation *product = epilogue->second.product;
      reads.append(product->operand_begin(), product->operand_end());
      if (epilogue->second.biasAdd)
        reads.push_back(epilogue->second.biasAdd.getB());
    } else if (chain != chainAt.end()) {
      reads.append(chain->second.inputs);
    } else {
      reads.append(op.operand_begin(), op.operand_end());
    }
    if (fused != unscalesOf.end())
      for (amp::UnscaleOp unscale : fused->second)
        reads.append(unscale->operand_begin(), unscale->operand_end());
    llvm::SmallSetVector<Value, 8> dying;
    for (Value v : llvm::map_range(reads, storage))
      if (lastUse(v) == here && !isa<BlockArgument>(v) && !returned.contains(v))
        dying.insert(v);
    lowering.setDying(dying.getArrayRef());
    if (fused != unscalesOf.end()) {
      lowerUnscalesAndCheck(lowering, cast<amp::AllFiniteOp>(op),
                            fused->second);
    } else if (epilogue != epilogueAt.end()) {
      lowerEpilogue(lowering, epilogue->second);
    } else if (chain != chainAt.end()) {
      lowerChain(lowering, chain->second);
    } else if (op.getNumResults() == 1 && viewOf.count(op.getResult(0))) {
      auto reshape = cast<tg::ReshapeOp>(op);
      auto type = cast<RankedTensorType>(reshape.getType());
      lowering.setLoc(op.getLoc());
      lowering.setHandle(reshape.getResult(),
                         lowering.call(AMPRT_ENTRY(amprt_tensor_view), ctx,
                                       lowering.handle(reshape.getX()),
                                       lowering.constI32(type.getRank()),
                                       lowering.i64Array(type.getShape())));
    } else if (failed(lowerOp(lowering, &op))) {
      return failure();
    }
    // A rule of another dialect may forget a result: say so here rather
    // than build a call on a null handle.
    for (Value r : op.getResults())
      if (!lowering.handle(r))
        return op.emitError()
               << "amp-lower-to-runtime: the runtime lowering of '"
               << op.getName() << "' gave result #"
               << cast<OpResult>(r).getResultNumber()
               << " no tensor (a lowering must call newResults)";
    lowering.setLoc(op.getLoc());
    for (Value r : op.getResults())
      if (r.use_empty() && !returned.contains(r))
        dying.insert(r);
    for (Value v : dying)
      if (!lowering.tookStorageOf(v))
        lowering.call(AMPRT_ENTRY(amprt_tensor_release), lowering.handle(v));
    // Views read for the last time: only the view goes (an unused one went
    // with the unused results above).
    llvm::SmallSetVector<Value, 4> views;
    for (Value v : llvm::map_range(reads, sharedHandle))
      if (viewOf.count(v) && lastDirectUse(v) == here)
        views.insert(v);
    for (Value v : views)
      lowering.call(AMPRT_ENTRY(amprt_tensor_release), lowering.handle(v));
  }

  // Results: new handles owned by the caller. A returned argument, or a
  // value returned twice, gets a copy so every result can be released.
  loc = ret.getLoc();
  lowering.setLoc(loc);
  llvm::DenseSet<Value> stored;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    Value result = lowering.handle(v);
    if (isa<BlockArgument>(v) || !stored.insert(v).second) {
      Value copy = lowering.newTensor(v.getType());
      lowering.callChecked(AMPRT_ENTRY(amprt_reshape), ctx, result, copy);
      result = copy;
    }
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, results,
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    LLVM::StoreOp::create(b, loc, result, slot);
  }
  Value status = lowering.call(AMPRT_ENTRY(amprt_context_status), ctx);
  func::ReturnOp::create(b, loc, status);
  func.erase();
  numInPlaceResults = lowering.numInPlaceResults();
  return success();
}

struct LowerToRuntimePass
    : amp::impl::LowerToRuntimePassBase<LowerToRuntimePass> {
  using LowerToRuntimePassBase::LowerToRuntimePassBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    LowerToRuntimePassBase::getDependentDialects(registry);
    amp::registerTGToRuntimeLowerings(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // One module is one JIT unit: nested modules are refused, not skipped.
    for (auto nested : module.getOps<ModuleOp>()) {
      nested.emitError("amp-lower-to-runtime: nested module")
          << (nested.getSymName() ? " @" + nested.getSymName()->str() : "")
          << ": lower each module on its own";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>()) {
      // The runtime's C API and its C wrappers own these names.
      StringRef name = func.getSymName();
      if (name.starts_with("amprt_") || name.starts_with("_mlir_ciface_")) {
        func.emitError("amp-lower-to-runtime: function @")
            << name
            << " takes a name the runtime's C API uses (amprt_*, "
               "_mlir_ciface_*): rename it";
        return signalPassFailure();
      }
      if (!func.isExternal())
        funcs.push_back(func);
    }
    for (func::FuncOp func : funcs) {
      FunctionLowering lowering(module, func, foldCastsIntoProducts,
                                foldCastsIntoBiasGrads, inPlaceElementwise,
                                reshapeViews, fuseBiasEpilogues,
                                fuseActivationEpilogues, fuseElementwiseChains);
      if (failed(lowering.run()))
        return signalPassFailure();
      numFoldedCasts += lowering.numFoldedCasts;
      numFusedChecks += lowering.numFusedChecks;
      numInPlaceResults += lowering.numInPlaceResults;
      numReshapeViews += lowering.numReshapeViews;
      numFusedBiases += lowering.numFusedBiases;
      numFusedActivations += lowering.numFusedActivations;
      numChains += lowering.numChains;
      numChainedOps += lowering.numChainedOps;
    }
  }
};

} // namespace

void amp::buildLowerToLLVMPipeline(OpPassManager &pm) {
  // No options: nothing to parse, nothing to fail.
  (void)buildLowerToLLVMPipeline(pm, "",
                                 [](const Twine &) { return failure(); });
}

LogicalResult amp::buildLowerToLLVMPipeline(
    OpPassManager &pm, StringRef lowerToRuntimeOptions,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::unique_ptr<Pass> lower = createLowerToRuntimePass();
  if (failed(lower->initializeOptions(lowerToRuntimeOptions, errorHandler)))
    return failure();
  pm.addPass(std::move(lower));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}
