//===- Pipeline.td - --amp-pipeline's passes and options ---*- tablegen -*-===//
//
// The options of --amp-pipeline are those of the passes below, under the
// passes' own names, plus the pipeline's four. amp-tblgen generates the
// options struct (AmpPipelineOptions), the copy into each pass's options
// struct and docs/Passes/AMPPipeline.md from this; buildAmpPipeline
// (Pipeline.cpp) says which passes run in which order.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PIPELINE_TD
#define AMP_TRANSFORMS_PIPELINE_TD

include "amp/Transforms/PassPipelineBase.td"
include "amp/Transforms/Passes.td"

def AmpPipeline : PassPipeline<"amp-pipeline"> {
  let summary = "Tensor Core padding, autodiff, automatic mixed precision, "
                "gradient accumulation, loss scaling and data parallelism, "
                "with every option passed through";
  let description = [{
    Builds a whole training step: `amp-pad-for-tensor-cores` (with
    `pad-tensor-cores`), `tg-autodiff`, `amp-auto-mixed-precision`
    (`step=probed`: `amp-validation-probes` in its place; `step=f32`:
    neither), `amp-accumulate-gradients` (with `accumulate` other than 1),
    `amp-loss-scaling` (skipped for bf16, whose exponent range is f32's, and
    for `step=f32`), `tg-data-parallel` (with `data-parallel`, `grad-comm`
    or `bucket-bytes`), gradient probes (with `probe-gradients`),
    `canonicalize` and `cse`. An option of one of those passes is passed to
    it under its own name; an option several take (`precision`, `remarks`
    and the precision policy's) goes to each of them.
  }];
  let options = [
    Option<"step", "step", "::amp::PipelineStep",
           /*default=*/"::amp::PipelineStep::Mixed",
           "The step built: mixed, f32 (no padding, colouring or loss "
           "scaling) or probed (validation probes where the colouring "
           "would run)",
           "::amp::optionValues<::amp::PipelineStep>()">,
    ListOption<"probeGradients", "probe-gradients", "std::string",
               "Functions whose optimizers' gradients' sums of squares "
               "become extra results (amp-run --validate)">,
    Option<"padTensorCores", "pad-tensor-cores", "bool", /*default=*/"false",
           "Pad contractions' parameter-owned dimensions to Tensor Core "
           "multiples (amp-pad-for-tensor-cores)">,
    Option<"dataParallel", "data-parallel", "bool", /*default=*/"false",
           "Average gradients over the ranks of a process group "
           "(tg-data-parallel)">,
  ];
  let passes = [
    PipelinePass<AutoMixedPrecisionPass>,
    PipelinePass<ValidationProbesPass, [
      PipelineRename<"functions",
        ListOption<"probeFunctions", "probe-functions", "std::string",
                   "step=probed: the functions whose ops are probed "
                   "(default: every function nothing calls)">>,
    ], /*fixedArgs=*/["ops", "gradients"]>,
    PipelinePass<PadForTensorCoresPass>,
    PipelinePass<AccumulateGradientsPass, [
      PipelineRename<"micro-batches",
        Option<"accumulate", "accumulate", "int64_t", /*default=*/"1",
               "Micro-batches per optimizer step, gradients averaged in "
               "f32 (amp-accumulate-gradients)">>,
    ]>,
    PipelinePass<LossScalingPass>,
    PipelinePass<DataParallelPass>,
  ];
}

#endif // AMP_TRANSFORMS_PIPELINE_TD
