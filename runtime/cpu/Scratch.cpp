//===- Scratch.cpp - Per-thread reusable scratch memory -------------------===//

#include "Scratch.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <vector>

namespace amprt::cpu {

namespace {

/// Blocks at most this many bytes over a request are reused for it: a
/// small request must not pin a large block another op is about to want.
constexpr size_t kSlackBytes = size_t(1) << 16;
/// At most this many blocks and bytes stay cached per thread: a training
/// step's distinct scratch sizes fit, a model's whole activations do not.
constexpr size_t kMaxBlocks = 16;
constexpr size_t kMaxBytes = size_t(1) << 30;

struct Block {
  void *data;
  size_t capacity;
};

/// Blocks in the order they were returned, least recent first.
struct Cache {
  std::vector<Block> blocks;
  size_t bytes = 0;
  ~Cache() {
    for (Block &b : blocks)
      std::free(b.data);
  }
};

Cache &cache() {
  thread_local Cache c;
  return c;
}

} // namespace

void *takeScratch(size_t bytes, size_t *capacity) {
  Cache &c = cache();
  // The smallest block that fits, within the slack.
  size_t best = c.blocks.size();
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    size_t cap = c.blocks[i].capacity;
    if (cap >= bytes && cap - bytes <= std::max(kSlackBytes, bytes / 4) &&
        (best == c.blocks.size() || cap < c.blocks[best].capacity))
      best = i;
  }
  if (best < c.blocks.size()) {
    Block b = c.blocks[best];
    c.blocks.erase(c.blocks.begin() + best);
    c.bytes -= b.capacity;
    *capacity = b.capacity;
    return b.data;
  }
  // 64-byte aligned, rounded to whole 4 KiB pages.
  size_t rounded = (bytes + 4095) & ~size_t(4095);
  void *data = std::aligned_alloc(64, rounded);
  if (!data)
    throw std::bad_alloc();
  *capacity = rounded;
  return data;
}

void giveScratch(void *block, size_t capacity) {
  Cache &c = cache();
  c.blocks.push_back({block, capacity});
  c.bytes += capacity;
  while (c.blocks.size() > kMaxBlocks || c.bytes > kMaxBytes) {
    std::free(c.blocks.front().data);
    c.bytes -= c.blocks.front().capacity;
    c.blocks.erase(c.blocks.begin());
  }
}

} // namespace amprt::cpu
