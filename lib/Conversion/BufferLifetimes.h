//===- BufferLifetimes.h - Where a step's tensors are read last -*- C++ -*-===//
//
// --amp-lower-to-runtime releases each intermediate tensor right after the
// op that reads its storage for the last time. Storage is shared in two
// ways after --amp-fuse-for-runtime: an amprt.cast_on_read's result is its
// input's tensor, and an amprt.view's result views its input's storage.
// Each value's last reader comes from mlir::Liveness; the storage lives
// until the last reader of any value that shares it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_BUFFERLIFETIMES_H
#define AMP_LIB_CONVERSION_BUFFERLIFETIMES_H

#include "mlir/Analysis/Liveness.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace amp {

/// The last reads of the values of one single-block function, by op
/// position. Each answer is kept, so a value read by many ops (the
/// learning rate, by every update) costs its readers once.
class BufferLifetimes {
public:
  explicit BufferLifetimes(mlir::Operation *func);

  /// Position of each op of the function's block.
  unsigned positionOf(mlir::Operation *op) const { return position.lookup(op); }
  /// The value whose tensor `v` is (through casts on read), else `v`.
  mlir::Value sharedHandle(mlir::Value v) const;
  /// The value that owns `v`'s storage: through casts on read and views.
  mlir::Value storage(mlir::Value v) const;
  /// Whether `v` is an amprt.view's result (a handle of its own).
  bool isView(mlir::Value v) const;
  /// The last read of `v`'s storage, through every value that shares it.
  int64_t lastUse(mlir::Value v);
  /// The last read of `v`'s handle: `v` and the casts on read of it.
  int64_t lastDirectUse(mlir::Value v);

private:
  /// The last op that reads `v` itself (-1: none).
  int64_t lastRead(mlir::Value v) const;

  mlir::Block &body;
  mlir::Liveness liveness;
  llvm::DenseMap<mlir::Operation *, unsigned> position;
  llvm::DenseMap<mlir::Value, int64_t> lastUses, lastDirectUses;
};

/// What the step frees around one op, as values of the tensor form (the
/// lowering's patterns look their handles up while the IR changes).
struct OpReleases {
  /// Storages the op reads for the last time, in operand order: a rule
  /// may give one to its result (RuntimeLoweringBuilder::diesHere), the
  /// step frees the rest after the op.
  llvm::SmallVector<mlir::Value, 4> dying;
  /// The op's results nothing reads, freed right after it.
  llvm::SmallVector<mlir::Value, 2> unread;
  /// Views the op reads for the last time (the view goes, not its storage).
  llvm::SmallVector<mlir::Value, 2> views;
};

/// The releases of every op of a single-block step function whose
/// block's terminator returns `returned` (arguments and returned values
/// are the caller's and never freed).
llvm::DenseMap<mlir::Operation *, OpReleases>
planReleases(mlir::Operation *func, mlir::ValueRange returned);

} // namespace amp

#endif // AMP_LIB_CONVERSION_BUFFERLIFETIMES_H
