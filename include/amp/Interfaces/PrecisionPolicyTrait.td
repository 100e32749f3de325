//===- PrecisionPolicyTrait.td - An op's list in ODS -------*- tablegen -*-===//
//
// An op declares how it takes part in --amp-auto-mixed-precision next to
// its definition, as one trait:
//
//   def TG_ExpOp : TG_UnaryOp<"exp", "exp(x)", [AMP_Deny]>;
//
// The dialect then attaches PrecisionPolicyOpInterface to every op of its
// GET_OP_LIST that carries the trait (amp::attachDeclaredPrecisionModels),
// so the op's definition is the only place its list is written.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_PRECISIONPOLICYTRAIT_TD
#define AMP_INTERFACES_PRECISIONPOLICYTRAIT_TD

include "mlir/IR/OpBase.td"

// The op's list for f16 (`Allow`, `Infer`, `Clear` or `Deny`); whether bf16,
// with f32's range, relaxes it to infer; whether it can compute in a
// 16-bit type at all; and the operand and result indices that are not
// precision data (norm statistics, affine parameters), which keep their
// type.
class AMP_Precision<string f16Class, bit inferForBF16 = 0,
                    bit supportsLow = 1, list<int> fixedOperands = [],
                    list<int> fixedResults = []>
    : ParamNativeOpTrait<"DeclaredPrecision",
        "::amp::PrecisionClass::" # f16Class
        # ", " # !if(inferForBF16, "true", "false")
        # ", " # !if(supportsLow, "true", "false")
        # ", " # !foldl(0, fixedOperands, mask, i, !or(mask, !shl(1, i)))
        # "u, " # !foldl(0, fixedResults, mask, i, !or(mask, !shl(1, i)))
        # "u"> {
  let cppNamespace = "::amp";
}

// The four lists with every float tensor following the op's precision.
def AMP_Allow : AMP_Precision<"Allow">;
def AMP_Infer : AMP_Precision<"Infer">;
def AMP_Clear : AMP_Precision<"Clear">;
def AMP_Deny : AMP_Precision<"Deny">;
// Deny for f16, infer for bf16: sums whose danger is f16's range.
def AMP_DenyForF16 : AMP_Precision<"Deny", /*inferForBF16=*/1>;
// Computes in f32 only: optimizer updates, loss scaling, collectives.
def AMP_F32Only : AMP_Precision<"Deny", 0, /*supportsLow=*/0>;

// For a dialect's extraClassDeclaration (`!strconcat([{...}],
// AMP_DialectDeclarations.addOperationsWithPrecision)`):
// `addOperationsWithPrecision<GET_OP_LIST>()` in its initialize() adds its
// ops and attaches each declared policy.
def AMP_DialectDeclarations {
  code addOperationsWithPrecision = [{
    /// Adds `Ops` (GET_OP_LIST) and attaches PrecisionPolicyOpInterface to
    /// each op that declares its list with an AMP_Precision trait.
    template <typename... Ops> void addOperationsWithPrecision() {
      addOperations<Ops...>();
      ::amp::attachDeclaredPrecisionModels<Ops...>(getContext());
    }
  }];
}

#endif // AMP_INTERFACES_PRECISIONPOLICYTRAIT_TD
