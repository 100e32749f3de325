//===- Pipeline.h - The whole mixed-precision pipeline ----------*- C++ -*-===//
//
// --amp-pipeline: tg-autodiff, amp-auto-mixed-precision, amp-loss-scaling
// (skipped for bf16), canonicalize, cse, with every option passed through
// (Pipeline.td declares which passes' options the pipeline takes);
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

#include "amp/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace amp {

// AmpPipelineOptions (every option of the pipeline's passes, under the
// passes' own names, and the pipeline's own) and copyPipelineOptions(from,
// to) for each pass, generated from Pipeline.td.
#include "amp/Transforms/Pipeline.h.inc"

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
