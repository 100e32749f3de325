//===- PipelineHarness.h - One fuzz input, compiled and run -----*- C++ -*-===//
//
// The properties amp-pipeline-fuzzer checks on each input, shared by the
// libFuzzer entry point and the replay driver that the test suite runs
// without libFuzzer:
//  - text inputs (the first byte printable) are parsed as MLIR; what parses
//    goes through the f16 amp pipeline and, when it is a training step of
//    modest size, through lowering, the JIT and one CPU runtime step. Errors
//    are fine; crashes, sanitizer reports and invalid IR after a pass are not;
//  - binary inputs whose mode byte is below 0x20 decode to foreign IR
//    (ForeignFromBytes.h: linalg, tensor, scf, cf, TOSA, dynamic and unranked
//    shapes) that --amp-auto-mixed-precision, under decoded options, must
//    accept and return verified, twice;
//  - other binary inputs decode to a valid training step (GraphFromBytes.h) that
//    must compile in f32 and in f16/bf16 and run; where the f32 values are in
//    range the low-precision loss and gradients must match f32 within the
//    type's tolerance, and no param may end up inf or NaN.
// A violated property prints the input's IR and aborts, which is what
// libFuzzer records as a crash.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_PIPELINE_FUZZER_PIPELINEHARNESS_H
#define AMP_TOOLS_AMP_PIPELINE_FUZZER_PIPELINEHARNESS_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace amp::fuzz {

/// Once per process: native target for the JIT, quiet LLVM crash handlers.
void initializeHarness();

/// Runs one input; aborts on a property violation.
void runInput(llvm::ArrayRef<uint8_t> bytes);

} // namespace amp::fuzz

#endif // AMP_TOOLS_AMP_PIPELINE_FUZZER_PIPELINEHARNESS_H
