//===- Passes.td - amp's precision passes ------------------*- tablegen -*-===//

#ifndef AMP_TRANSFORMS_PASSES_TD
#define AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Options of the precision policy, shared by the precision pass and the
// validation probes so that the probes colour exactly as the pass does.
defvar PolicyOptions = [
    Option<"precision", "precision", "::amp::LowPrecision",
           /*default=*/"::amp::LowPrecision::F16",
           "Low-precision type: f16, bf16 or fp8 (bf16 with FP8 "
           "contraction operands)",
           "::amp::optionValues<::amp::LowPrecision>()">,
    Option<"fp8Format", "fp8-format", "::amp::Fp8Format",
           /*default=*/"::amp::Fp8Format::Hybrid",
           "precision=fp8: hybrid (E5M2 gradients, E4M3 the rest) or e4m3",
           "::amp::optionValues<::amp::Fp8Format>()">,
    Option<"fp8Margin", "fp8-margin", "int64_t", /*default=*/"0",
           "precision=fp8: scales are divided by 2^margin">,
    ListOption<"allowOps", "allow", "std::string",
               "Op names (dialect.op) moved into the allow list">,
    ListOption<"inferOps", "infer", "std::string",
               "Op names moved into the infer list">,
    ListOption<"clearOps", "clear", "std::string",
               "Op names moved into the clear list">,
    ListOption<"denyOps", "deny", "std::string",
               "Op names moved into the deny list">,
    Option<"listsFile", "lists-file", "std::string", /*default=*/"\"\"",
           "JSON policy file {\"allow\": [...], \"infer\": [...], "
           "\"clear\": [...], \"deny\": [...]}">,
    Option<"level", "level", "::amp::PrecisionLevel",
           /*default=*/"::amp::PrecisionLevel::Default",
           "default, tensor-cores-only, infer-as-deny or force-all",
           "::amp::optionValues<::amp::PrecisionLevel>()">,
    Option<"constantOverflow", "constant-overflow", "::amp::ConstantOverflow",
           /*default=*/"::amp::ConstantOverflow::KeepF32",
           "What a constant operand with values past the low type's range "
           "does: keep-f32 (its op stays f32) or saturate (those values "
           "become the largest finite value). Tiny values always flush, "
           "counted in the report",
           "::amp::optionValues<::amp::ConstantOverflow>()">,
];

