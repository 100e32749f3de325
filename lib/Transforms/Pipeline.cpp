//===- Pipeline.cpp - The whole mixed-precision pipeline ------------------===//

#include "amp/Transforms/Pipeline.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Adds the pass `create` makes, given the pipeline's options for it.
template <typename PassOptions>
static void addConfigured(OpPassManager &pm,
                          const amp::AmpPipelineOptions &options,
                          std::unique_ptr<Pass> (*create)(PassOptions)) {
  PassOptions passOptions;
  amp::copyPipelineOptions(options, passOptions);
  pm.addPass(create(passOptions));
}

/// The colouring: the precision pass (step=mixed) or, in its place, the
/// probes that measure what it would do (step=probed).
static void addColouring(OpPassManager &pm,
                         const amp::AmpPipelineOptions &options) {
  using namespace amp;
  if (options.step == PipelineStep::Probed)
    addConfigured<ValidationProbesPassOptions>(pm, options,
                                               createValidationProbesPass);
  else
    addConfigured<AutoMixedPrecisionPassOptions>(pm, options,
                                                 createAutoMixedPrecisionPass);
}

/// The probes that return each optimizer's gradient's sum of squares in
/// the functions `probe-gradients` names; they colour nothing, so no
/// policy option reaches them.
static void addGradientProbes(OpPassManager &pm,
                              const amp::AmpPipelineOptions &options) {
  amp::ValidationProbesPassOptions gradients;
  gradients.ops = false;
  gradients.gradients = true;
  gradients.functions.assign(options.probeGradients.begin(),
                             options.probeGradients.end());
  pm.addPass(amp::createValidationProbesPass(gradients));
}

void amp::buildAmpPipeline(OpPassManager &pm,
                           const AmpPipelineOptions &options) {
  bool lowPrecision = options.step != PipelineStep::F32;
  // Padding goes before autodiff, so the backward contractions run on the
  // padded shapes too.
  if (options.step == PipelineStep::Mixed && options.padTensorCores)
    addConfigured<PadForTensorCoresPassOptions>(pm, options,
                                                createPadForTensorCoresPass);
  pm.addPass(createTGAutodiffPass());
  if (lowPrecision)
    addColouring(pm, options);

  // After the colouring (which sees one micro-batch) and before loss
  // scaling, which scales every micro-batch's seed alike.
  if (options.accumulate != 1)
    addConfigured<AccumulateGradientsPassOptions>(
        pm, options, createAccumulateGradientsPass);
  // The probed step is scaled as the mixed one is, so its backward ops see
  // the same values.
  if (lowPrecision && usesLossScaling(options.precision))
    addConfigured<LossScalingPassOptions>(pm, options, createLossScalingPass);
  if (options.dataParallel || options.gradComm.hasValue() ||
      options.bucketBytes.hasValue())
    addConfigured<DataParallelPassOptions>(pm, options, createDataParallelPass);
  if (!options.probeGradients.empty())
    addGradientProbes(pm, options);
  addCleanupPasses(pm);
}

bool amp::usesLossScaling(LowPrecision precision) {
  return precision != LowPrecision::BF16;
}

void amp::addCleanupPasses(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void amp::registerAmpPipeline() {
  PassPipelineRegistration<AmpPipelineOptions>(AmpPipelineOptions::argument,
                                               AmpPipelineOptions::summary,
                                               buildAmpPipeline);
}
