//===- NearbyKeyInfo.h - Hash IR pointers by where they sit -----*- C++ -*-===//
//
// DenseMap keys for IR objects (ops, values) whose hash keeps objects that
// sit near each other in memory in nearby buckets. The pass meets ops in
// the order they were allocated (a parser or a clone creates them in
// order, and the casts it makes are allocated one after another), so its
// inserts and lookups walk the table the way they walk the IR. DenseMap's
// own pointer hash scatters neighbours on purpose: past a few hundred
// thousand ops every insert was a cache miss, and time per op grew with
// the graph (docs/performance.md, "The pass at a million ops").
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_NEARBYKEYINFO_H
#define AMP_LIB_TRANSFORMS_NEARBYKEYINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMapInfo.h"
#include <cstdint>
#include <utility>

namespace amp {

/// The bucket hash of an object at `address`: 16-byte granules in order
/// within each MiB, and each MiB at its own pseudo-random offset, so that
/// objects a power of two apart in different MiBs do not pile up in one
/// bucket.
inline unsigned nearbyHash(const void *address) {
  auto v = reinterpret_cast<uintptr_t>(address);
  return static_cast<unsigned>(v >> 4) +
         static_cast<unsigned>((v >> 20) * 0x9E3779B1u);
}

/// For DenseMap<Operation *, V, NearbyKeyInfo<Operation>> and the like.
template <typename T> struct NearbyKeyInfo : llvm::DenseMapInfo<T *> {
  static unsigned getHashValue(const T *key) { return nearbyHash(key); }
};

/// (value, type) keys, hashed by where the value's producer sits; the few
/// types one value is wanted in only share its bucket's neighbourhood.
struct NearbyValueTypeInfo
    : llvm::DenseMapInfo<std::pair<mlir::Value, mlir::Type>> {
  static unsigned getHashValue(const std::pair<mlir::Value, mlir::Type> &key) {
    return nearbyHash(key.first.getAsOpaquePointer()) +
           static_cast<unsigned>(
               reinterpret_cast<uintptr_t>(key.second.getAsOpaquePointer()) >>
               4) *
               7u;
  }
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_NEARBYKEYINFO_H
