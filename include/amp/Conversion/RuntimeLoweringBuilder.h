//===- RuntimeLoweringBuilder.h - Runtime calls for one step ---*- C++ -*-===//
//
// What a runtime lowering (RuntimeLoweringOpInterface::lowerToRuntime) works
// with: the builder and location of the op being lowered, the runtime
// tensor handle of every value lowered so far, and calls of the runtime's C
// entries. The step function around the calls (arguments, results, freeing
// each intermediate after its last use, the returned status) belongs to
// --amp-lower-to-runtime, not to the rules.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_RUNTIMELOWERINGBUILDER_H
#define AMP_CONVERSION_RUNTIMELOWERINGBUILDER_H

#include "amp/Conversion/RuntimeABI.h"
#include "amp/Interfaces/RuntimeLoweringOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace amp {

/// Emits runtime calls for the ops of one step function.
class RuntimeLoweringBuilder {
public:
  /// Lowers into `module`, with `context` the step's `amprt_context *`.
  RuntimeLoweringBuilder(mlir::ModuleOp module, mlir::OpBuilder &builder,
                         mlir::Value context)
      : module(module), b(builder), ctx(context),
        loc(mlir::UnknownLoc::get(builder.getContext())) {}

  /// Where the calls go, and the location of the op being lowered.
  mlir::OpBuilder &builder() { return b; }
  mlir::Location getLoc() const { return loc; }
  void setLoc(mlir::Location location) { loc = location; }
  /// The step's `amprt_context *`, the first argument of most entries.
  mlir::Value context() const { return ctx; }

  /// The `amprt_tensor *` that holds `value` (an operand of the op being
  /// lowered: a step argument or a result lowered before).
  mlir::Value handle(mlir::Value value) const { return handles.lookup(value); }
  void setHandle(mlir::Value value, mlir::Value tensor) {
    handles[value] = tensor;
  }
  /// Whether the step frees `value` right after the op being lowered and
  /// never reads it again (its last use, neither an argument nor a
  /// result): a rule may then let a result take over its storage.
  bool diesHere(mlir::Value value) const { return dying.contains(value); }
  void setDying(llvm::ArrayRef<mlir::Value> values) {
    dying.clear();
    dying.insert(values.begin(), values.end());
    taken.clear();
  }
  /// New runtime tensors for the results of `op`, recorded as their
  /// handles; the pass frees them after their last use.
  llvm::SmallVector<mlir::Value> newResults(mlir::Operation *op);
  /// The result of an elementwise `op` (one result; every output element
  /// reads only the operand elements at its own index, broadcast operands
  /// aside): the storage of the first operand that dies at `op` and has
  /// the result's type, when the pass allows it, so the kernel writes over
  /// its input (no new tensor, and the output lands in cache lines the
  /// input brought in); else a new tensor.
  mlir::Value elementwiseResult(mlir::Operation *op);
  /// elementwiseResult for `result` written elementwise from `operands`
  /// (a fused op's inputs): the storage of one that dies here, or a new
  /// tensor.
  mlir::Value resultOver(mlir::Value result, mlir::ValueRange operands);
  /// Whether the op being lowered gave `value`'s storage to its result: the
  /// pass then does not free it.
  bool tookStorageOf(mlir::Value value) const { return taken.contains(value); }
  /// Whether elementwiseResult may reuse operands (the pass's option).
  void setInPlaceElementwise(bool allowed) { inPlace = allowed; }
  unsigned numInPlaceResults() const { return inPlaceResults; }
  /// A new runtime tensor of the ranked tensor type `type`.
  mlir::Value newTensor(mlir::Type type);

  /// Constants and arrays the entries take (arrays live on the stack).
  mlir::Value constI32(int64_t value);
  mlir::Value constI64(int64_t value);
  mlir::Value constF64(double value);
  mlir::Value i64Array(llvm::ArrayRef<int64_t> values);
  mlir::Value f64Array(llvm::ArrayRef<double> values);
  mlir::Value ptrArray(mlir::ValueRange values);
  /// NULL, for an optional tensor an entry is not given.
  mlir::Value nullPointer();

  /// Calls the C function `name` of type `type`, declaring it once per
  /// module; returns its result, or null when it returns nothing.
  mlir::Value call(llvm::StringRef name, mlir::FunctionType type,
                   mlir::ValueRange args);
  /// Calls a C function that returns an `amprt_status` and records the
  /// status on the context (the context keeps the first failure).
  void callChecked(llvm::StringRef name, mlir::FunctionType type,
                   mlir::ValueRange args);

  /// The same for an entry of amprt.h named with AMPRT_ENTRY(fn): its type
  /// comes from the C declaration and the argument count is checked when
  /// the caller compiles. The arguments are a braced list,
  /// `callChecked(AMPRT_ENTRY(amprt_pad), {ctx, x, rt.i64Array(low), ...})`:
  /// a braced list is evaluated left to right (a function call's arguments
  /// are not), so the constants and arrays the arguments build are emitted
  /// in the order they are written, whichever compiler built amp.
  template <typename Fn, size_t N>
  mlir::Value call(abi::Entry<Fn> entry, const mlir::Value (&args)[N]) {
    static_assert(N == abi::Entry<Fn>::arity,
                  "argument count differs from the amprt.h declaration");
    return call(entry.name, entry.type(b.getContext()),
                mlir::ValueRange(llvm::ArrayRef<mlir::Value>(args)));
  }
  template <typename Fn, size_t N>
  void callChecked(abi::Entry<Fn> entry, const mlir::Value (&args)[N]) {
    static_assert(std::is_same_v<typename abi::Entry<Fn>::Result, amprt_status>,
                  "callChecked is for entries that return amprt_status");
    recordStatus(call(entry, args));
  }

private:
  void recordStatus(mlir::Value status);

  mlir::ModuleOp module;
  mlir::OpBuilder &b;
  mlir::Value ctx;
  mlir::Location loc;
  llvm::DenseMap<mlir::Value, mlir::Value> handles;
  llvm::DenseSet<mlir::Value> dying, taken;
  bool inPlace = true;
  unsigned inPlaceResults = 0;
};

/// The lowering of an op that computes the runtime's elementwise function
/// `step` names (RuntimeLoweringOpInterface::getElementwiseStep): its
/// amprt_<name> entry of amprt_unary.def or amprt_binary.def on the op's
/// operands, into a result that may take a dying operand's storage. An
/// error on the op for a code that is no such function.
llvm::LogicalResult lowerElementwiseStep(RuntimeLoweringBuilder &lowering,
                                         mlir::Operation *op,
                                         ElementwiseStep step);

/// Attaches RuntimeLoweringOpInterface to the tg and amp ops that run on
/// the runtime, and to the amprt ops (registerFusedOpLowerings).
/// --amp-lower-to-runtime registers it itself; embedders that build their
/// own registry call it, as InitAll does.
void registerTGToRuntimeLowerings(mlir::DialectRegistry &registry);
/// Attaches RuntimeLoweringOpInterface to the amprt ops.
void registerFusedOpLowerings(mlir::DialectRegistry &registry);

} // namespace amp

#endif // AMP_CONVERSION_RUNTIMELOWERINGBUILDER_H
