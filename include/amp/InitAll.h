//===- InitAll.h - Register every amp dialect and pass ----------*- C++ -*-===//
//
// The one header a compiler that embeds amp includes to make amp's dialects
// and passes available.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INITALL_H
#define AMP_INITALL_H

#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "amp/Transforms/PrecisionPolicy.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace amp {

/// Adds the `tg` and `amp` dialects (and what they depend on) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Both of the above plus the external models that let upstream ops
/// (arith, math, linalg, tensor, func.call) join the precision policy.
void registerAllPrecisionModelsAndDialects(mlir::DialectRegistry &registry);

/// The external models that let upstream ops join the precision policy
/// (declared in amp/Interfaces/PrecisionPolicyInterface.h):
///   amp::registerAllPrecisionModels(registry);
/// Classes for ops by name at run time (amp/Transforms/PrecisionPolicy.h):
///   amp::registerPrecisionClass("mydialect.conv", amp::PrecisionClass::Allow);

/// Everything a context needs to parse a training step in any upstream
/// dialect, run amp's pipelines on it, lower it and hand it to MLIR's
/// ExecutionEngine: all upstream dialects and extensions, amp's dialects and
/// precision models, and the builtin/LLVM translations to LLVM IR. Hosts
/// that JIT steps (amp-run, the examples, the tests, the fuzzer) share it.
void registerAllForJit(mlir::DialectRegistry &registry);

/// Initialises the native target and its asm printer for the JIT; calling
/// it more than once is harmless.
void initializeJitTarget();

/// Registers every amp pass and pipeline with the global pass registry, so
/// they parse from textual pipelines and command lines.
void registerAllPasses();

} // namespace amp

#endif // AMP_INITALL_H
