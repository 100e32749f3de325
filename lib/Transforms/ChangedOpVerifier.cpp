//===- ChangedOpVerifier.cpp - Verify what a rewrite changed --------------===//

#include "ChangedOpVerifier.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/Hashing.h"

using namespace mlir;

namespace amp {

ChangedOpVerifier::ChangedOpVerifier(MLIRContext *context)
    : context(context), tg(context->getLoadedDialect<tg::TGDialect>()),
      amp(context->getLoadedDialect<AMPDialect>()) {}

bool ChangedOpVerifier::verifiesLocally(Operation *op) const {
  Dialect *dialect = op->getDialect();
  if (!dialect || (dialect != tg && dialect != amp) ||
      op->getNumRegions() != 0 || op->getNumSuccessors() != 0)
    return false;
  // Discardable attributes are checked by their dialect's verifier: only
  // tg's and amp's are known to read the attribute alone.
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    Dialect *owner = attr.getNameDialect();
    if (owner != tg && owner != amp)
      return false;
  }
  return true;
}

bool ChangedOpVerifier::sameSignature(Operation *a, Operation *b) {
  return a->getName() == b->getName() &&
         a->getRawDictionaryAttrs() == b->getRawDictionaryAttrs() &&
         a->getName().compareOpProperties(a->getPropertiesStorage(),
                                          b->getPropertiesStorage()) &&
         llvm::equal(a->getOperandTypes(), b->getOperandTypes()) &&
         llvm::equal(a->getResultTypes(), b->getResultTypes());
}

LogicalResult ChangedOpVerifier::verifyCapturing(Operation *op,
                                                 bool withRegions) {
  ++numVerified;
  std::string said;
  LogicalResult result = success();
  {
    // Installed only around a real verification: most ops are answered
    // from the cache and need no handler.
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        said += (said.empty() ? "" : "; ") + diag.str();
      return success();
    });
    result = mlir::verify(op, withRegions);
  }
  if (failed(result)) {
    brokenName = op->getName();
    brokenLoc = op->getLoc();
    messages = std::move(said);
  }
  return result;
}

LogicalResult ChangedOpVerifier::verify(Operation *op, bool withRegions) {
  if (foundBroken())
    return failure();
  if (!verifiesLocally(op))
    return verifyCapturing(op, withRegions);
  // Ops of one name mostly repeat one signature: try the last one first.
  Operation *&last = lastVerified[op->getName()];
  if (last && sameSignature(op, last)) {
    ++numShared;
    return success();
  }
  llvm::hash_code hash = llvm::hash_combine(
      op->getName().getAsOpaquePointer(),
      op->getRawDictionaryAttrs().getAsOpaquePointer(), op->hashProperties(),
      llvm::hash_combine_range(op->getOperandTypes()),
      llvm::hash_combine_range(op->getResultTypes()));
  SmallVector<Operation *, 1> &bucket = verified[static_cast<unsigned>(hash)];
  if (llvm::any_of(bucket,
                   [&](Operation *seen) { return sameSignature(op, seen); })) {
    ++numShared;
    return success();
  }
  if (failed(verifyCapturing(op, /*withRegions=*/false)))
    return failure();
  bucket.push_back(op);
  last = op;
  return success();
}

} // namespace amp
