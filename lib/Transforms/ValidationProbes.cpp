//===- ValidationProbes.cpp - --amp-validation-probes ---------------------===//
//
// Instruments an f32 step so that one run measures every op that
// --amp-auto-mixed-precision would convert: the op keeps computing in f32
// (its users see exactly the f32 step), and a shadow copy computes the same
// op in low precision from the same f32 operands. amp.numeric_error of the
// two is returned. Because each shadow starts from f32 values, errors do not
// compound along the graph: each op is judged alone, which is what tells a
// user which op to keep in f32.
//
//===----------------------------------------------------------------------===//

#include "Fp8Operands.h"
#include "PrecisionColoring.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace amp {
#define GEN_PASS_DEF_VALIDATIONPROBESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp

using namespace mlir;
using namespace amp;

namespace {

/// A result to append to the function, with what it measures.
struct Probe {
  Value value;
  DictionaryAttr description;
};

std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

struct ValidationProbesPass
    : amp::impl::ValidationProbesPassBase<ValidationProbesPass> {
  using Base::Base;

  /// precision=fp8: the checked fp8-format and fp8-margin.
  Fp8Options fp8Options;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<PrecisionPolicy> policy;
    std::optional<ConstantConverter> constants;
    // The probes quantize with this step's amax (current scaling), so
    // only the format and the margin are theirs to choose.
    if (precision == LowPrecision::FP8) {
      FailureOr<Fp8Options> parsed = parseFp8Options(
          module.getLoc(), "amp-validation-probes", fp8Format,
          Fp8Scaling::Current, /*historyLength=*/1, fp8Margin);
      if (failed(parsed))
        return signalPassFailure();
      fp8Options = *parsed;
    }
    if (ops) {
      PrecisionLists lists =
          PrecisionLists::of(allowOps, inferOps, clearOps, denyOps);
      // An fp8 graph is coloured as a bf16 graph (as the precision pass
      // does); its FP8 operands are added to the shadows below.
      FailureOr<PrecisionPolicy> created = PrecisionPolicy::create(
          &getContext(), module.getLoc(), precision, level, lists, listsFile);
      if (failed(created))
        return signalPassFailure();
      policy = std::move(*created);
      constants.emplace(constantOverflow);
    }

    llvm::StringSet<> wanted;
    for (const std::string &name : functions)
      wanted.insert(name);
    llvm::StringSet<> found;
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      if (!wanted.empty() && !wanted.contains(function.getName()))
        continue;
      found.insert(function.getName());
      if (!users.getUsers(function).empty()) {
        if (!wanted.empty()) {
          function.emitError()
              << "amp-validation-probes: @" << function.getName()
              << " is called, and probes add results to its signature";
          return signalPassFailure();
        }
        continue;
      }
      if (failed(instrument(function, policy ? &*policy : nullptr,
                            constants ? &*constants : nullptr)))
        return signalPassFailure();
    }
    for (const std::string &name : functions)
      if (!found.contains(name)) {
        emitError(module.getLoc())
            << "amp-validation-probes: no function @" << name;
        return signalPassFailure();
      }
  }

  LogicalResult instrument(func::FuncOp function, const PrecisionPolicy *policy,
                           ConstantConverter *constants) {
    Block &entry = function.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret || !function.getBody().hasOneBlock()) {
      emitRemark(function.getLoc())
          << "amp-validation-probes: @" << function.getName()
          << " is not one block ending in func.return; not probed";
      return success();
    }
    llvm::DenseSet<Operation *> backward = backwardOps(function);
    SmallVector<Probe> probes;
    if (policy &&
        failed(probeOps(function, *policy, *constants, backward, probes)))
      return failure();
    if (gradients)
      probeGradients(function, probes);
    if (probes.empty())
      return success();

    // Append the probes to the results, marked as outputs the step runner
    // hands back without carrying.
    MLIRContext *ctx = &getContext();
    SmallVector<Value> operands(ret.getOperands());
    SmallVector<Type> resultTypes(function.getResultTypes());
    SmallVector<Attribute> resultAttrs;
    for (unsigned i = 0; i < function.getNumResults(); ++i)
      resultAttrs.push_back(function.getResultAttrDict(i)
                                ? Attribute(function.getResultAttrDict(i))
                                : DictionaryAttr::get(ctx));
    for (const Probe &probe : probes) {
      operands.push_back(probe.value);
      resultTypes.push_back(probe.value.getType());
      NamedAttribute attrs[] = {
          NamedAttribute(tg::TGDialect::kRoleAttrName,
                         StringAttr::get(ctx, "output")),
          NamedAttribute(AMPDialect::kProbeAttrName, probe.description)};
      resultAttrs.push_back(DictionaryAttr::get(ctx, attrs));
    }
    ret->setOperands(operands);
    function.setType(
        FunctionType::get(ctx, function.getArgumentTypes(), resultTypes));
    function.setAllResultAttrs(resultAttrs);
    numProbes += probes.size();
    return success();
  }

  /// Shadows every op the colouring puts in low precision.
  LogicalResult probeOps(func::FuncOp function, const PrecisionPolicy &policy,
                         ConstantConverter &constants,
                         const llvm::DenseSet<Operation *> &backward,
                         SmallVectorImpl<Probe> &probes) {
    ColoringGraph graph(policy, constants);
    if (failed(graph.build(function)))
      return failure();
    if (!graph.color())
      return success();
    Block &entry = function.getBody().front();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    unsigned nested = 0;
    int64_t id = 0;
    for (const ColorNode &node : graph.getNodes()) {
      if (!node.allow || !node.op)
        continue;
      Operation *op = node.op;
      if (op->getBlock() != &entry) {
        ++nested;
        continue;
      }
      auto describe = [&](StringRef kind, unsigned index, Type fp8 = Type()) {
        SmallVector<NamedAttribute, 9> fields = {
            NamedAttribute("kind", StringAttr::get(ctx, kind)),
            NamedAttribute("id",
                           IntegerAttr::get(IntegerType::get(ctx, 64), id)),
            NamedAttribute("op",
                           StringAttr::get(ctx, op->getName().getStringRef())),
            NamedAttribute("loc",
                           StringAttr::get(ctx, formatLocation(op->getLoc()))),
            NamedAttribute("index",
                           IntegerAttr::get(IntegerType::get(ctx, 64), index)),
            NamedAttribute("precision",
                           StringAttr::get(ctx, typeName(node.target))),
            NamedAttribute(
                "class",
                StringAttr::get(ctx, stringifyPrecisionClass(node.cls))),
            NamedAttribute("backward",
                           BoolAttr::get(ctx, backward.contains(op)))};
        if (fp8)
          fields.push_back(
              NamedAttribute("fp8", StringAttr::get(ctx, typeName(fp8))));
        return DictionaryAttr::get(ctx, fields);
      };
      auto lowered = [&](Type type) {
        return cast<RankedTensorType>(type).clone(node.target);
      };

      // The shadow: the op on its operands cast down, retyped as the
      // precision pass retypes it.
      rewriter.setInsertionPointAfter(op);
      IRMapping mapping;
      SmallVector<std::pair<unsigned, Value>> inputs;
      DenseMap<unsigned, Type> fp8Formats;
      bool fp8 = precision == LowPrecision::FP8 && node.cls == PrecisionClass::Allow &&
                 node.target && node.target.isBF16();
      for (OpOperand &use : op->getOpOperands()) {
        unsigned index = use.getOperandNumber();
        if (!ColoringGraph::isPrecisionOperand(node, index) ||
            !isF32Tensor(use.get().getType()) || mapping.contains(use.get()))
          continue;
        Value low = CastOp::create(rewriter, op->getLoc(),
                                   lowered(use.get().getType()), use.get());
        if (fp8) {
          Operation *producer = use.get().getDefiningOp();
          bool gradient = producer && backward.contains(producer);
          Type format = amp::fp8Format(ctx, gradient, fp8Options.hybrid);
          low = quantizeDequantize(rewriter, op->getLoc(), low, format);
          fp8Formats[index] = format;
        }
        mapping.map(use.get(), low);
        inputs.push_back({index, low});
      }
      Operation *shadow = rewriter.clone(*op, mapping);
      shadow->removeAttr(AMPDialect::kPrecisionAttrName);
      shadow->removeAttr(AMPDialect::kColorAttrName);
      for (OpResult result : shadow->getResults())
        if (ColoringGraph::isRetypedResult(node, result.getResultNumber()))
          result.setType(lowered(result.getType()));
      if (auto iface = dyn_cast<PrecisionPolicyOpInterface>(shadow))
        if (failed(iface.convertToPrecision(rewriter, node.target)))
          return failure();
      if (failed(mlir::verify(shadow)))
        return op->emitError()
               << "amp-validation-probes: the " << node.target
               << " copy of this op does not verify; the precision pass "
                  "would fail on it too";

      // The op in f32 on the rounded operands: what the shadow differs from
      // by its own arithmetic alone, apart from what rounding its inputs
      // does to the result.
      IRMapping roundedMapping;
      for (auto [index, low] : inputs)
        roundedMapping.map(op->getOperand(index),
                           CastOp::create(rewriter, op->getLoc(),
                                          op->getOperand(index).getType(),
                                          low));
      Operation *rounded = rewriter.clone(*op, roundedMapping);

      for (OpResult result : shadow->getResults()) {
        unsigned index = result.getResultNumber();
        if (!ColoringGraph::isRetypedResult(node, index))
          continue;
        Value stats = NumericErrorOp::create(rewriter, op->getLoc(),
                                             op->getResult(index), result);
        probes.push_back({stats, describe("result", index)});
        Value arithmetic = NumericErrorOp::create(
            rewriter, op->getLoc(), rounded->getResult(index), result);
        probes.push_back({arithmetic, describe("arithmetic", index)});
      }
      for (auto [index, low] : inputs) {
        Value stats = NumericErrorOp::create(rewriter, op->getLoc(),
                                             op->getOperand(index), low);
        probes.push_back(
            {stats, describe("input", index, fp8Formats.lookup(index))});
      }
      ++numProbedOps;
      ++id;
    }
    if (nested)
      emitRemark(function.getLoc()) << "amp-validation-probes: " << nested
                                    << " op(s) inside loops or branches of @"
                                    << function.getName() << " are not probed";
    return success();
  }

  /// `low` (bf16) through FP8 `format` and back, scaled by its own amax:
  /// what an FP8 operand of the mixed step holds under current scaling.
  Value quantizeDequantize(OpBuilder &builder, Location loc, Value low,
                           Type format) {
    auto scalar = RankedTensorType::get({}, builder.getF32Type());
    Value amax = AmaxOp::create(builder, loc, scalar, low);
    Value scale =
        Fp8ScaleOp::create(builder, loc, scalar, amax, TypeAttr::get(format),
                           builder.getI64IntegerAttr(fp8Margin));
    return amp::quantizeDequantize(builder, loc, low, scale, format);
  }

  /// The sum of squares of the gradient every optimizer op receives.
  void probeGradients(func::FuncOp function, SmallVectorImpl<Probe> &probes) {
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    int64_t id = 0;
    function.walk([&](Operation *op) {
      if (!isa<tg::SgdUpdateOp, tg::MomentumUpdateOp, tg::AdamUpdateOp>(op))
        return;
      Value param = op->getOperand(0), gradient = op->getOperand(1);
      builder.setInsertionPoint(op);
      Location loc = op->getLoc();
      auto type = cast<RankedTensorType>(gradient.getType());
      if (!type.getElementType().isF32())
        gradient = CastOp::create(builder, loc,
                                  type.clone(builder.getF32Type()), gradient);
      Value squares = tg::SquareOp::create(builder, loc, gradient);
      SmallVector<int64_t> dims =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      Value sum = tg::ReduceSumOp::create(builder, loc, squares,
                                          builder.getDenseI64ArrayAttr(dims),
                                          builder.getBoolAttr(false));
      auto arg = dyn_cast<BlockArgument>(param);
      int64_t index = arg && arg.getOwner()->isEntryBlock()
                          ? (int64_t)arg.getArgNumber()
                          : -1;
      NamedAttribute fields[] = {
          NamedAttribute("kind", StringAttr::get(ctx, "gradient")),
          NamedAttribute("id",
                         IntegerAttr::get(IntegerType::get(ctx, 64), id++)),
          NamedAttribute("op",
                         StringAttr::get(ctx, op->getName().getStringRef())),
          NamedAttribute("loc",
                         StringAttr::get(ctx, formatLocation(op->getLoc()))),
          NamedAttribute("index",
                         IntegerAttr::get(IntegerType::get(ctx, 64), index))};
      probes.push_back({sum, DictionaryAttr::get(ctx, fields)});
    });
  }
};

} // namespace
