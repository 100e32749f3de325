//===- GraphFromBytes.h - A training step decoded from bytes ----*- C++ -*-===//
//
// The fuzzer's structured half: a byte string decodes, deterministically, to
// a small valid training step (forward graph over [B, H] activations, a loss,
// tg.gradients for every param and an SGD update) plus the pipeline options
// to compile it with. Every byte string decodes to something, so libFuzzer's
// mutations explore graph shapes instead of the parser's error paths.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_PIPELINE_FUZZER_GRAPHFROMBYTES_H
#define AMP_TOOLS_AMP_PIPELINE_FUZZER_GRAPHFROMBYTES_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <string>

namespace amp::fuzz {

struct DecodedStep {
  /// MLIR text of `@train_step` (roles param/input/label/lr; loss first).
  std::string text;
  /// "f16" or "bf16".
  std::string precision;
  /// --amp-auto-mixed-precision level.
  std::string level;
  /// Static loss scale (a power of two).
  double lossScale = 1;
  /// Seeds the step's data and initial params.
  uint32_t dataSeed = 0;
};

DecodedStep decodeStep(llvm::ArrayRef<uint8_t> bytes);

} // namespace amp::fuzz

#endif // AMP_TOOLS_AMP_PIPELINE_FUZZER_GRAPHFROMBYTES_H
