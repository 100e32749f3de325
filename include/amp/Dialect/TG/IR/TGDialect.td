//===- TGDialect.td - The training-graph dialect -----------*- tablegen -*-===//
//
// Declares `tg`: pure tensor ops for whole training steps (forward, backward
// and optimizer), the input of amp's precision passes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGDIALECT_TD
#define AMP_DIALECT_TG_IR_TGDIALECT_TD

include "amp/Interfaces/PrecisionPolicyTrait.td"
include "mlir/IR/OpBase.td"

def TG_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::amp::tg";
  let summary = "Training graphs: forward, backward and optimizer ops on tensors";
  let description = [{
    The `tg` dialect describes a whole training step as pure operations on
    statically shaped tensors: the forward model, the loss, the backward pass
    (either written out with the dedicated gradient ops or expanded from
    `tg.gradients` by `--tg-autodiff`) and the optimizer update.

    Binary elementwise ops broadcast like NumPy. Attributes use stable kinds
    (`DenseI64ArrayAttr` for integer lists, `i64`, `f64`, `BoolAttr`,
    `StringAttr`) so that the generic form `"tg.op"(...) {attr = ...}` is a
    reliable interchange format.
  }];
  // Inherent attributes live in the attribute dictionary: the generic form
  // `"op"(...) {attr = ...}` is part of the interface contract, and type
  // inference reads attributes while the parser still holds them there.
  let usePropertiesForAttributes = 0;
  let hasConstantMaterializer = 1;
  // `tg.role`, `tg.init` and `tg.init_value` on function arguments and
  // results.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = !strconcat([{
    static constexpr ::llvm::StringLiteral kRoleAttrName = "tg.role";
    static constexpr ::llvm::StringLiteral kInitAttrName = "tg.init";
    /// The first value of a step-state argument (e.g. the loss scale).
    static constexpr ::llvm::StringLiteral kInitValueAttrName =
        "tg.init_value";
  }],
      AMP_DialectDeclarations.addOperationsWithPrecision);
  // Folded constants materialize as arith.constant.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // AMP_DIALECT_TG_IR_TGDIALECT_TD
