//===- PrecisionPolicyInterface.td - How an op joins AMP ---*- tablegen -*-===//
//
// The op interface through which any op, of any dialect, takes part in
// --amp-auto-mixed-precision: its list (allow/infer/clear/deny), which of
// its values are float data that may change precision, whether it can run
// in a given low-precision type, and how to finish its conversion.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_PRECISIONPOLICYINTERFACE_TD
#define AMP_INTERFACES_PRECISIONPOLICYINTERFACE_TD

include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def AMP_PrecisionClass : I32EnumAttr<"PrecisionClass",
    "the list an op belongs to in the mixed-precision policy", [
      I32EnumAttrCase<"Allow", 0, "allow">,
      I32EnumAttrCase<"Infer", 1, "infer">,
      I32EnumAttrCase<"Clear", 2, "clear">,
      I32EnumAttrCase<"Deny", 3, "deny">
    ]> {
  let cppNamespace = "::amp";
  let genSpecializedAttr = 0;
}

def PrecisionPolicyOpInterface : OpInterface<"PrecisionPolicyOpInterface"> {
  let cppNamespace = "::amp";
  let description = [{
    Lets an op take part in automatic mixed precision. `tg` and `amp` ops
    implement it; external models attach it to upstream ops (`arith`,
    `math`, `linalg`, `tensor`, `func.call`), and a downstream compiler
    attaches it to its own ops the same way. User lists
    (`--amp-auto-mixed-precision allow=...`) override `getPrecisionClass`.

    The classes follow TensorFlow's auto-mixed-precision lists:
    - `allow`: worth running in low precision (Tensor Core contractions);
    - `infer`: numerically safe in low precision, but only worth it between
      allow ops;
    - `clear`: precision-agnostic (data movement, max, relu...); follows its
      neighbours;
    - `deny`: numerically dangerous in low precision (exp, reductions,
      losses, optimizer updates); its f32 spreads forward through infer and
      clear ops.
  }];

  let methods = [
    InterfaceMethod<[{
        The op's list when the graph moves to `lowType` (f16 or bf16).
      }],
      "::amp::PrecisionClass", "getPrecisionClass",
      (ins "::mlir::FloatType":$lowType)>,
    InterfaceMethod<[{
        True when operand `index` is float data whose precision follows the
        op's (labels, indices, predicates, norm statistics and optimizer
        state are not).
      }],
      "bool", "isPrecisionOperand", (ins "unsigned":$index), [{}],
      /*defaultImplementation=*/[{
        return ::amp::isFloatTensor($_op->getOperand(index).getType());
      }]>,
    InterfaceMethod<[{
        True when result `index` is float data whose precision follows the
        op's.
      }],
      "bool", "isPrecisionResult", (ins "unsigned":$index), [{}],
      /*defaultImplementation=*/[{
        return ::amp::isFloatTensor($_op->getResult(index).getType());
      }]>,
    InterfaceMethod<[{
        True when the op can compute in `lowType`.
      }],
      "bool", "supportsPrecision", (ins "::mlir::FloatType":$lowType), [{}],
      /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<[{
        Finishes converting the op to `lowType`. The pass calls it after it
        has given every precision operand and result its low-precision type
        in place; ops whose regions or attributes depend on those types
        (a linalg body, say) update them here. Returning failure aborts the
        pass with the op's diagnostic.
      }],
      "::llvm::LogicalResult", "convertToPrecision",
      (ins "::mlir::RewriterBase &":$rewriter, "::mlir::FloatType":$lowType),
      [{}], /*defaultImplementation=*/[{ return ::mlir::success(); }]>,
  ];
}

#endif // AMP_INTERFACES_PRECISIONPOLICYINTERFACE_TD
