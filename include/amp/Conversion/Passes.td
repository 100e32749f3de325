//===- Passes.td - Lowering amp to its runtime -------------*- tablegen -*-===//

#ifndef AMP_CONVERSION_PASSES_TD
#define AMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

// The fusions' options: --amp-fuse-for-runtime's, and --amp-lower-to-runtime's
// for the fusions it makes first. amp::WithRuntimeFusionOptions reads them
// into amp::RuntimeFusionOptions, field by field in this order.
defvar RuntimeFusionOptions = [
  Option<"foldCastsIntoProducts", "fold-casts-into-products", "bool",
         /*default=*/"true",
         "Let products round their f32 operands instead of lowering the "
         "f32 -> f16 casts that only feed them">,
  Option<"foldCastsIntoBiasGrads", "fold-casts-into-bias-grads", "bool",
         /*default=*/"true",
         "Let bias gradients sum 16-bit tensors into f32 instead of "
         "lowering the 16-bit -> f32 casts that only feed them">,
  Option<"reshapeViews", "reshape-views", "bool", /*default=*/"true",
         "Let reshapes whose result is not returned view their input's "
         "storage instead of copying it">,
  Option<"fuseUnscaleChecks", "fuse-unscale-checks", "bool",
         /*default=*/"true",
         "Unscale gradients and test them for inf/NaN in one pass where an "
         "amp.all_finite reads only amp.unscale results">,
  Option<"fuseAttention", "fuse-attention", "bool", /*default=*/"true",
         "Run q k^T, its softmax along the keys and the product with v as "
         "one amprt.attention, and autodiff's five ops for their gradient "
         "as one amprt.attention_grad, when nothing else reads the scores "
         "or probabilities">,
  Option<"attentionMinKeys", "attention-min-keys", "int64_t",
         /*default=*/"128",
         "Fuse an attention that is not causal only where its heads have at "
         "least this many keys (shorter heads' scores are small and their "
         "unfused products faster on the CPU); causal attention is fused at "
         "any length">,
  Option<"stridedProducts", "strided-products", "bool", /*default=*/"true",
         "Let batched products read transposed (reshaped, sliced) operands "
         "and write a transposed result in place instead of copying them">,
  Option<"fuseBiasEpilogues", "fuse-bias-epilogues", "bool",
         /*default=*/"true",
         "Add the bias of a tg.bias_add that is a product's or forward "
         "convolution's only reader in that product's epilogue">,
  Option<"fuseActivationEpilogues", "fuse-activation-epilogues", "bool",
         /*default=*/"true",
         "Apply a tg activation that reads a product (or its fused bias "
         "add) in that product's epilogue">,
  Option<"fuseElementwiseChains", "fuse-elementwise-chains", "bool",
         /*default=*/"true",
         "Run trees of elementwise ops whose intermediates have one "
         "reader as one amprt_elementwise_chain pass">,
];

