//===- Passes.td - Transforms of tg training graphs --------*- tablegen -*-===//
//
// Passes that belong to the tg dialect itself, independent of precision:
// today reverse-mode differentiation. The precision passes live in
// amp/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_TG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TGAutodiffPass : Pass<"tg-autodiff", "::mlir::ModuleOp"> {
  let summary = "Expands tg.gradients into backward ops rooted at one "
                "tg.grad_seed";
  let description = [{
    Reverse-mode differentiation of training steps written forward-only.
    Each `tg.gradients(%loss, %wrt...)` becomes a `tg.grad_seed` of the
    loss followed by the backward ops of every forward op on a path from a
    `wrt` value to the loss, in reverse order, using tg's dedicated backward
    ops (`tg.relu_grad`, `tg.conv2d_backward_input`/`_filter`,
    `tg.softmax_cross_entropy_grad`, `tg.batch_norm_grad`,
    `tg.bias_add_grad`, ...). Gradients of values used several times are
    summed; broadcasts are undone with reductions, and with
    `tg.bias_add_grad` where the pattern is a bias, so mixed-precision spans
    stay unbroken.

    Values off the path get no backward ops, non-differentiable inputs
    (labels, indices, predicates) none either. A `wrt` value the loss does
    not depend on gets zeros and a warning. An op on the path without a
    gradient rule is an error that names it.

    Each op's rule is its `amp::GradientOpInterface`: the tg ops and
    `amp.cast` have theirs (`amp::tg::registerGradientRules`, which the pass
    registers itself); another dialect's op joins by attaching the interface
    as an external model.

    ```mlir
    %dw = tg.gradients %loss wrt %w : tensor<f32>, tensor<784x128xf32>
    ```
  }];
  let dependentDialects = ["::amp::tg::TGDialect", "::amp::AMPDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // AMP_DIALECT_TG_TRANSFORMS_PASSES_TD
