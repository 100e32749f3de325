//===- StepRunner.h - Compile a step and bind it, from the IR ---*- C++ -*-===//
//
// The MLIR side of running a compiled step: read a function's signature
// (types, tg.role, tg.init, tg.init_value) into the training library's
// FunctionSpec, refuse what the runtime cannot hold, JIT-compile the
// lowered module, and write it as an object file with its manifest for
// hosts that have no MLIR. Running the step, step after step, is the
// training library's (amptrain/TrainingStep.h), shared with amp-train.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_STEPRUNNER_H
#define AMP_RUNNER_STEPRUNNER_H

#include "amp/Dialect/TG/IR/TG.h"
#include "amprt/amprt.h"
#include "amptrain/Fp8Scales.h"
#include "amptrain/Manifest.h"
#include "amptrain/TrainingStep.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>

namespace amp::runner {

using train::ContextPtr;
using train::StepFn;
using train::TensorPtr;
using train::TrainingStep;

/// The training library's failure as an llvm::Error.
llvm::Error toError(const train::Status &status);
template <typename T> llvm::Expected<T> toExpected(train::Expected<T> value) {
  if (!value)
    return toError(value.status());
  return std::move(*value);
}

/// A runtime context on `device`; the error says why there is none.
llvm::Expected<ContextPtr> createContext(amprt_device device, int ordinal = 0);

/// The runtime's element type for `element`, if it holds that type.
std::optional<amprt_dtype> dtypeOf(mlir::Type element);
/// `type` as the training library spells it; `type` must be statically
/// shaped with an element type the runtime holds (checkSignature).
train::TensorSpec specOf(mlir::RankedTensorType type);
/// A new, uninitialised runtime tensor of `type`.
llvm::Expected<TensorPtr> makeTensor(amprt_context *context,
                                     mlir::RankedTensorType type);
/// A tensor of `type` holding `values` (train::tensorFromFloats).
llvm::Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                           mlir::RankedTensorType type,
                                           const float *values);

//===----------------------------------------------------------------------===//
// The step's signature
//===----------------------------------------------------------------------===//

/// One function's tensor types and the tg.role, tg.init and tg.init_value
/// of every argument and result, as MLIR types (for hosts that build
/// tensors from the IR).
struct Signature {
  std::vector<mlir::RankedTensorType> argTypes, resultTypes;
  std::vector<std::optional<tg::Role>> argRoles, resultRoles;
  std::vector<tg::Initializer> argInits;
  /// tg.init_value of each argument (the first value of step state).
  std::vector<std::optional<double>> argInitValues;

  /// Reads `f`, which must be verified and have ranked tensor types only
  /// (checkSignature says so before lowering).
  static Signature of(mlir::func::FuncOp f);
};

/// `f`'s signature for the training library: types, tg.role, tg.init and
/// tg.init_value. `f` must pass checkSignature.
train::FunctionSpec specOf(mlir::func::FuncOp f);

/// Every argument and result of `f` must be a non-empty, statically shaped
/// tensor of a type the runtime holds, and the arguments must fit in
/// `memoryBytes`. Checked with overflow-safe sizes before anything is
/// allocated, so a hostile shape is an error, not an abort in an allocator.
llvm::Error checkSignature(mlir::func::FuncOp f, uint64_t memoryBytes);

/// The amax_history arguments of `step` and the format and margin of the
/// amp.fp8_scale that reads each (read before lowering).
std::vector<train::Fp8History> fp8HistoriesOf(mlir::func::FuncOp step);

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// A module lowered to the LLVM dialect, JIT-compiled.
class JitModule {
public:
  struct Options {
    llvm::CodeGenOptLevel optLevel = llvm::CodeGenOptLevel::Default;
  };
  static llvm::Expected<JitModule> create(mlir::ModuleOp module,
                                          const Options &options);
  /// The compiled step function `name`.
  llvm::Expected<StepFn> lookup(llvm::StringRef name) const;

private:
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// Compiles `module` (lowered to the LLVM dialect) ahead of time into a
/// position-independent ELF object at `path` (written to a temporary file,
/// then renamed) for `cpu` ("x86-64" runs on any x86-64 machine; "host" is
/// this one's), as the JIT compiles it: the same optimisation level and no
/// floating-point contraction the source does not write. Returns the
/// target triple.
llvm::Expected<std::string> emitObjectFile(mlir::ModuleOp module,
                                           llvm::StringRef path,
                                           llvm::StringRef cpu);

/// Writes `manifest` as indented JSON at `path`, atomically.
llvm::Error writeManifest(const train::Manifest &manifest,
                          llvm::StringRef path);

} // namespace amp::runner

#endif // AMP_RUNNER_STEPRUNNER_H
