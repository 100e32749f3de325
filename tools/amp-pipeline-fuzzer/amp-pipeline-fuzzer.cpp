//===- amp-pipeline-fuzzer.cpp - libFuzzer entry points -------------------===//
//
// Feeds generated and mutated tg graphs through the amp pipeline, the
// lowering, the JIT and the CPU runtime (see PipelineHarness.h for the
// properties). Built with libFuzzer in the sanitizer build
// (scripts/sanitize.sh, scripts/fuzz.sh) and with DummyPipelineFuzzer.cpp's
// replay main everywhere else.
//
//===----------------------------------------------------------------------===//

#include "PipelineHarness.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  amp::fuzz::initializeHarness();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  amp::fuzz::runInput(llvm::ArrayRef<uint8_t>(data, size));
  return 0;
}
