//===- RuntimeLoweringOpInterface.td - How an op runs -*- tablegen -*-===//
//
// The op interface through which any op, of any dialect, tells
// --amp-lower-to-runtime how it runs: which runtime entry it calls with
// which handles and attributes. The tg and amp ops get theirs as external
// models (amp::registerTGToRuntimeLowerings); a downstream dialect attaches
// its own the same way, as it does for PrecisionPolicyOpInterface and
// GradientOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_TD
#define AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def RuntimeLoweringOpInterface : OpInterface<"RuntimeLoweringOpInterface"> {
  let cppNamespace = "::amp";
  let description = [{
    Gives an op its lowering for `--amp-lower-to-runtime`. The pass converts
    a step function's ops in order (dialect conversion, tensors to
    `amprt_tensor *` handles) and calls `lowerToRuntime` on each op with an
    `amp::RuntimeLoweringBuilder` (`amp/Conversion/RuntimeLoweringBuilder.h`)
    whose insertion point and location are set for the op: `handle(value)`
    is the runtime tensor (`amprt_tensor *`) of an operand, `newResults(op)`
    allocates the op's results, and `callChecked` calls a runtime entry that
    returns a status and records it on the step's context, so the step
    returns the first failure. Entries of `amprt.h` are named with
    `AMPRT_ENTRY(fn)`, which checks the argument count against the C
    declaration when the rule compiles; other C functions (a downstream
    runtime's) are called by name and function type.

    The pass frees every intermediate after its last use and builds the
    step's arguments and results: a rule only allocates its results and
    calls. Ops without the interface are refused with an error naming them,
    except dense tensor constants, which the pass lowers itself.
  }];
  let methods = [
    InterfaceMethod<
      "Allocates this op's results as runtime tensors and emits the runtime "
      "calls that compute them.",
      "::llvm::LogicalResult", "lowerToRuntime",
      (ins "::amp::RuntimeLoweringBuilder &":$lowering)>,
    InterfaceMethod<
      "The runtime's unary or binary elementwise function this op computes "
      "of its operands (`amprt_unary.def`, `amprt_binary.def`), as an "
      "`amprt_elementwise_chain` step; none (the default) for any other op. "
      "An op that names one runs in elementwise chains with its neighbours "
      "when its operands have its result's float type, and, for an "
      "activation, as a product's epilogue; "
      "`amp::lowerElementwiseStep` is then its whole lowering.",
      "std::optional<::amp::ElementwiseStep>", "getElementwiseStep", (ins),
      /*methodBody=*/[{}],
      /*defaultImplementation=*/[{ return std::nullopt; }]>,
  ];
}

#endif // AMP_INTERFACES_RUNTIMELOWERINGOPINTERFACE_TD