def FuseForRuntimePass : Pass<"amp-fuse-for-runtime", "::mlir::func::FuncOp"> {
  let summary = "Rewrites what a step runs together into amprt ops";
  let description = [{
    Turns the tg and amp ops that the runtime runs in one call, or without
    a tensor of their own, into the `amprt` op that says so; each amprt
    op's verifier holds what its runtime entry can run.
    `--amp-lower-to-runtime` makes the same fusions first, with the same
    options; this pass shows them, and the pattern sets behind it
    (`amp/Conversion/RuntimeFusion.h`, each with a control function) let a
    compiler that embeds amp make its own choice. The function must be one
    block; each family below is offered every op once, in block order,
    and no dead op is erased.

    An `amp.cast` from f32 to f16 whose every user is an operand of
    `tg.matmul` or `tg.batch_matmul` (or the matmul of an
    `amprt.product_epilogue`) becomes an `amprt.cast_on_read`, which makes
    no tensor: the products take the f32 tensor and round it to f16 as they
    stage it (`amprt_matmul`'s rounded operands: the same bits as the
    cast), which saves the CPU a write and a read of every weight per step.
    `fold-casts-into-products=0` leaves these casts as written.

    Likewise an `amp.cast` from f16 or bf16 to f32 whose every user is a
    `tg.bias_add_grad` (the policy keeps that reduction in f32) becomes an
    `amprt.cast_on_read`: the bias gradient sums the 16-bit tensor into its
    f32 result (`amprt_bias_add_grad`, the same bits), which saves a
    widened copy of every biased layer's gradient per step.
    `fold-casts-into-bias-grads=0` leaves these casts as written.

    An `amp.all_finite` whose operands are all `amp.unscale` results (one
    scale, f16, bf16 or f32 gradients into f32) that nothing reads before
    it becomes, with those unscales, one `amprt.unscale_all_finite`: each
    gradient is read once, unscaled and tested, instead of unscaled and
    then read again for the test (same bits). `fuse-unscale-checks=0`
    leaves them as written.

    A `tg.reshape` whose result is not returned becomes an `amprt.view`,
    which makes no copy: its result is a view of its input's storage
    (`amprt_tensor_view`), and that storage lives until the view's last
    use; only an op where the storage dies (so no view of it is read
    later) writes over it. `reshape-views=0` leaves every `tg.reshape`
    (which the lowering then copies or, where the input dies at it, moves).

    Attention, `tg.batch_matmul(q, k) {transpose_b}` read only by a
    `tg.softmax` along the keys (causal or not) whose result is read by
    `tg.batch_matmul(p, v)` and by nothing else but the gradient autodiff
    writes for it (`dp = batch_matmul(grad_o, v) {transpose_b}`,
    `grad_v = batch_matmul(p, grad_o) {transpose_a}`,
    `ds = tg.softmax_grad(dp, p)`, `grad_q = batch_matmul(ds, k)`,
    `grad_k = batch_matmul(ds, q) {transpose_a}`, none of whose
    intermediates is read elsewhere), becomes an `amprt.attention` at the
    second product's place and, with its gradient, an
    `amprt.attention_grad` before the first of those five: `amprt_attention`
    and `amprt_attention_grad`, over views of the tensors q, k, v and
    grad_o start from (as the strided products below), each result written
    where a `tg.transpose` that alone reads it wants it. The probabilities
    are never stored: the CPU computes each head's scores, softmax and
    products in cache, and its backward recomputes them from q, k and v.
    The scores and probabilities are f32 throughout (the unfused ops round
    them to the operands' type), so a 16-bit step's values differ from the
    unfused ops' within that rounding. A constant one-element `tg.mul` of
    the scores before the softmax (softmax(c q k^T), with the `tg.mul` of
    ds by c autodiff writes before grad_q and grad_k) or of q before its
    product (with autodiff's `tg.mul` of grad_q by c) becomes the ops'
    `scale`, the multiplications and the transposes only they read gone;
    where q's gradient is not scaled that way, q's scaling stays and the
    ops read its result. `fuse-attention=0` leaves them as written.

    A `tg.batch_matmul` whose operands are `tg.transpose`s (of reshapes
    or views, of `tg.slice`s) of tensors, or whose result only a
    `tg.transpose` reads, becomes an `amprt.strided_batch_matmul` over views
    of those tensors, the call `amprt_batch_matmul_strided`: attention's
    heads are read where the q/k/v projection wrote them and written where
    the output projection reads them, and the transposes and slices that
    nothing reads any more are erased (a layer of the GPT model had eight
    transposes and three slices). The values are the product's on those
    elements (on the CPU, oneDNN's kernel for the strides).
    `strided-products=0` leaves them as written.

    A `tg.matmul`, or a forward `tg.conv2d`, read only by a `tg.bias_add`
    on its channels (the conv's layout) runs with it as one
    `amprt.product_epilogue` at the bias add's place, the call
    `amprt_matmul_bias` / `amprt_conv2d_bias`: the bias is added in the
    pass that rounds a staged 16-bit result, and in a pass of its own after
    oneDNN, cuBLAS or cuDNN, with the values of the two ops bit for bit on
    every CPU (a 16-bit product is rounded before the bias is added).
    `fuse-bias-epilogues=0` leaves them apart.

    An activation (an op whose lowering names one of the runtime's epilogue
    activations: `tg.relu`, `tg.gelu`, `tg.tanh`, `tg.sigmoid`, `tg.silu`,
    `tg.leaky_relu`) that reads such a product, or its bias add, joins the
    same op at the activation's place, the call `amprt_matmul_bias_act` /
    `amprt_conv2d_bias_act`, when nothing else reads its input before it:
    the activation is applied while a staged 16-bit block is still in the
    thread's f32 staging (a pass of its own after oneDNN's kernels), with
    the values of the separate ops. When other ops read the activation's
    input later (gelu's gradient reads it), the op yields it too (the
    call's `pre` tensor); relu's gradient reads relu's output, so a relu
    needs none. `fuse-activation-epilogues=0` leaves the activation apart.

    Elementwise ops (tg's unary arithmetic and activations, its binary
    arithmetic on operands of the result's type, and any op whose lowering
    names its elementwise function) whose intermediate results each have
    one reader, another of them, run as one `amprt.elementwise_chain` at
    the last one's place (up to 16 ops over 8 inputs), the call
    `amprt_elementwise_chain`: one pass that reads each input once and
    writes only the last result, every intermediate rounded to its type as
    its own op stores it, so the values are those of the ops one by one
    (torch-mlir's decomposed GELU, five ops, is one pass). A tree past 8
    inputs is no chain; the trees below its root are.
    `fuse-elementwise-chains=0` leaves them one by one.
  }];
  let options = RuntimeFusionOptions;
  let dependentDialects = ["::amp::rt::AMPRTDialect"];
}

def LowerToRuntimePass : Pass<"amp-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lowers tg and amp ops on tensors to calls of the amprt C API";
  let description = [{
    Rewrites every function of tg/amp ops into a function over runtime
    tensor handles:

    ```mlir
    func.func @step(%ctx: !llvm.ptr, %args: !llvm.ptr, %results: !llvm.ptr) -> i32
    ```

    `%args` points to one `amprt_tensor *` per original argument, in order;
    the step stores one new `amprt_tensor *` per original result into
    `%results` (the caller owns and releases them) and returns the first
    failed status of the run (0 on success). Every op becomes
    `amprt_tensor_new` for its results and a call of its `amprt_` entry with
    its attributes as arguments; each intermediate tensor is released right
    after its last use. Constants become tensors filled once per call (a
    splat) or copied from an LLVM global.

    First it makes `--amp-fuse-for-runtime`'s fusions, with the options of
    the same names: casts that their readers make as they read, unscales
    tested as they are made, reshapes that view their input, products with
    their bias and activation, and elementwise chains (see that pass). Each
    `amprt` op is then one call, or none, and its results are freed after
    the last read of any value that shares their storage (a cast on read
    and its input, a view and what it views; each value's last reader from
    `mlir::Liveness`). A step that already holds amprt ops is lowered as
    it is.

    The lowering itself is a dialect conversion with the tensor type
    converted to `!llvm.ptr`: patterns for the step function, its return,
    tensor constants, casts on read and every op with a
    `RuntimeLoweringOpInterface`. What each op frees is planned on the
    fused tensor form before conversion starts, and ops are not folded on
    the way (the plan holds for the ops as they are). An op with no
    lowering is refused before conversion, with its name; a lowering rule
    that fails reports its own error, once.

    An elementwise op (tg's unary and broadcasting binary arithmetic, the
    activation gradients, `tg.bias_add`) whose operand of the result's type
    dies at it writes its result over that operand: no new tensor, and the
    kernel's output lands in cache lines its input brought in. A step
    argument or a returned value is never overwritten.
    `in-place-elementwise=0` gives every result a new tensor.

    The result uses `func`, `arith` and `llvm` ops only, ready for
    `--convert-to-llvm --reconcile-unrealized-casts`.
  }];
  let options = !listconcat(RuntimeFusionOptions, [
    Option<"inPlaceElementwise", "in-place-elementwise", "bool",
           /*default=*/"true",
           "Let elementwise ops write their result over an operand of the "
           "same type that dies at them">,
  ]);
  let statistics = [
    Statistic<"numFoldedCasts", "folded-casts",
              "Casts folded into the products or bias gradients that use "
              "them">,
    Statistic<"numFusedChecks", "fused-finite-checks",
              "amp.all_finite ops run with the unscales they test">,
    Statistic<"numInPlaceResults", "in-place-results",
              "Elementwise results written over a dying operand">,
    Statistic<"numReshapeViews", "reshape-views",
              "Reshapes lowered as views of their input's storage">,
    Statistic<"numFusedBiases", "fused-bias-epilogues",
              "tg.bias_add ops run in their product's or convolution's "
              "epilogue">,
    Statistic<"numFusedActivations", "fused-activation-epilogues",
              "tg activations applied in their product's or convolution's "
              "epilogue">,
    Statistic<"numChains", "elementwise-chains",
              "amprt_elementwise_chain calls">,
    Statistic<"numChainedOps", "chained-elementwise-ops",
              "Elementwise ops run inside amprt_elementwise_chain calls">,
  ];
  let dependentDialects = ["::amp::rt::AMPRTDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // AMP_CONVERSION_PASSES_TD
