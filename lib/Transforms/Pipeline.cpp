//===- Pipeline.cpp - The whole mixed-precision pipeline ------------------===//

#include "amp/Transforms/Pipeline.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// The colouring: the precision pass (step=mixed) or, in its place, the
/// probes that measure what it would do (step=probed).
static void addColouring(OpPassManager &pm,
                         const amp::AmpPipelineOptions &options) {
  using namespace amp;
  if (options.step == PipelineStep::Probed) {
    ValidationProbesPassOptions probes;
    copyPolicyOptions(options, probes);
    probes.functions.assign(options.probeFunctions.begin(),
                            options.probeFunctions.end());
    pm.addPass(createValidationProbesPass(probes));
    return;
  }
  AutoMixedPrecisionPassOptions amp;
  copyPolicyOptions(options, amp);
  amp.fp8Scaling = options.fp8Scaling;
  amp.amaxHistoryLen = options.amaxHistoryLen;
  amp.keepIoTypes = options.keepIoTypes;
  amp.castOp = options.castOp;
  amp.annotate = options.annotate;
  amp.reportPath = options.report;
  amp.remarks = options.remarks;
  amp.tensorCoreSummary = options.tensorCoreSummary;
  pm.addPass(createAutoMixedPrecisionPass(amp));
}

static void addLossScaling(OpPassManager &pm,
                           const amp::AmpPipelineOptions &options) {
  amp::LossScalingPassOptions scaling;
  scaling.mode = options.mode;
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.minScale = options.minScale;
  scaling.maxScale = options.maxScale;
  pm.addPass(amp::createLossScalingPass(scaling));
}

static void addDataParallel(OpPassManager &pm,
                            const amp::AmpPipelineOptions &options) {
  amp::DataParallelPassOptions parallel;
  parallel.gradComm = options.gradComm;
  parallel.bucketBytes = options.bucketBytes;
  parallel.reduceAmax = options.reduceAmax;
  pm.addPass(amp::createDataParallelPass(parallel));
}

void amp::buildAmpPipeline(OpPassManager &pm,
                           const AmpPipelineOptions &options) {
  bool lowPrecision = options.step != PipelineStep::F32;
  // Padding goes before autodiff, so the backward contractions run on the
  // padded shapes too.
  if (options.step == PipelineStep::Mixed && options.padTensorCores) {
    PadForTensorCoresPassOptions pad;
    pad.precision = options.precision;
    pm.addPass(createPadForTensorCoresPass(pad));
  }
  pm.addPass(createTGAutodiffPass());
  if (lowPrecision)
    addColouring(pm, options);

  // After the colouring (which sees one micro-batch) and before loss
  // scaling, which scales every micro-batch's seed alike.
  if (options.accumulate != 1) {
    AccumulateGradientsPassOptions accumulate;
    accumulate.microBatches = options.accumulate;
    pm.addPass(createAccumulateGradientsPass(accumulate));
  }
  // The probed step is scaled as the mixed one is, so its backward ops see
  // the same values.
  if (lowPrecision && usesLossScaling(options.precision))
    addLossScaling(pm, options);
  if (options.dataParallel || options.gradComm.hasValue() ||
      options.bucketBytes.hasValue())
    addDataParallel(pm, options);
  if (!options.probeGradients.empty()) {
    ValidationProbesPassOptions gradients;
    gradients.ops = false;
    gradients.gradients = true;
    gradients.functions.assign(options.probeGradients.begin(),
                               options.probeGradients.end());
    pm.addPass(createValidationProbesPass(gradients));
  }
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
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-pipeline",
      "Tensor Core padding (pad-tensor-cores), autodiff, automatic mixed "
      "precision (f16, bf16, fp8; step=probed: validation probes instead; "
      "step=f32: none), gradient accumulation (accumulate), loss scaling "
      "(skipped for bf16 and step=f32), data parallelism (data-parallel, "
      "grad-comm), gradient probes (probe-gradients), canonicalize and cse",
      buildAmpPipeline);
}
