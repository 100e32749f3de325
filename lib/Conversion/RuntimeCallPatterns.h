//===- RuntimeCallPatterns.h - Steps as runtime calls -----------*- C++ -*-===//
//
// --amp-lower-to-runtime converts each fused step function with dialect
// conversion: tensors become `amprt_tensor *` handles (RuntimeTypeConverter),
// the function becomes `i32 @step(ctx, args, results)`, each op with a
// RuntimeLoweringOpInterface becomes its runtime calls, constants become
// tensors filled or written from globals, and the return stores the
// results and returns the context's status. What the IR stops saying once
// conversion starts moving it (where each tensor is read last, which
// results the caller gets a copy of) is planned on the tensor form first:
// a StepPlan per function.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_RUNTIMECALLPATTERNS_H
#define AMP_LIB_CONVERSION_RUNTIMECALLPATTERNS_H

#include "BufferLifetimes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

namespace amp {

/// Ranked, statically shaped tensors of a runtime element type become
/// `!llvm.ptr` (an `amprt_tensor *`); other types are left alone.
class RuntimeTypeConverter : public mlir::TypeConverter {
public:
  explicit RuntimeTypeConverter(mlir::MLIRContext *context);
};

/// What converting one step function needs to know of its tensor form.
struct StepPlan {
  /// The releases around each op (planReleases).
  llvm::DenseMap<mlir::Operation *, OpReleases> releases;
  /// Per returned value: whether the caller gets a copy (a returned
  /// argument, or a value returned twice, so each result can be freed).
  llvm::SmallVector<bool> copied;
  /// LLVM globals made for the step's constants so far (their names).
  unsigned globals = 0;
};

/// The plans of a module's steps, by function name, and what the patterns
/// report back.
struct StepPlans {
  llvm::StringMap<StepPlan> steps;
  /// Whether results may take over a dying operand's storage.
  bool inPlace = true;
  unsigned inPlaceResults = 0;
  /// Errors emitted while the steps convert (counted by the pass), and
  /// whether a pattern's own error is among them: the driver's "failed to
  /// legalize" that follows it says nothing more.
  unsigned errors = 0;
  bool reported = false;

  /// Plans `func` (single-block, fused, tensor form).
  void plan(mlir::func::FuncOp func);
  /// The plan of the step `op` lies in (by its function's name), or null
  /// for an op outside every planned step.
  StepPlan *of(mlir::Operation *op);
  /// The releases planned for `op`, or null for an op the plan did not see
  /// (one a lowering rule made).
  const OpReleases *releasesOf(mlir::Operation *op);
};

/// The patterns that turn planned step functions into runtime calls.
void populateRuntimeCallPatterns(RuntimeTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 StepPlans &plans);

/// Makes a target where what populateRuntimeCallPatterns produces is legal
/// and every tensor-typed op of a step, its function and its return are
/// not (ops inside a fused op's region go with it).
mlir::ConversionTarget runtimeCallTarget(mlir::MLIRContext &context);

} // namespace amp

#endif // AMP_LIB_CONVERSION_RUNTIMECALLPATTERNS_H
