//===- AMPOps.td - Operations of the precision dialect -----*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "amp/Dialect/AMP/IR/AMPDialect.td"
include "amp/Dialect/TG/IR/TGTypes.td"
include "amp/Interfaces/PrecisionPolicyTrait.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class AMP_Op<string mnemonic, list<Trait> traits = []>
    : Op<AMP_Dialect, mnemonic, !listconcat([Pure], traits)>;

// Loss-scaling ops are f32-only: they exist to keep gradients and the scale
// in f32. amp.cast is clear, its input keeping its own type; the precision
// pass retypes an existing cast instead of doubling it when every user
// computes in low precision. The other ops stay out of the colouring.
def AMP_CastPrecision : AMP_Precision<"Clear", 0, 1, /*fixedOperands=*/[0]>;

def AMP_CastOp : AMP_Op<"cast", [AMP_CastPrecision]> {
  let summary = "converts between float element types";
  let description = [{
    Converts every element to the result's float type with IEEE
    round-to-nearest-even; values beyond the target's range become inf
    (f32 -> f16 overflow gives inf), NaN stays NaN. Shapes must match,
    dynamic dimensions included (`tensor<?x784xf32>` to
    `tensor<?x784xf16>`).

    Folding: a cast to the same type disappears; a cast of a constant becomes
    a constant of the new type; `cast(cast(x))` folds when the inner cast is
    exact (f16 -> f32 -> f16 is `x`), never across a rounding step (f32 ->
    f16 -> f32 stays, since it rounds).

    ```mlir
    %h = amp.cast %w : tensor<784x128xf32> to tensor<784x128xf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$x);
  let results = (outs AMP_FloatTensor:$y);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($y)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_ScaleOp : AMP_Op<"scale", [AMP_F32Only, AllTypesMatch<["x", "y"]>]> {
  let summary = "multiplies by the loss scale (applied to the backward seed)";
  let description = [{
    ```mlir
    %s = amp.scale %seed, %loss_scale : tensor<f32>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$x, TG_F32Scalar:$scale);
  let results = (outs AMP_FloatTensor:$y);
  let assemblyFormat = "$x `,` $scale attr-dict `:` type($x)";
  let hasFolder = 1;
}

def AMP_UnscaleOp : AMP_Op<"unscale", [AMP_F32Only, InferTypeOpAdaptor]> {
  let summary = "divides a gradient by the loss scale, in f32";
  let description = [{
    `y = g * (1 / scale)` computed and returned in f32 whatever `g` is, so
    optimizer and clipping ops see true f32 gradients.

    ```mlir
    %g32 = amp.unscale %g, %loss_scale : tensor<784x128xf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$g, TG_F32Scalar:$scale);
  let results = (outs AMP_WideFloatTensor:$y);
  let assemblyFormat = "$g `,` $scale attr-dict `:` type($g)";
  let hasFolder = 1;
}

def AMP_AllFiniteOp : AMP_Op<"all_finite", [AMP_F32Only]> {
  let summary = "true iff no element of any operand is inf or NaN";
  let description = [{
    ```mlir
    %ok = amp.all_finite %g1, %g2 : tensor<784x128xf32>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<AMP_FloatTensor>:$gs);
  let results = (outs TG_I1Scalar:$finite);
  let assemblyFormat = "$gs attr-dict `:` type($gs)";
  let hasVerifier = 1;
}

def AMP_UpdateScaleOp : AMP_Op<"update_scale", [AMP_F32Only]> {
  let summary = "the dynamic loss-scale state machine";
  let description = [{
    On `finite`: `good_steps + 1`, and when that reaches `growth_interval`
    the scale is multiplied by `growth_factor` (never to inf, never above
    `max_scale`) and `good_steps` resets to 0. On a non-finite step: the
    scale is multiplied by `backoff_factor` (never below `min_scale`) and
    `good_steps` becomes 0. Defaults are PyTorch's GradScaler: 2.0, 0.5,
    2000, with `min_scale` 1 and `max_scale` 2^24.

    ```mlir
    %s2, %n2 = amp.update_scale %s, %n, %ok {growth_interval = 1000 : i64}
    ```
  }];
  let arguments = (ins TG_F32Scalar:$scale, TG_I64Scalar:$good_steps,
                   TG_I1Scalar:$finite,
                   DefaultValuedOptionalAttr<F64Attr, "2.0">:$growth_factor,
                   DefaultValuedOptionalAttr<F64Attr, "0.5">:$backoff_factor,
                   DefaultValuedOptionalAttr<I64Attr, "2000">:$growth_interval,
                   DefaultValuedOptionalAttr<F64Attr, "1.0">:$min_scale,
                   DefaultValuedOptionalAttr<F64Attr, "16777216.0">:$max_scale);
  let results = (outs TG_F32Scalar:$new_scale, TG_I64Scalar:$new_good_steps);
  let assemblyFormat = "$scale `,` $good_steps `,` $finite attr-dict";
  let hasVerifier = 1;
}

def AMP_NumericErrorOp : AMP_Op<"numeric_error"> {
  let summary = "how far a low-precision result is from its f32 reference";
  let description = [{
    Compares `candidate`, an op's result computed in low precision, with
    `reference`, the same op's f32 result on the same inputs, and returns
    statistics as a `tensor<10xf32>` (indices are `amprt.h`'s
    `AMPRT_NUMERIC_*`): elements compared, the 2-norms of the difference
    and of the reference, the largest difference and reference magnitude,
    and counts of overflow to inf, NaN, values flushed to zero and
    reference values below the candidate type's smallest normal. Inserted by
    `--amp-validation-probes` for `amp-run --validate`; never by the
    precision passes.

    ```mlir
    %stats = amp.numeric_error %ref, %low
        : tensor<64x10xf32>, tensor<64x10xf16> -> tensor<10xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$reference,
                   AMP_FloatTensor:$candidate);
  let results = (outs RankedTensorOf<[F32]>:$stats);
  let assemblyFormat = [{
    $reference `,` $candidate attr-dict `:` type($reference) `,`
    type($candidate) `->` type($stats)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$reference,
                                 "::mlir::Value":$candidate)>];
  let extraClassDeclaration = [{
    /// Elements of the statistics tensor (AMPRT_NUMERIC_STATS; the
    /// lowering checks that they agree).
    static constexpr int64_t kNumStats = 10;
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// FP8 with per-tensor delayed scaling
//===----------------------------------------------------------------------===//

def AMP_QuantizeOp : AMP_Op<"quantize"> {
  let summary = "scales a tensor and rounds it to FP8";
  let description = [{
    `q = fp8(x * scale)`: the product is formed in f32 and rounded to the
    result's FP8 format to nearest-even, saturating -- a finite value past
    the format's largest finite value (448 for `f8E4M3FN`, 57344 for
    `f8E5M2`) becomes that value, so a scale that lags the data clips
    instead of producing inf. NaN stays NaN; inf becomes NaN in E4M3FN
    (which has no inf) and stays inf in E5M2. The scales
    `amp.fp8_scale` makes are powers of two, so `x * scale` is exact and the
    only rounding is to FP8. Shapes must match.

    ```mlir
    %q = amp.quantize %x, %s : tensor<64x784xbf16> to tensor<64x784xf8E4M3FN>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$x, TG_F32Scalar:$scale);
  let results = (outs AMP_Fp8Tensor:$q);
  let assemblyFormat = "$x `,` $scale attr-dict `:` type($x) `to` type($q)";
  let hasVerifier = 1;
}

def AMP_DequantizeOp : AMP_Op<"dequantize"> {
  let summary = "reads an FP8 tensor back at its scale";
  let description = [{
    `y = q * (1 / scale)`, in f32, rounded to the result type. With the
    power-of-two scales of `amp.fp8_scale` the result is exact in bf16, f16
    (within its range) and f32: a contraction of dequantized operands with
    f32 accumulation computes exactly what an FP8 GEMM with scale factors
    computes, which is how the CPU backend emulates FP8 and what a GPU
    backend may replace with one FP8 GEMM. Shapes must match.

    ```mlir
    %d = amp.dequantize %q, %s : tensor<64x784xf8E4M3FN> to tensor<64x784xbf16>
    ```
  }];
  let arguments = (ins AMP_Fp8Tensor:$q, TG_F32Scalar:$scale);
  let results = (outs AMP_FloatTensor:$y);
  let assemblyFormat = "$q `,` $scale attr-dict `:` type($q) `to` type($y)";
  let hasVerifier = 1;
}

def AMP_AmaxOp : AMP_Op<"amax"> {
  let summary = "the largest magnitude in a tensor, in f32";
  let description = [{
    `max |x|` over every element (0 for an empty tensor); NaN if any element
    is NaN, inf if any is infinite. Folds on constants.

    ```mlir
    %a = amp.amax %x : tensor<64x784xbf16>
    ```
  }];
  let arguments = (ins AMP_FloatTensor:$x);
  let results = (outs TG_F32Scalar:$amax);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def AMP_Fp8ScaleOp : AMP_Op<"fp8_scale"> {
  let summary = "the scale that fits an amax history into an FP8 format";
  let description = [{
    Transformer Engine's delayed scaling: with `m` the largest value of
    `history` (a 1-D amax history, or a scalar amax for current scaling),
    the scale is the largest power of two `s` with
    `m * s <= fp8_max / 2^margin`, where `fp8_max` is the largest finite
    value of `format` (448 for `f8E4M3FN`, 57344 for `f8E5M2`). It is
    Transformer Engine's `fp8_max / m / 2^margin` rounded down to a power of
    two, so that scaling and unscaling are exact (see `amp.dequantize`).
    While the history holds no positive finite value (the first step) the
    scale is 1. Scales stay within 2^-126 .. 2^126 so that `s` and `1/s` are
    normal f32 values.

    ```mlir
    %s = amp.fp8_scale %history {format = f8E4M3FN} : tensor<1024xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$history, TypeAttr:$format,
                   DefaultValuedOptionalAttr<I64Attr, "0">:$margin);
  let results = (outs TG_F32Scalar:$scale);
  let assemblyFormat = "$history attr-dict `:` type($history)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def AMP_RecordAmaxOp : AMP_Op<"record_amax",
    [AllTypesMatch<["history", "new_history"]>]> {
  let summary = "pushes this step's amax into an amax history";
  let description = [{
    `new_history[0] = amax` and `new_history[i] = history[i - 1]`: the
    oldest value drops out. A non-finite amax (a step whose data overflowed,
    which loss scaling skips) is not recorded: the history comes back
    unchanged, so one bad step cannot set every later scale to 0.

    ```mlir
    %h2 = amp.record_amax %h, %a : tensor<1024xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$history, TG_F32Scalar:$amax);
  let results = (outs RankedTensorOf<[F32]>:$new_history);
  let assemblyFormat = "$history `,` $amax attr-dict `:` type($history)";
  let hasVerifier = 1;
}

def AMP_ScaledMatmulOp : AMP_Op<"scaled_matmul"> {
  let summary = "matrix product of FP8 operands with per-tensor scales";
  let description = [{
    `c = (op(a) x op(b)) * (1 / (scale_a * scale_b))` with f32
    accumulation, rounded to the result type (bf16, f16 or f32), where `op`
    transposes when `transpose_a` / `transpose_b` is set. Rank-2 operands
    multiply as `tg.matmul`; operands of equal rank >= 3 with equal leading
    dimensions as `tg.batch_matmul`. Any mix of `f8E4M3FN` and `f8E5M2`
    (cuBLASLt's FP8 GEMM takes every mix but E5M2 x E5M2).

    Canonicalization makes it from a `tg.matmul` / `tg.batch_matmul` whose
    two operands are `amp.dequantize` results, which is what `precision=fp8`
    writes: the FP8 tensors, not their bf16 copies, then live from the
    forward pass to the backward pass (half the bytes), and a GPU backend
    sees one FP8 GEMM with its scale factors. The value is unchanged: the
    runtime dequantizes (exactly, with power-of-two scales) and multiplies
    as the unfused ops did.

    ```mlir
    %c = amp.scaled_matmul %qa, %sa, %qb, %sb {transpose_a = true}
        : tensor<32x784xf8E4M3FN>, tensor<32x128xf8E5M2> -> tensor<784x128xbf16>
    ```
  }];
  let arguments = (ins AMP_Fp8Tensor:$a, TG_F32Scalar:$scale_a,
                   AMP_Fp8Tensor:$b, TG_F32Scalar:$scale_b,
                   DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs AMP_FloatTensor:$c);
  let assemblyFormat = [{
    $a `,` $scale_a `,` $b `,` $scale_b attr-dict `:` type($a) `,` type($b)
    `->` type($c)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
