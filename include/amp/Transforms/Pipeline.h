//===- Pipeline.h - The whole mixed-precision pipeline ----------*- C++ -*-===//
//
// --amp-pipeline: tg-autodiff, amp-auto-mixed-precision, amp-loss-scaling
// (skipped for bf16), canonicalize, cse, with every option passed through;
// step=f32 and step=probed build the f32 step and the probed f32 step that
// amp-run trains and validates against, so every step is built here.
// Another compiler embeds it with one call:
//
//   amp::AmpPipelineOptions options;
//   options.precision = amp::LowPrecision::BF16;
//   amp::buildAmpPipeline(pm, options);
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PIPELINE_H
#define AMP_TRANSFORMS_PIPELINE_H

#include "amp/Transforms/LossScalingDefaults.h"
#include "amp/Transforms/PassOptions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace amp {

struct AmpPipelineOptions
    : public mlir::PassPipelineOptions<AmpPipelineOptions> {
  // Which step: step=f32 keeps the padding, colouring and loss-scaling
  // passes out; step=probed puts --amp-validation-probes where the
  // colouring would run.
  Option<PipelineStep> step{*this, "step", llvm::cl::desc("The step built"),
                            llvm::cl::init(PipelineStep::Mixed),
                            optionValues<PipelineStep>()};
  ListOption<std::string> probeFunctions{
      *this, "probe-functions",
      llvm::cl::desc("step=probed: the functions whose ops are probed "
                     "(default: every step)")};
  ListOption<std::string> probeGradients{
      *this, "probe-gradients",
      llvm::cl::desc("Functions whose optimizers' gradients' sums of "
                     "squares become extra results (amp-run --validate)")};
  // --amp-auto-mixed-precision.
  Option<LowPrecision> precision{
      *this, "precision", llvm::cl::desc("Low-precision type"),
      llvm::cl::init(LowPrecision::F16), optionValues<LowPrecision>()};
  Option<Fp8Format> fp8Format{
      *this, "fp8-format", llvm::cl::desc("precision=fp8: formats"),
      llvm::cl::init(Fp8Format::Hybrid), optionValues<Fp8Format>()};
  Option<Fp8Scaling> fp8Scaling{
      *this, "fp8-scaling",
      llvm::cl::desc("precision=fp8: where the scales come from"),
      llvm::cl::init(Fp8Scaling::Delayed), optionValues<Fp8Scaling>()};
  Option<int64_t> amaxHistoryLen{
      *this, "amax-history-len",
      llvm::cl::desc("precision=fp8: steps of amax history"),
      llvm::cl::init(1024)};
  Option<int64_t> fp8Margin{
      *this, "fp8-margin",
      llvm::cl::desc("precision=fp8: scales are divided by 2^margin"),
      llvm::cl::init(0)};
  ListOption<std::string> allowOps{*this, "allow",
                                   llvm::cl::desc("Ops moved into allow")};
  ListOption<std::string> inferOps{*this, "infer",
                                   llvm::cl::desc("Ops moved into infer")};
  ListOption<std::string> clearOps{*this, "clear",
                                   llvm::cl::desc("Ops moved into clear")};
  ListOption<std::string> denyOps{*this, "deny",
                                  llvm::cl::desc("Ops moved into deny")};
  Option<std::string> listsFile{*this, "lists-file",
                                llvm::cl::desc("JSON policy file")};
  Option<PrecisionLevel> level{
      *this, "level", llvm::cl::desc("How far the colouring goes"),
      llvm::cl::init(PrecisionLevel::Default), optionValues<PrecisionLevel>()};
  Option<bool> keepIoTypes{*this, "keep-io-types",
                           llvm::cl::desc("Keep function signatures"),
                           llvm::cl::init(true)};
  Option<ConstantOverflow> constantOverflow{
      *this, "constant-overflow",
      llvm::cl::desc("Constants past the low type's range"),
      llvm::cl::init(ConstantOverflow::KeepF32),
      optionValues<ConstantOverflow>()};
  Option<CastOpChoice> castOp{
      *this, "cast-op", llvm::cl::desc("The op precision casts are"),
      llvm::cl::init(CastOpChoice::Auto), optionValues<CastOpChoice>()};
  Option<bool> annotate{*this, "annotate", llvm::cl::desc("Write amp.color"),
                        llvm::cl::init(false)};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("JSON report path")};
  Option<bool> remarks{*this, "remarks",
                       llvm::cl::desc("Emit a remark per decision"),
                       llvm::cl::init(false)};
  // --amp-pad-for-tensor-cores, before autodiff.
  Option<int64_t> accumulate{
      *this, "accumulate",
      llvm::cl::desc("Micro-batches per optimizer step, gradients averaged "
                     "in f32 (--amp-accumulate-gradients)"),
      llvm::cl::init(1)};
  Option<bool> padTensorCores{
      *this, "pad-tensor-cores",
      llvm::cl::desc("Pad contractions' parameter-owned dimensions to Tensor "
                     "Core multiples (--amp-pad-for-tensor-cores)"),
      llvm::cl::init(false)};
  Option<bool> tensorCoreSummary{
      *this, "tensor-core-summary",
      llvm::cl::desc("One remark: how many contractions meet Tensor Core "
                     "alignment"),
      llvm::cl::init(true)};
  // --amp-loss-scaling.
  Option<LossScalingMode> mode{*this, "mode",
                               llvm::cl::desc("How the loss is scaled"),
                               llvm::cl::init(LossScalingMode::Dynamic),
                               optionValues<LossScalingMode>()};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial loss scale"),
                           llvm::cl::init(loss_scaling::kInitScale)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("Growth multiplier"),
                              llvm::cl::init(loss_scaling::kGrowthFactor)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("Backoff multiplier"),
                               llvm::cl::init(loss_scaling::kBackoffFactor)};
  Option<int64_t> growthInterval{*this, "growth-interval",
                                 llvm::cl::desc("Finite steps per growth"),
                                 llvm::cl::init(loss_scaling::kGrowthInterval)};
  Option<double> minScale{*this, "min-scale", llvm::cl::desc("Lowest scale"),
                          llvm::cl::init(loss_scaling::kMinScale)};
  Option<double> maxScale{*this, "max-scale", llvm::cl::desc("Highest scale"),
                          llvm::cl::init(loss_scaling::kMaxScale)};
  // --tg-data-parallel (after loss scaling).
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Average gradients over the ranks of a process group"),
      llvm::cl::init(false)};
  Option<GradComm> gradComm{
      *this, "grad-comm",
      llvm::cl::desc("Wire type of gradients (implies data-parallel)"),
      llvm::cl::init(GradComm::F32), optionValues<GradComm>()};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("Most bytes of gradients per collective (implies "
                     "data-parallel)"),
      llvm::cl::init(25 * 1024 * 1024)};
  Option<bool> reduceAmax{
      *this, "reduce-amax",
      llvm::cl::desc("Under data-parallel, record the largest FP8 amax over "
                     "the ranks in each amax history"),
      llvm::cl::init(true)};
};

