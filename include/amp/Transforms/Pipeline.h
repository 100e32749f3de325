//===- Pipeline.h - The whole mixed-precision pipeline ----------*- C++ -*-===//
//
// --amp-pipeline: tg-autodiff, amp-auto-mixed-precision, amp-loss-scaling
// (skipped for bf16), canonicalize, cse, with every option passed through.
// Another compiler embeds it with one call:
//
//   amp::AmpPipelineOptions options;
//   options.precision = "bf16";
//   amp::buildAmpPipeline(pm, options);
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PIPELINE_H
#define AMP_TRANSFORMS_PIPELINE_H

#include "amp/Transforms/LossScalingDefaults.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace amp {

struct AmpPipelineOptions
    : public mlir::PassPipelineOptions<AmpPipelineOptions> {
  // --amp-auto-mixed-precision.
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("f16, bf16 or fp8 (bf16 with FP8 contraction operands)"),
      llvm::cl::init("f16")};
  Option<std::string> fp8Format{
      *this, "fp8-format",
      llvm::cl::desc("precision=fp8: hybrid (E5M2 gradients) or e4m3"),
      llvm::cl::init("hybrid")};
  Option<std::string> fp8Scaling{
      *this, "fp8-scaling",
      llvm::cl::desc("precision=fp8: delayed (amax history) or current"),
      llvm::cl::init("delayed")};
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
  Option<std::string> level{
      *this, "level",
      llvm::cl::desc("default, tensor-cores-only, infer-as-deny, force-all"),
      llvm::cl::init("default")};
  Option<bool> keepIoTypes{*this, "keep-io-types",
                           llvm::cl::desc("Keep function signatures"),
                           llvm::cl::init(true)};
  Option<std::string> constantOverflow{*this, "constant-overflow",
                                       llvm::cl::desc("keep-f32 or saturate"),
                                       llvm::cl::init("keep-f32")};
  Option<std::string> castOp{*this, "cast-op",
                             llvm::cl::desc("auto, amp, arith or tosa"),
                             llvm::cl::init("auto")};
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
  Option<std::string> mode{*this, "mode",
                           llvm::cl::desc("dynamic, static or none"),
                           llvm::cl::init("dynamic")};
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
  Option<std::string> gradComm{
      *this, "grad-comm",
      llvm::cl::desc("Wire type of gradients: f32, f16 or bf16 (implies "
                     "data-parallel)"),
      llvm::cl::init("f32")};
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

/// Appends the pipeline to `pm` (which must run on a ModuleOp).
void buildAmpPipeline(mlir::OpPassManager &pm,
                      const AmpPipelineOptions &options);

/// Registers --amp-pipeline with the global pass registry.
void registerAmpPipeline();

} // namespace amp

#endif // AMP_TRANSFORMS_PIPELINE_H
