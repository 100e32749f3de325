//===- PrecisionPolicy.h - Lists, levels and the target type ----*- C++ -*-===//
//
// What --amp-auto-mixed-precision decides with: the low-precision type, the
// level, and user lists that move ops between classes. An op's class comes
// from `amp.precision`, then the user lists, then the op's
// PrecisionPolicyOpInterface; an op none of them knows stays f32.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PRECISIONPOLICY_H
#define AMP_TRANSFORMS_PRECISIONPOLICY_H

#include "amp/Interfaces/PrecisionPolicyInterface.h"
#include "mlir/IR/Location.h"
#include "amp/Transforms/PassOptions.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace amp {

/// User-supplied list contents, by class.
struct PrecisionLists {
  std::vector<std::string> allow, infer, clear, deny;

  /// The lists a pass's allow / infer / clear / deny options give.
  template <typename Range>
  static PrecisionLists of(const Range &allow, const Range &infer,
                           const Range &clear, const Range &deny) {
    PrecisionLists lists;
    lists.allow.assign(allow.begin(), allow.end());
    lists.infer.assign(infer.begin(), infer.end());
    lists.clear.assign(clear.begin(), clear.end());
    lists.deny.assign(deny.begin(), deny.end());
    return lists;
  }
};

class PrecisionPolicy {
public:
  /// Loads `listsFile` (if not empty); emits at `loc` and fails on a bad
  /// file or an op named twice. An fp8 graph is coloured as a bf16 graph
  /// (its contraction operands become FP8 after the colouring).
  static llvm::FailureOr<PrecisionPolicy>
  create(mlir::MLIRContext *context, mlir::Location loc,
         LowPrecision precision, PrecisionLevel level,
         const PrecisionLists &optionLists, llvm::StringRef listsFile);

  mlir::FloatType getLowType() const { return lowType; }
  PrecisionLevel getLevel() const { return level; }

  /// The op's class, or std::nullopt when nothing knows the op. `iface` is
  /// the op's interface (null when it has none), looked up once by callers.
  std::optional<PrecisionClass>
  getClass(mlir::Operation *op, PrecisionPolicyOpInterface iface) const;
  std::optional<PrecisionClass> getClass(mlir::Operation *op) const {
    return getClass(op, llvm::dyn_cast<PrecisionPolicyOpInterface>(op));
  }

  /// Whether a user list or registerPrecisionClass names the op.
  bool isListed(mlir::Operation *op) const {
    return getListedClass(op->getName()).has_value();
  }
  /// The class a list or registerPrecisionClass gives ops named `name`
  /// (the same for every op of that name, so callers may cache it).
  std::optional<PrecisionClass> getListedClass(mlir::OperationName name) const;
  /// The class of an op no list names: its model's answer, if it has one.
  std::optional<PrecisionClass>
  getModelClass(PrecisionPolicyOpInterface iface) const;

  /// The interface's answers, with defaults for ops known only by name.
  static bool isPrecisionOperand(mlir::Operation *op,
                                 PrecisionPolicyOpInterface iface,
                                 unsigned index);
  static bool isPrecisionResult(mlir::Operation *op,
                                PrecisionPolicyOpInterface iface,
                                unsigned index);
  static bool supports(mlir::Operation *op, PrecisionPolicyOpInterface iface,
                       mlir::FloatType type);

private:
  mlir::FloatType lowType;
  PrecisionLevel level = PrecisionLevel::Default;
  llvm::StringMap<PrecisionClass> overrides;
  /// A snapshot of registerPrecisionClass's registry.
  llvm::StringMap<PrecisionClass> named;
};

/// Gives ops named `opName` (dialect.op) a class at run time, for compilers
/// that cannot attach the interface to their ops: consulted after the user
/// lists and before the interface. Thread-safe; a later call wins.
void registerPrecisionClass(llvm::StringRef opName, PrecisionClass cls);

/// Parses a lists file's text; `error` receives a message on failure.
llvm::FailureOr<PrecisionLists> parseListsFile(llvm::StringRef text,
                                               std::string &error);

} // namespace amp

#endif // AMP_TRANSFORMS_PRECISIONPOLICY_H