/// Copies the precision policy's options (Passes.td's PolicyOptions) from
/// one options struct to another: the pipeline's, the precision pass's and
/// the validation probes' name them alike.
template <typename From, typename To>
void copyPolicyOptions(const From &from, To &to) {
  to.precision = from.precision;
  to.fp8Format = from.fp8Format;
  to.fp8Margin = from.fp8Margin;
  to.allowOps.assign(from.allowOps.begin(), from.allowOps.end());
  to.inferOps.assign(from.inferOps.begin(), from.inferOps.end());
  to.clearOps.assign(from.clearOps.begin(), from.clearOps.end());
  to.denyOps.assign(from.denyOps.begin(), from.denyOps.end());
  to.listsFile = from.listsFile;
  to.level = from.level;
  to.constantOverflow = from.constantOverflow;
}

/// Whether a mixed step in `precision` is loss-scaled: bf16 has f32's
/// exponent range, so its gradients do not underflow and there is nothing
/// to scale; f16 and fp8 are (fp8's per-tensor scales give the FP8 operands
/// their range, and the scaler skips a step with inf or NaN gradients).
bool usesLossScaling(LowPrecision precision);

/// canonicalize and cse, as every pipeline that builds a step ends.
void addCleanupPasses(mlir::OpPassManager &pm);

/// Appends the pipeline to `pm` (which must run on a ModuleOp): padding
/// (step=mixed), autodiff, the colouring (step=mixed) or the validation
/// probes (step=probed), accumulation, loss scaling (step=mixed or probed,
/// not for bf16), data parallelism, gradient probes, canonicalize and cse.
void buildAmpPipeline(mlir::OpPassManager &pm,
                      const AmpPipelineOptions &options);

/// Registers --amp-pipeline with the global pass registry.
void registerAmpPipeline();

} // namespace amp

#endif // AMP_TRANSFORMS_PIPELINE_H
