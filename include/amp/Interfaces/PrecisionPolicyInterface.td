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
        The op's list under the active policy. Ops whose class depends on
        the ops in their regions (a `linalg.generic` is as dangerous as the
        worst op of its body) ask `classOf` for those ops, so user lists
        reach into bodies too. `std::nullopt` leaves the op out of the
        colouring: it keeps f32 like an op no list names. By default the
        class of `getPrecisionClass`.
      }],
      "::std::optional<::amp::PrecisionClass>", "getPrecisionClassUnder",
      (ins "::mlir::FloatType":$lowType, "::amp::OpClassFn":$classOf), [{}],
      /*defaultImplementation=*/[{
        return ::llvm::cast<::amp::PrecisionPolicyOpInterface>(
                   $_op.getOperation())
            .getPrecisionClass(lowType);
      }]>,
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
        True when precision result `index` keeps its f32 type when the op
        computes in low precision, because the op accumulates into it in
        f32 (a linalg contraction with an f32 init, `tosa.matmul` with an
        f32 output). The result still takes part in the colouring: users
        that compute in low precision get one cast right after the op,
        users that stay f32 get none.
      }],
      "bool", "keepsResultWide", (ins "unsigned":$index), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<[{
        True when the op can compute in `lowType`. By default: when every
        float value of the op is a ranked tensor, the only values the pass
        retypes (a scalar, unranked tensor, vector or memref of floats would
        keep f32 beside low-precision tensors the op ties it to).
      }],
      "bool", "supportsPrecision", (ins "::mlir::FloatType":$lowType), [{}],
      /*defaultImplementation=*/[{
        return ::amp::hasOnlyRankedFloatTensors($_op.getOperation());
      }]>,
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
