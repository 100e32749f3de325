//===- AMPRTOps.td - Ops that are one runtime call ---------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMPRT_IR_AMPRTOPS_TD
#define AMP_DIALECT_AMPRT_IR_AMPRTOPS_TD

include "amp/Dialect/AMPRT/IR/AMPRTDialect.td"
include "amp/Dialect/TG/IR/TGTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class AMPRT_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMPRT_Dialect, mnemonic, !listconcat([Pure], traits)>;

def AMPRT_CastOnReadOp : AMPRT_Op<"cast_on_read"> {
  let summary = "a cast its readers make as they read";
  let description = [{
    `y` is `x`'s tensor: no tensor of its own is made, and each reader
    converts the elements as it reads them, with the bits `amp.cast` gives.
    Two readers can: a product (`tg.matmul`, `tg.batch_matmul`, or the
    `tg.matmul` of an `amprt.product_epilogue`) rounds f32 operands of a
    f16 product as it stages them (`amprt_matmul`); a `tg.bias_add_grad`
    sums a f16 or bf16 tensor into its f32 result (`amprt_bias_add_grad`).
    The verifier holds every use to one of those, and wants one at least
    (the input lives as long as its readers read).

    ```mlir
    %h = amprt.cast_on_read %w : tensor<784x128xf32> to tensor<784x128xf16>
    %y = tg.matmul %x, %h : tensor<64x784xf16>, tensor<784x128xf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$x);
  let results = (outs AMP_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
}

def AMPRT_ViewOp : AMPRT_Op<"view"> {
  let summary = "a reshape that shares its input's storage";
  let description = [{
    `y` has `x`'s elements in `x`'s order under a new static shape, without
    a copy (`amprt_tensor_view`): `x`'s storage lives until the last read of
    `y`, and no op writes over it while `y` is read later. A step may not
    return a view (the caller owns what it is given); a reshape that is
    returned stays `tg.reshape`.

    ```mlir
    %flat = amprt.view %x : tensor<64x7x7x32xf16> to tensor<64x1568xf16>
    ```
  }];
  let arguments = (ins TG_AnyTensor:$x);
  let results = (outs TG_AnyTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
}

def AMPRT_UnscaleAllFiniteOp : AMPRT_Op<"unscale_all_finite"> {
  let summary = "unscales gradients and tests them in one pass";
  let description = [{
    For each gradient `gs[i]` (f16, bf16 or f32), `unscaled[i] = gs[i] *
    (1 / scale)` in f32, as `amp.unscale` computes it, and `finite` is true
    iff no unscaled element is inf or NaN, as `amp.all_finite` of the
    unscaled values: one read of each gradient
    (`amprt_unscale_all_finite`).

    ```mlir
    %u0, %u1, %ok = amprt.unscale_all_finite %g0, %g1 scale %s
        : (tensor<8xf16>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<i1>)
    ```
  }];
  let arguments = (ins Variadic<AMP_FloatTensor>:$gs, TG_F32Scalar:$scale);
  let results = (outs Variadic<AMP_FloatTensor>:$unscaled,
                      TG_I1Scalar:$finite);
  let assemblyFormat = [{
    $gs `scale` $scale attr-dict `:` functional-type($gs, results)
  }];
  let hasVerifier = 1;
}

def AMPRT_StridedBatchMatmulOp : AMPRT_Op<"strided_batch_matmul"> {
  let summary = "a batched product of strided views, as one call";
  let description = [{
    `c` = `a_view` of `a`'s storage times `b_view` of `b`'s, batched, written
    at `c_view` of `c`'s storage (`amprt_batch_matmul_strided`). A view is
    `{offset, shape..., strides...}` in elements over the tensor's dense
    row-major order: shapes `[batch..., m, k]`, `[batch..., k, n]` and
    `[batch..., m, n]`, rank 3 to 8. The product's values are those of
    `tg.batch_matmul` on the viewed elements; `c_view` names every element
    of `c` once (it is a permutation of `c`'s dimensions).

    `--amp-fuse-for-runtime` makes it from a `tg.batch_matmul` whose
    operands are `tg.transpose`s (of reshapes or `amprt.view`s, of
    `tg.slice`s) or whose result only a `tg.transpose` reads:
    attention's heads, read where the projection wrote them and written
    where the next projection reads them, without the transposes' copies.

    ```mlir
    // q, k of [2, 3, 4, 5] heads laid out [2, 4, 3, 5] in %q4, %k4.
    %s = amprt.strided_batch_matmul %q4 [0, 2, 3, 4, 5, 60, 5, 15, 1],
        %k4 [0, 2, 3, 5, 4, 60, 5, 1, 15] into [0, 2, 3, 4, 4, 48, 16, 4, 1]
        : tensor<2x4x3x5xf32>, tensor<2x4x3x5xf32> -> tensor<2x3x4x4xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$a, DenseI64ArrayAttr:$a_view,
                       AMP_FloatTensor:$b, DenseI64ArrayAttr:$b_view,
                       DenseI64ArrayAttr:$c_view);
  let results = (outs AMP_FloatTensor:$c);
  let assemblyFormat = [{
    $a $a_view `,` $b $b_view `into` $c_view attr-dict `:` type($a) `,`
    type($b) `->` type($c)
  }];
  let hasVerifier = 1;
}

def AMPRT_AttentionOp : AMPRT_Op<"attention"> {
  let summary = "softmax(scale q k^T) v over strided views, as one call";
  let description = [{
    `o` = softmax(`scale` `q` k^T) `v` for each head, the scores and
    probabilities never stored (`amprt_attention`): `q_view`, `k_view`,
    `v_view` and `o_view` are views as `amprt.strided_batch_matmul`'s, of
    shapes `[batch..., tq, d]`, `[batch..., tk, d]`, `[batch..., tk, e]`
    and `[batch..., tq, e]`, rank 3 to 8. With `causal`, query i sees keys
    0 to i (as `tg.softmax {causal}`). `scale` (1 unless given; finite in
    f32) multiplies the f32 scores. `o_view` names every element of `o`
    once. The scores and their softmax are f32; a 16-bit `o` is rounded
    from f32 (the unfused ops round scores and probabilities to the
    operands' type as well).

    `--amp-fuse-for-runtime` makes it from `tg.batch_matmul(q, k)
    {transpose_b}`, `tg.softmax` (causal or not, along the keys) and
    `tg.batch_matmul(p, v)` when the scores and the probabilities have no
    other reader (the backward's readers fused into
    `amprt.attention_grad` first). A constant scalar `tg.mul` of the scores
    before the softmax, or of q before its product, becomes `scale`.

    ```mlir
    %o = amprt.attention %q [0, 2, 3, 4, 5, 60, 20, 5, 1],
        %k [0, 2, 3, 4, 5, 60, 20, 5, 1], %v [0, 2, 3, 4, 5, 60, 20, 5, 1]
        into [0, 2, 3, 4, 5, 60, 5, 15, 1] {causal, scale = 0.447213595}
        : tensor<2x3x4x5xbf16>, tensor<2x3x4x5xbf16>, tensor<2x3x4x5xbf16>
        -> tensor<2x4x3x5xbf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$q, DenseI64ArrayAttr:$q_view,
                       AMP_FloatTensor:$k, DenseI64ArrayAttr:$k_view,
                       AMP_FloatTensor:$v, DenseI64ArrayAttr:$v_view,
                       DenseI64ArrayAttr:$o_view, UnitAttr:$causal,
                       DefaultValuedOptionalAttr<F64Attr, "1.0">:$scale);
  let results = (outs AMP_FloatTensor:$o);
  let assemblyFormat = [{
    $q $q_view `,` $k $k_view `,` $v $v_view `into` $o_view attr-dict `:`
    type($q) `,` type($k) `,` type($v) `->` type($o)
  }];
  let hasVerifier = 1;
}

def AMPRT_AttentionGradOp : AMPRT_Op<"attention_grad"> {
  let summary = "the gradients of amprt.attention, as one call";
  let description = [{
    The gradients of `amprt.attention`'s `o` with respect to `q`, `k` and
    `v` given `grad_o` (`amprt_attention_grad`), each written through its
    view (`grad_q_view` of q's view's shape, and so on; each names every
    element of its result once). Scores and probabilities are recomputed
    from `q`, `k` and `v`, so nothing of the forward but its operands is
    kept; the softmax gradient is f32, times `scale` (the scores' scale, as
    `amprt.attention`'s), so `grad_q` and `grad_k` are q's and k's own
    gradients.

    `--amp-fuse-for-runtime` makes it from what autodiff writes for
    attention: `dp = batch_matmul(grad_o, v) {transpose_b}`,
    `grad_v = batch_matmul(p, grad_o) {transpose_a}`,
    `ds = tg.softmax_grad(dp, p)`, `grad_q = batch_matmul(ds, k)` and
    `grad_k = batch_matmul(ds, q) {transpose_a}`, where `p` is the
    forward's softmax of `batch_matmul(q, k) {transpose_b}` and `v` its
    second product's operand. With the forward's scale, the `tg.mul` of
    `ds` by it (scores scaled) or of `grad_q` by it (q scaled) goes into
    the op as well.

    ```mlir
    %dq, %dk, %dv = amprt.attention_grad %q [0, 2, 3, 4, 5, 60, 20, 5, 1],
        %k [0, 2, 3, 4, 5, 60, 20, 5, 1], %v [0, 2, 3, 4, 5, 60, 20, 5, 1],
        %do [0, 2, 3, 4, 5, 60, 20, 5, 1]
        into [0, 2, 3, 4, 5, 60, 20, 5, 1], [0, 2, 3, 4, 5, 60, 20, 5, 1],
        [0, 2, 3, 4, 5, 60, 20, 5, 1] {causal}
        : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>,
          tensor<2x3x4x5xf32>
        -> tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$q, DenseI64ArrayAttr:$q_view,
                       AMP_FloatTensor:$k, DenseI64ArrayAttr:$k_view,
                       AMP_FloatTensor:$v, DenseI64ArrayAttr:$v_view,
                       AMP_FloatTensor:$grad_o, DenseI64ArrayAttr:$grad_o_view,
                       DenseI64ArrayAttr:$grad_q_view,
                       DenseI64ArrayAttr:$grad_k_view,
                       DenseI64ArrayAttr:$grad_v_view, UnitAttr:$causal,
                       DefaultValuedOptionalAttr<F64Attr, "1.0">:$scale);
  let results = (outs AMP_FloatTensor:$grad_q, AMP_FloatTensor:$grad_k,
                      AMP_FloatTensor:$grad_v);
  let assemblyFormat = [{
    $q $q_view `,` $k $k_view `,` $v $v_view `,` $grad_o $grad_o_view
    `into` $grad_q_view `,` $grad_k_view `,` $grad_v_view attr-dict `:`
    type($q) `,` type($k) `,` type($v) `,` type($grad_o) `->`
    type($grad_q) `,` type($grad_k) `,` type($grad_v)
  }];
  let hasVerifier = 1;
}

def AMPRT_ProductEpilogueOp : AMPRT_Op<"product_epilogue",
    [IsolatedFromAbove, SingleBlock]> {
  let summary = "a product with its bias and activation, as one call";
  let description = [{
    Runs its region, a `tg.matmul` or a forward `tg.conv2d` followed by a
    `tg.bias_add` of it along its channels, an activation of it, or both
    (bias first), as one `amprt_matmul_bias`, `amprt_conv2d_bias`,
    `amprt_matmul_bias_act` or `amprt_conv2d_bias_act` call: the bias and
    the activation are applied in the product's epilogue, with the values
    of the separate ops. The activation is any op whose runtime lowering
    names one of the runtime's epilogue activations
    (`amprt_activation.def`: relu, gelu, tanh, sigmoid, silu, leaky relu),
    whatever its dialect.

    The region's arguments are the product's operands and then the bias.
    It yields the last op's result and, when the activation's input is
    read after the op (gelu's gradient reads it), that input too (the
    call's `pre` tensor).

    ```mlir
    %y = amprt.product_epilogue (%x, %w, %b)
        : (tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf16>) -> tensor<4x3xf16> {
    ^bb0(%a: tensor<4x8xf16>, %c: tensor<8x3xf16>, %d: tensor<3xf16>):
      %h = tg.matmul %a, %c : tensor<4x8xf16>, tensor<8x3xf16>
      %z = tg.bias_add %h, %d : tensor<4x3xf16>, tensor<3xf16>
      %r = tg.relu %z : tensor<4x3xf16>
      amprt.yield %r : tensor<4x3xf16>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The ops of the region: the product, then the bias add and the
    /// activation when there are (null when not).
    ::mlir::Operation *getProduct();
    ::mlir::Operation *getBiasAdd();
    ::mlir::Operation *getActivation();
    /// The operand a region value stands for.
    ::mlir::Value outer(::mlir::Value inner) {
      return getInputs()[::llvm::cast<::mlir::BlockArgument>(inner)
                             .getArgNumber()];
    }
  }];
}

def AMPRT_ElementwiseChainOp : AMPRT_Op<"elementwise_chain",
    [IsolatedFromAbove, SingleBlock]> {
  let summary = "elementwise ops as one pass over their inputs";
  let description = [{
    Runs its region, 2 to `AMPRT_CHAIN_MAX_STEPS` (16) elementwise ops over
    at most `AMPRT_CHAIN_MAX_INPUTS` (8) inputs, as one
    `amprt_elementwise_chain` call: each input is read once and only the
    yielded result is written; every intermediate is rounded to its type
    as its own op would store it, so the values are those of the ops one
    by one. A step is any op, of any dialect, whose runtime lowering names
    the runtime function it computes (`getElementwiseStep`), with operands
    of its result's float type (no broadcasting). Each intermediate is read
    by exactly one later step; the region yields the last step's result.

    ```mlir
    %y = amprt.elementwise_chain (%x, %c)
        : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %0 = tg.mul %a, %b : tensor<8xf32>
      %1 = tg.tanh %0 : tensor<8xf32>
      amprt.yield %1 : tensor<8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<TG_FloatTensor>:$inputs);
  let results = (outs TG_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
}

def AMPRT_YieldOp : AMPRT_Op<"yield", [Terminator, ReturnLike,
    ParentOneOf<["ProductEpilogueOp", "ElementwiseChainOp"]>]> {
  let summary = "the results of a fused op's region";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

#endif // AMP_DIALECT_AMPRT_IR_AMPRTOPS_TD
