//===- BufferLifetimes.cpp - Where a step's tensors are read last ---------===//

#include "BufferLifetimes.h"
#include "amp/Dialect/AMPRT/IR/AMPRT.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace amp;

BufferLifetimes::BufferLifetimes(Operation *func)
    : body(func->getRegion(0).front()), liveness(func) {
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;
}

Value BufferLifetimes::sharedHandle(Value v) const {
  while (auto cast = v.getDefiningOp<rt::CastOnReadOp>())
    v = cast.getX();
  return v;
}

Value BufferLifetimes::storage(Value v) const {
  v = sharedHandle(v);
  while (auto view = v.getDefiningOp<rt::ViewOp>())
    v = sharedHandle(view.getX());
  return v;
}

bool BufferLifetimes::isView(Value v) const {
  return v.getDefiningOp<rt::ViewOp>() != nullptr;
}

int64_t BufferLifetimes::lastRead(Value v) const {
  if (v.use_empty())
    return -1;
  Operation *start = v.getDefiningOp() ? v.getDefiningOp() : &body.front();
  return positionOf(liveness.getLiveness(&body)->getEndOperation(v, start));
}

int64_t BufferLifetimes::lastUse(Value v) {
  if (auto known = lastUses.find(v); known != lastUses.end())
    return known->second;
  int64_t last = lastRead(v);
  for (Operation *user : v.getUsers())
    if (isa<rt::CastOnReadOp, rt::ViewOp>(user))
      last = std::max(last, lastUse(user->getResult(0)));
  return lastUses[v] = last;
}

int64_t BufferLifetimes::lastDirectUse(Value v) {
  if (auto known = lastDirectUses.find(v); known != lastDirectUses.end())
    return known->second;
  int64_t last = lastRead(v);
  for (Operation *user : v.getUsers())
    if (isa<rt::CastOnReadOp>(user))
      last = std::max(last, lastDirectUse(user->getResult(0)));
  return lastDirectUses[v] = last;
}

/// The releases of the op at `here` (not a cast on read, which frees
/// nothing: its result is its input's tensor).
static OpReleases releasesOf(Operation &op, unsigned here,
                             BufferLifetimes &lifetimes,
                             const llvm::DenseSet<Value> &returned) {
  auto owned = [&](Value v) {
    return !isa<BlockArgument>(v) && !returned.contains(v);
  };
  OpReleases releases;
  llvm::SmallSetVector<Value, 4> dying, views;
  for (Value read : op.getOperands()) {
    Value v = lifetimes.storage(read);
    if (lifetimes.lastUse(v) == here && owned(v))
      dying.insert(v);
    Value handle = lifetimes.sharedHandle(read);
    if (lifetimes.isView(handle) && lifetimes.lastDirectUse(handle) == here)
      views.insert(handle);
  }
  releases.dying.assign(dying.begin(), dying.end());
  releases.views.assign(views.begin(), views.end());
  for (Value r : op.getResults())
    if (r.use_empty() && owned(r))
      releases.unread.push_back(r);
  return releases;
}

llvm::DenseMap<Operation *, OpReleases> amp::planReleases(Operation *func,
                                                          ValueRange returned) {
  BufferLifetimes lifetimes(func);
  llvm::DenseSet<Value> kept(returned.begin(), returned.end());
  llvm::DenseMap<Operation *, OpReleases> plan;
  unsigned here = 0;
  for (Operation &op : func->getRegion(0).front()) {
    unsigned position = here++;
    if (op.hasTrait<OpTrait::IsTerminator>() || isa<rt::CastOnReadOp>(op))
      continue;
    plan[&op] = releasesOf(op, position, lifetimes, kept);
  }
  return plan;
}
