//===- ChangedOpVerifier.h - Verify what a rewrite changed ------*- C++ -*-===//
//
// The pass checks the ops it changed before handing the IR back, so that a
// defect of the pass or of an op's precision model is reported as such. On
// large graphs that check verified the same few op signatures tens of
// thousands of times (every f16 matmul of one shape, every cast between two
// types): a third of the pass. The ops of amp's own dialects (tg, amp) have
// no regions or successors and verifiers that read only the op's name,
// attributes and operand and result types, so one op per distinct
// signature is verified and the others take its answer. Every other op
// (linalg, tosa, loops, ops with regions) is verified on its own.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_CHANGEDOPVERIFIER_H
#define AMP_LIB_TRANSFORMS_CHANGEDOPVERIFIER_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace amp {

class ChangedOpVerifier {
public:
  explicit ChangedOpVerifier(mlir::MLIRContext *context);

  /// mlir::verify(op, withRegions), answered from an equal op verified
  /// before where the op's verifier is known to read nothing else. The
  /// first op that fails is kept with its error messages; no diagnostic
  /// reaches the context.
  mlir::LogicalResult verify(mlir::Operation *op, bool withRegions);

  /// Drops the ops kept as answers: call before erasing ops it verified
  /// (they are compared with later ops until then).
  void forgetVerifiedOps() {
    verified.clear();
    lastVerified.clear();
  }

  /// Whether an op failed; once one has, every later call fails at once.
  bool foundBroken() const { return brokenName.has_value(); }
  /// The first op that failed (kept by name and location: the pass may
  /// erase ops after checking them), and what its verifier said.
  mlir::OperationName getBrokenName() const { return *brokenName; }
  mlir::Location getBrokenLoc() const { return *brokenLoc; }
  llvm::StringRef getMessages() const { return messages; }

  /// Ops verified, and ops answered from an equal one (for tests).
  unsigned numVerified = 0, numShared = 0;

private:
  mlir::LogicalResult verifyCapturing(mlir::Operation *op, bool withRegions);
  bool verifiesLocally(mlir::Operation *op) const;
  static bool sameSignature(mlir::Operation *a, mlir::Operation *b);

  mlir::MLIRContext *context;
  mlir::Dialect *tg, *amp;
  std::optional<mlir::OperationName> brokenName;
  std::optional<mlir::Location> brokenLoc;
  std::string messages;
  /// Verified ops by signature hash (ops that failed are never stored).
  llvm::DenseMap<unsigned, llvm::SmallVector<mlir::Operation *, 1>> verified;
  /// The op of each name verified last, compared before hashing.
  llvm::DenseMap<mlir::OperationName, mlir::Operation *> lastVerified;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_CHANGEDOPVERIFIER_H
