//===- Pipeline.cpp - The whole mixed-precision pipeline ------------------===//

#include "amp/Transforms/Pipeline.h"
#include "amp/Dialect/TG/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void amp::buildAmpPipeline(OpPassManager &pm,
                           const AmpPipelineOptions &options) {
  // Padding goes before autodiff, so the backward contractions run on the
  // padded shapes too.
  if (options.padTensorCores) {
    PadForTensorCoresPassOptions pad;
    pad.precision = options.precision;
    pm.addPass(createPadForTensorCoresPass(pad));
  }
  pm.addPass(createTGAutodiffPass());

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

  // After the colouring (which sees one micro-batch) and before loss
  // scaling, which scales every micro-batch's seed alike.
  if (options.accumulate != 1) {
    AccumulateGradientsPassOptions accumulate;
    accumulate.microBatches = options.accumulate;
    pm.addPass(createAccumulateGradientsPass(accumulate));
  }

  if (usesLossScaling(options.precision)) {
    LossScalingPassOptions scaling;
    scaling.mode = options.mode;
    scaling.initScale = options.initScale;
    scaling.growthFactor = options.growthFactor;
    scaling.backoffFactor = options.backoffFactor;
    scaling.growthInterval = options.growthInterval;
    scaling.minScale = options.minScale;
    scaling.maxScale = options.maxScale;
    pm.addPass(createLossScalingPass(scaling));
  }
  if (options.dataParallel || options.gradComm.hasValue() ||
      options.bucketBytes.hasValue()) {
    DataParallelPassOptions parallel;
    parallel.gradComm = options.gradComm;
    parallel.bucketBytes = options.bucketBytes;
    parallel.reduceAmax = options.reduceAmax;
    pm.addPass(createDataParallelPass(parallel));
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
      "precision (f16, bf16, fp8), gradient accumulation (accumulate), "
      "loss scaling "
      "(skipped for bf16), "
      "data parallelism (data-parallel, grad-comm), canonicalize and cse",
      buildAmpPipeline);
}
