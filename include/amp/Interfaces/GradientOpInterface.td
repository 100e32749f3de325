//===- GradientOpInterface.td - How an op is differentiated -*- tablegen -*-===//
//
// The op interface through which any op, of any dialect, gives
// --tg-autodiff its reverse-mode rule: from the adjoints of its results,
// emit the backward ops and add the adjoints of its operands. The tg and amp
// ops get theirs as external models (amp::tg::registerGradientRules); a
// downstream dialect attaches its own the same way, as it does for
// PrecisionPolicyOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_GRADIENTOPINTERFACE_TD
#define AMP_INTERFACES_GRADIENTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::amp";
  let description = [{
    Gives an op its reverse-mode rule for `--tg-autodiff`. The pass visits
    the ops between a `tg.gradients` loss and its `wrt` values in reverse
    order and calls `emitGradient` on each with an `amp::GradientBuilder`
    (`amp/Dialect/TG/Transforms/GradientBuilder.h`) whose insertion point and
    location are set for the op: `adjoint(result)` is the gradient flowing
    into a result (null when none does), `accumulate(operand, g)` adds to an
    operand's gradient, `isActive(operand)` says whether the operand needs
    one, and `accumulateUnbroadcast` undoes NumPy broadcasting. A rule that
    cannot differentiate its op emits an error naming it and fails.

    Ops without the interface are refused by the pass, except constants
    (`ConstantLike`), which carry no gradient.
  }];
  let methods = [
    InterfaceMethod<
      "Emits the backward ops of this op and accumulates the adjoints of "
      "its operands.",
      "::llvm::LogicalResult", "emitGradient",
      (ins "::amp::GradientBuilder &":$gradients)>,
  ];
}

#endif // AMP_INTERFACES_GRADIENTOPINTERFACE_TD
