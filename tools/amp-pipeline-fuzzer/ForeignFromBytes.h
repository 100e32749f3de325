//===- ForeignFromBytes.h - Foreign IR decoded from bytes -------*- C++ -*-===//
//
// The fuzzer's third input kind: IR as other front ends emit it — linalg
// (matmuls, generics with arbitrary elementwise bodies, reductions,
// transposes, fills), tensor (pad, casts to dynamic and unranked shapes,
// slices), arith and math on tensors, TOSA, scf loops and branches and cf
// blocks — with dynamic batches, decoded deterministically from bytes with
// options for --amp-auto-mixed-precision. The pass must accept every such
// module and hand back IR that verifies, and accept its own output again.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_PIPELINE_FUZZER_FOREIGNFROMBYTES_H
#define AMP_TOOLS_AMP_PIPELINE_FUZZER_FOREIGNFROMBYTES_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <string>

namespace amp::fuzz {

struct DecodedForeign {
  /// MLIR text of one function `@forward`.
  std::string text;
  /// The --amp-auto-mixed-precision options, textual.
  std::string options;
};

DecodedForeign decodeForeign(llvm::ArrayRef<uint8_t> bytes);

} // namespace amp::fuzz

#endif // AMP_TOOLS_AMP_PIPELINE_FUZZER_FOREIGNFROMBYTES_H