def AutoMixedPrecisionPass
    : Pass<"amp-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Moves Tensor Core work to f16/bf16 and keeps dangerous math "
                "in f32, with the fewest casts";
  let description = [{
    Colours every op of every function by the allow / infer / clear / deny
    lists (TensorFlow's auto-mixed-precision algorithm, on MLIR values):

    1. allow ops (and ops forced by `amp.precision`) form the allow set;
       with none, the IR is left as it is;
    2. deny spreads forward from deny ops through clear and infer ops that
       lie upstream (through clear ops only) of a deny or infer op;
    3. clear and infer ops on a path between two allow ops become allow;
    4. for bf16, infer ops that follow allow ops and no deny op become allow;
    5. allow spreads both ways through clear ops;
    6. ops that cannot take the type leave the allow set;
    7. values carried by loops and branches (`scf.for`, `scf.while`,
       `scf.if`: anything implementing `RegionBranchOpInterface`, and block
       arguments fed by `BranchOpInterface` terminators) form one node per
       class of tied values, coloured like a clear op, so casts land
       outside loops;
    8. an existing `amp.cast` to f32 whose users are all allow is retyped;
    9. allow ops are retyped and `amp.cast` is inserted only where producer
       and consumer colours differ, once per (value, type), right after the
       producer: master weights stay f32 arguments and are cast once.
       Casts of constants fold into low-precision constants; results an
       op accumulates into (`keepsResultWide`) stay f32 with one cast after
       the op for low users. Every op the pass changed is verified: the
       pass fails, naming itself, rather than hand back invalid IR.

    IR that holds no `tg` or `amp` op comes back in its dialects' own ops
    (`cast-op=auto`: `arith.truncf`/`extf` on tensors, `tosa.cast` next to
    TOSA), so the compiler that gave it lowers it with its own pipeline.
    Tensors may have dynamic dimensions.

    Only ops whose float values are f32 take part: an op already in
    f16/bf16 is never recoloured and colour does not travel through it.
    `annotate` writes `amp.color`, `report` writes a JSON account of every
    op (list, final precision, reason), and `remarks` emits the same reasons
    as MLIR remarks.

    Every contraction the pass converts is checked against Tensor Core
    alignment: M, N and K of a matrix product (not a batched product's
    batch), a convolution's input and output channels, each a multiple of
    8 elements for f16/bf16 operands and of 16 for FP8 ones, from the
    dimensions its `TensorCoreShapeOpInterface` gives (tg, linalg, TOSA and
    any op that attaches it). The report gives each one
    `tensor_core_aligned` and, when false, every dimension that misses with
    its padded size and whether a parameter (a `tg.role = "param"`
    argument, or a constant, through casts and transposes) owns it;
    remarks say the same, and one remark on the module sums it up
    (`tensor-core-summary=false` drops it).

    `precision=fp8` converts the graph as for bf16 and then gives every
    precision operand of an allow-list op (the Tensor Core contractions)
    FP8 storage with a per-tensor scale: `amp.quantize` to `f8E4M3FN` (or
    `f8E5M2` for gradients with `fp8-format=hybrid`) and `amp.dequantize`
    back to bf16, one chain per value. In a training step (a single-block
    `func.func` whose arguments carry `tg.role`) the scale is delayed: it
    comes from an amax history of `amax-history-len` steps, a new argument
    and result with `tg.role = "amax_history"`, and this step's amax is
    recorded for the next (Transformer Engine's `DelayedScaling`); values
    computed in nested regions, functions that are not steps and
    `fp8-scaling=current` scale by their own amax. In IR without tg or amp
    ops the chains come back in linalg, tensor and arith ops (current
    scaling), which upstream lowers with `convert-arith-to-apfloat`.

    Example: `amp-opt --amp-auto-mixed-precision="precision=bf16 report=r.json"`.
  }];
  let options = !listconcat(PolicyOptions, [
    Option<"fp8Scaling", "fp8-scaling", "::amp::Fp8Scaling",
           /*default=*/"::amp::Fp8Scaling::Delayed",
           "precision=fp8: delayed (amax history carried by the step) or "
           "current (each tensor's own amax)",
           "::amp::optionValues<::amp::Fp8Scaling>()">,
    Option<"amaxHistoryLen", "amax-history-len", "int64_t",
           /*default=*/"1024", "precision=fp8: steps of amax history">,
    Option<"keepIoTypes", "keep-io-types", "bool", /*default=*/"true",
           "Keep function argument and result types (results get a cast "
           "back); false lets results of functions nothing calls and no "
           "tg.role pins come back in low precision">,
    Option<"castOp", "cast-op", "::amp::CastOpChoice",
           /*default=*/"::amp::CastOpChoice::Auto",
           "The op that converts precisions: amp (amp.cast), arith "
           "(arith.truncf/extf on tensors), tosa (tosa.cast) or auto (amp "
           "when the module holds tg or amp ops, else tosa.cast for a value "
           "a TOSA op produces or uses and arith for the others)",
           "::amp::optionValues<::amp::CastOpChoice>()">,
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Write amp.color on every op that takes part">,
    Option<"reportPath", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report of every decision to this path">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per op with its final precision and the reason">,
    Option<"tensorCoreSummary", "tensor-core-summary", "bool",
           /*default=*/"true",
           "Emit one remark on the module: how many converted contractions "
           "meet Tensor Core alignment, and how many of the rest a "
           "parameter owns the dimension of (paddable)">,
  ]);
  let statistics = [
    Statistic<"numConverted", "ops-converted",
              "Ops moved to low precision">,
    Statistic<"numTensorCoreAligned", "tensor-core-aligned",
              "Converted contractions that meet Tensor Core alignment">,
    Statistic<"numTensorCoreMisaligned", "tensor-core-misaligned",
              "Converted contractions that miss Tensor Core alignment">,
    Statistic<"numCasts", "casts-inserted", "amp.cast ops inserted">,
    Statistic<"numFolded", "casts-folded",
              "Casts of constants folded into low-precision constants">,
    Statistic<"numFp8Operands", "fp8-operands",
              "Contraction operands given FP8 storage">,
  ];
  let dependentDialects = ["::amp::AMPDialect", "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tosa::TosaDialect"];
}

def PadForTensorCoresPass
    : Pass<"amp-pad-for-tensor-cores", "::mlir::ModuleOp"> {
  let summary = "Pads contractions' parameter-owned dimensions to Tensor "
                "Core multiples with zeros, results sliced back";
  let description = [{
    Every contraction whose Tensor Core dimension misses the multiple (8
    elements for f16/bf16 operands, 16 for FP8; see
    `--amp-auto-mixed-precision`'s Tensor Core alignment) and is owned by a
    parameter (a `tg.role = "param"` argument or a constant, through casts
    and transposes: a classifier's classes, a vocabulary, a hidden width,
    convolution channels) is rebuilt by its `TensorCoreShapeOpInterface` to
    run on operands padded with zeros, and its results are sliced back.
    The function's signature, the master weights' shapes and every value a
    user sees are unchanged: zeros add nothing to a sum. Dimensions no
    parameter owns (a batch of 30 rows) are the user's to change and stay.

    Run it on the forward graph, before `--tg-autodiff`
    (`pad-tensor-cores=true` in `--amp-pipeline` does): the gradients then
    pass through the pad and the slice, the backward contractions run on
    the padded shapes too, and the padded entries' gradients are zero. The
    rebuilt op carries `amp.tensor_core_padded` (the sizes it had), which
    `--amp-auto-mixed-precision`'s report gives as `tensor_core_padded`.

    ```mlir
    %y = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
    // becomes
    %p = tg.pad %w {high = array<i64: 0, 6>, low = array<i64: 0, 0>} : tensor<784x10xf32>
    %m = tg.matmul %x, %p {amp.tensor_core_padded = {N = 10 : i64}} : tensor<32x784xf32>, tensor<784x16xf32>
    %y = tg.slice %m {offsets = array<i64: 0, 0>, sizes = array<i64: 32, 10>} : tensor<32x16xf32>
    ```

    Other compilers' forms are padded in their own ops: linalg's
    contractions and convolutions (named or generic) with `tensor.pad` and
    `tensor.extract_slice`, TOSA's `matmul` and convolutions with
    `tosa.pad` and `tosa.slice`, so a TOSA graph stays TOSA. The first
    operand's zeros are -0.0, so each added term is -0.0 and every sum keeps
    its bits, a sum of -0.0 included. A linalg op whose body could trap on
    zeros (not pure and speculatable), whose padded reduction (K, input
    channels) is not a sum of products of cast operands with the
    accumulator only widened, whose padded dimension is made of several
    loops, read through an index expression or of elements with no zero,
    and a TOSA op with non-zero zero points, a dynamic result or a dynamic
    size on an axis to grow keep their shape; with `remarks=true` the pass
    says so.
  }];
  let options = [
    Option<"precision", "precision", "::amp::LowPrecision",
           /*default=*/"::amp::LowPrecision::F16",
           "The contractions' operand type: f16 or bf16 (multiples of 8) "
           "or fp8 (multiples of 16)",
           "::amp::optionValues<::amp::LowPrecision>()">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per padded contraction">,
  ];
  let statistics = [
    Statistic<"numPadded", "contractions-padded",
              "Contractions rebuilt on padded shapes">,
  ];
  let dependentDialects = ["::amp::tg::TGDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ValidationProbesPass : Pass<"amp-validation-probes", "::mlir::ModuleOp"> {
  let summary = "Measures every op the precision pass would convert against "
                "its f32 result, in one run";
  let description = [{
    Instruments f32 training steps for `amp-run --validate`. Run it where
    `--amp-auto-mixed-precision` would run, with the same policy options:
    it colours each function exactly as that pass does but changes no op.
    Instead, after every op that would go to low precision it adds a shadow
    copy computing in that precision from the op's own f32 operands (cast
    down), so each op is judged alone and errors do not compound, and it
    returns, as extra results with `tg.role = "output"`:

    - `amp.numeric_error` of each low-precision result against the f32
      result (`amp.probe = {kind = "result", ...}`), and
    - `amp.numeric_error` of each cast operand against its f32 value
      (`kind = "input"`): an op whose inputs do not fit the type fails
      because of its producer, not itself.

    With `gradients=true` (run after `--amp-loss-scaling`, in the f32 and
    in the mixed step) it also returns the sum of squares of the gradient
    each optimizer op receives (`kind = "gradient"`, `index` = the param's
    argument number), so the two steps' gradient norms can be compared.

    Every probe's `amp.probe` dictionary names the probed `op`, its `loc`,
    the operand or result `index`, the `precision` and whether the op lies
    in the `backward` pass (downstream of `tg.grad_seed`, where loss scaling
    scales values). Only ops in a function's entry block are probed; ops in
    loops and branches are counted in a remark. A function something calls
    keeps its signature and is not probed.

    With `precision=fp8` the colouring is bf16's and every operand the
    precision pass would make FP8 (each precision operand of an allow-list
    op, E5M2 for gradients under `fp8-format=hybrid`, else E4M3) reaches the
    shadow through `amp.amax`, `amp.fp8_scale`, `amp.quantize` and
    `amp.dequantize`, scaled by its own amax (current scaling: the probe
    judges the format, not the lag of a delayed scale). Its `input` probe
    then measures FP8's rounding and the values the shared per-tensor scale
    flushes to zero, and carries `fp8 = "f8E4M3FN"` or `"f8E5M2"`.
  }];
  let options = !listconcat(PolicyOptions, [
    ListOption<"functions", "functions", "std::string",
               "Functions to instrument (default: every function nothing "
               "calls)">,
    Option<"ops", "ops", "bool", /*default=*/"true",
           "Probe the ops that would go to low precision">,
    Option<"gradients", "gradients", "bool", /*default=*/"false",
           "Return the sum of squares of each optimizer op's gradient">,
  ]);
  let statistics = [
    Statistic<"numProbedOps", "ops-probed", "Ops given a low-precision shadow">,
    Statistic<"numProbes", "probes", "Probe results added">,
  ];
  let dependentDialects = ["::amp::AMPDialect", "::amp::tg::TGDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LossScalingPass : Pass<"amp-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Static or dynamic loss scaling inside the training graph";
  let description = [{
    GradScaler / LossScaleOptimizer semantics with no host synchronisation.
    In each function with a `tg.grad_seed`:

    - `mode=static`: `amp.scale` multiplies the backward seed by
      `init-scale`; every gradient that reaches an optimizer op
      (`tg.sgd_update`, `tg.momentum_update`, `tg.adam_update`) or
      `tg.clip_by_global_norm` is unscaled in f32 first (`amp.unscale`), so
      clipping and updates see true gradients. An f16 gradient cast to f32
      for the optimizer is unscaled straight from f16.
    - `mode=dynamic` (default): the scale is a function argument
      (`tg.role = "loss_scale"`, tensor<f32>) with a step counter
      (`tg.role = "good_steps"`, tensor<i64>); `amp.all_finite` checks every
      unscaled gradient, every optimizer result becomes
      `tg.select(finite, new, old)` so a step with inf or NaN changes
      nothing, and `amp.update_scale` grows or backs off the scale. The new
      scale and counter are returned after the other results.
    - `mode=none`: nothing.

    A function that `--amp-accumulate-gradients` made
    (`amp.micro_batches = K`) has one seed per micro-batch: each is scaled
    by the same scale, and the gradients the optimizers receive (the
    micro-batches' mean) are unscaled and checked once.

    Errors, not crashes: optimizer updates without a `tg.grad_seed`, more
    than one seed in a function (other than one per micro-batch), gradients
    that reach no optimizer op, a function that is already loss-scaled. Defaults are PyTorch's
    GradScaler's.
  }];
  let options = [
    Option<"mode", "mode", "::amp::LossScalingMode",
           /*default=*/"::amp::LossScalingMode::Dynamic",
           "dynamic, static or none",
           "::amp::optionValues<::amp::LossScalingMode>()">,
    Option<"initScale", "init-scale", "double", /*default=*/"::amp::loss_scaling::kInitScale",
           "The initial (static: the fixed) loss scale">,
    Option<"growthFactor", "growth-factor", "double",
           /*default=*/"::amp::loss_scaling::kGrowthFactor",
           "Scale multiplier after growth-interval finite steps">,
    Option<"backoffFactor", "backoff-factor", "double",
           /*default=*/"::amp::loss_scaling::kBackoffFactor",
           "Scale multiplier after a step with inf or NaN">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"::amp::loss_scaling::kGrowthInterval",
           "Finite steps between growths">,
    Option<"minScale", "min-scale", "double",
           /*default=*/"::amp::loss_scaling::kMinScale",
           "The scale never backs off below this">,
    Option<"maxScale", "max-scale", "double",
           /*default=*/"::amp::loss_scaling::kMaxScale",
           "The scale never grows above this">,
  ];
  let dependentDialects = ["::amp::tg::TGDialect", "::amp::AMPDialect",
                           "::mlir::arith::ArithDialect"];
}

def DataParallelPass : Pass<"tg-data-parallel", "::mlir::ModuleOp"> {
  let summary = "Makes training steps data-parallel: gradients averaged "
                "over the ranks, loss-scaling decisions agreed";
  let description = [{
    In each function with optimizer updates (`tg.sgd_update`,
    `tg.momentum_update`, `tg.adam_update`), run after `--tg-autodiff` and
    `--amp-loss-scaling`:

    - the function gains an argument `tensor<i64> {tg.role =
      "communicator"}` (the process group; an existing one is reused);
    - the backward seed (`tg.grad_seed`) is multiplied by 1 / ranks (one
      scalar `tg.all_reduce` of 1.0 counts them), so each rank's gradients
      are its share of the global batch's gradient, as large as one
      process's with the whole batch (f16 overflows at the same loss
      scale);
    - each parameter gradient is summed over the ranks by `tg.all_reduce`
      where it is computed: before `amp.unscale` (so loss scaling protects
      it on the wire) and before `tg.clip_by_global_norm` (so the norm is
      the global batch's); a step with no seed (gradients given as
      arguments) averages them (`reduction = "mean"`) instead;
    - `grad-comm` picks the wire type: a gradient of another type is cast
      to it before the all-reduce and back after (the runtime accumulates
      16-bit floats in f32 and rounds once);
    - gradients go in buckets of at most `bucket-bytes` bytes (one
      collective each; a larger gradient travels alone), grouped by wire
      type in the order the backward pass computes them;
    - each `amp.all_finite` result is combined over the ranks (`min` on i1,
      a logical and), so every rank skips the same steps and updates the
      loss scale identically;
    - each `tg.role = "loss"` result is averaged over the ranks (the global
      batch's loss; the backward pass still starts from the local one);
    - with `reduce-amax` (the default), the amax that each `amp.record_amax`
      pushes into an FP8 amax history is the largest over the ranks (one
      `tg.all_reduce` with `max` for all of them, after the last is
      computed), as Transformer Engine reduces amaxes across the
      data-parallel group: every rank keeps the history one process with
      the global batch would keep, so the delayed scales agree. Current
      scaling scales each rank's own tensor and is left alone.

    Every rank compiles the same IR with the same options, so collectives
    run in the same order everywhere; `tg.all_reduce` has side effects, so
    later passes neither drop nor reorder them. A function that already
    holds `tg.all_reduce` is left as it is. Errors: optimizer updates
    inside nested regions, a function that is called (its signature
    changes), an unknown `grad-comm`, `bucket-bytes` < 1. `grad-comm=f16`
    on gradients that no loss scale protects is a warning (small gradients
    flush to zero in f16; bf16 keeps f32's range).
  }];
  let options = [
    Option<"gradComm", "grad-comm", "::amp::GradComm",
           /*default=*/"::amp::GradComm::F32",
           "Wire type of gradients: f32, f16 or bf16",
           "::amp::optionValues<::amp::GradComm>()">,
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"25 * 1024 * 1024",
           "Most bytes of gradients per collective (PyTorch DDP's 25 MiB)">,
    Option<"reduceAmax", "reduce-amax", "bool", /*default=*/"true",
           "Record the largest FP8 amax over the ranks in each amax "
           "history (delayed scaling)">,
  ];
  let statistics = [
    Statistic<"numGradients", "gradients", "Gradients reduced over ranks">,
    Statistic<"numCollectives", "collectives",
              "tg.all_reduce ops per step">,
    Statistic<"numWireBytes", "wire-bytes",
              "Bytes of gradients each rank contributes per step">,
    Statistic<"numAmaxes", "amaxes",
              "FP8 amaxes reduced over ranks (delayed scaling)">,
  ];
  let dependentDialects = ["::amp::tg::TGDialect", "::amp::AMPDialect",
                           "::mlir::arith::ArithDialect"];
}

def AccumulateGradientsPass : Pass<"amp-accumulate-gradients",
                                   "::mlir::ModuleOp"> {
  let summary = "Gradient accumulation: K micro-batches per optimizer step";
  let description = [{
    In each function with optimizer updates (`tg.sgd_update`,
    `tg.momentum_update`, `tg.adam_update`, and `tg.clip_by_global_norm`),
    run after `--tg-autodiff` (and `--amp-auto-mixed-precision`) and before
    `--amp-loss-scaling` and `--tg-data-parallel`:

    - every `tg.role = "input"` and `"label"` argument grows its leading
      dimension (static) from B, its rows in one micro-batch, to
      `micro-batches` x B: a host feeds the optimizer step's whole batch,
      micro-batch k being rows [k B, (k + 1) B) of each (B may differ
      between arguments: a label flattened to examples x positions);
    - the ops that depend on the batch (the forward and backward passes)
      are repeated once per micro-batch on its `tg.slice` of the batch, in
      sequence, so buffers of one micro-batch are released before the next
      runs and activation memory stays that of one micro-batch; ops that do
      not depend on the batch (casting the parameters to 16 bits, FP8
      scales from the histories) run once per step;
    - each gradient an optimizer (or clipping) receives is the mean of the
      micro-batches' gradients, summed in f32 (a 16-bit gradient is cast to
      f32 first and back after) and multiplied by 1/K once: the gradient
      of the mean loss over the K x B rows. The loss (`tg.role = "loss"`)
      is the micro-batches' mean the same way; `"logits"` and `"output"`
      results are concatenated along the batch dimension; each FP8 amax
      history (`"amax_history"`) records every micro-batch's amax in turn.
      The loss is taken to be a mean over the batch's rows (a sum would be
      averaged too);
    - the function gets `amp.micro_batches = K`, which tells
      `--amp-loss-scaling` to scale every micro-batch's `tg.grad_seed` by
      the same scale: the unscale, the inf/NaN check and the update then
      run once per optimizer step, so an overflow in any micro-batch skips
      the whole step and backs the scale off once; `--tg-data-parallel`
      then all-reduces each gradient once per optimizer step.

    `micro-batches=1` changes nothing. Errors: `micro-batches` < 1, a step
    with no input or label argument or with a dynamic leading dimension,
    an already loss-scaled function, updates in a nested
    region, and a batch-dependent value that reaches anything but an
    optimizer's gradient operand or a loss, logits, output or amax-history
    result.
  }];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"1",
           "Micro-batches per optimizer step (K)">,
  ];
  let statistics = [
    Statistic<"numGradients", "gradients",
              "Gradients averaged over the micro-batches">,
  ];
  let dependentDialects = ["::amp::tg::TGDialect", "::amp::AMPDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // AMP_TRANSFORMS_PASSES_TD
