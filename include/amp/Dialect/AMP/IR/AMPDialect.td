//===- AMPDialect.td - The precision dialect ---------------*- tablegen -*-===//
//
// Declares `amp`: casts between float types and the loss-scaling ops that
// the mixed-precision passes insert.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPDIALECT_TD
#define AMP_DIALECT_AMP_IR_AMPDIALECT_TD

include "amp/Interfaces/PrecisionPolicyTrait.td"
include "mlir/IR/OpBase.td"

def AMP_Dialect : Dialect {
  let name = "amp";
  let cppNamespace = "::amp";
  let summary = "Precision ops: casts and loss scaling";
  let description = [{
    The `amp` dialect holds what `--amp-auto-mixed-precision` and
    `--amp-loss-scaling` insert into a training graph: `amp.cast` between
    float types, and the loss-scaling ops (`amp.scale`, `amp.unscale`,
    `amp.all_finite`, `amp.update_scale`) that implement static and dynamic
    loss scaling inside the graph, with no host synchronisation.

    The dialect also owns the discardable attributes `amp.precision`
    (`"f32"`, `"f16"` or `"bf16"`: forces an op's precision) and `amp.color`
    (`"allow"`, `"infer"`, `"clear"` or `"deny"`: written by the pass when
    asked to annotate), and `amp.tensor_core_padded` (a dictionary from a
    Tensor Core dimension's name to the size it had, each > 0: written by
    `--amp-pad-for-tensor-cores` on the contraction it rebuilt). All are
    verified wherever they appear. On function
    results, `amp.probe` (a dictionary: `kind` = `"result"`, `"arithmetic"`,
    `"input"` or `"gradient"`, the probe's `id`, and the probed `op`, `loc`, `index` and
    `precision`) says what a result written by `--amp-validation-probes`
    measures. On a function, `amp.micro_batches` (an integer >= 2, set by
    `--amp-accumulate-gradients`) says how many micro-batches, each with
    its own `tg.grad_seed`, one optimizer step averages.
  }];
  // Inherent attributes live in the attribute dictionary: the generic form
  // `"op"(...) {attr = ...}` is part of the interface contract, and type
  // inference reads attributes while the parser still holds them there.
  let usePropertiesForAttributes = 0;
  let hasConstantMaterializer = 1;
  // Folded constants materialize as arith.constant.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = !strconcat([{
    static constexpr ::llvm::StringLiteral kPrecisionAttrName = "amp.precision";
    static constexpr ::llvm::StringLiteral kColorAttrName = "amp.color";
    static constexpr ::llvm::StringLiteral kProbeAttrName = "amp.probe";
    static constexpr ::llvm::StringLiteral kTensorCorePaddedAttrName =
        "amp.tensor_core_padded";
    static constexpr ::llvm::StringLiteral kMicroBatchesAttrName =
        "amp.micro_batches";
  }],
      AMP_DialectDeclarations.addOperationsWithPrecision);
}

#endif // AMP_DIALECT_AMP_IR_AMPDIALECT_TD
