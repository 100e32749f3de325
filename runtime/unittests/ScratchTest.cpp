//===- ScratchTest.cpp - Per-thread scratch reuse -------------------------===//

#include "cpu/Scratch.h"

#include <gtest/gtest.h>
#include <thread>

using amprt::cpu::Scratch;

namespace {

TEST(Scratch, ReusesTheBlockOfAFinishedOp) {
  float *first;
  {
    Scratch<float> a(1 << 20);
    first = a.data();
    a[(1 << 20) - 1] = 1.0f; // the whole range is usable
  }
  Scratch<float> b(1 << 20);
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(b.size(), 1 << 20);
}

TEST(Scratch, SmallRequestsDoNotPinLargeBlocks) {
  float *large;
  {
    Scratch<float> a(1 << 22); // 16 MiB
    large = a.data();
  }
  Scratch<float> small(1 << 10);
  EXPECT_NE(small.data(), large);
  Scratch<float> again(1 << 22);
  EXPECT_EQ(again.data(), large);
}

TEST(Scratch, LiveBlocksAreDistinctAndAligned) {
  Scratch<double> a(1000), b(1000);
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
}

TEST(Scratch, ZeroedAfterReuse) {
  {
    Scratch<int> dirty(4096);
    for (int &v : dirty)
      v = -1;
  }
  Scratch<int> clean = Scratch<int>::zeroed(4096);
  for (int v : clean)
    ASSERT_EQ(v, 0);
}

TEST(Scratch, MovesOwnership) {
  Scratch<float> a(256);
  float *p = a.data();
  Scratch<float> b = std::move(a);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0);
}

TEST(Scratch, ThreadsKeepTheirOwnBlocks) {
  float *mine;
  {
    Scratch<float> a(1 << 16);
    mine = a.data();
  }
  float *theirs = nullptr;
  std::thread([&] {
    Scratch<float> b(1 << 16);
    theirs = b.data();
  }).join();
  EXPECT_NE(theirs, mine);
  Scratch<float> c(1 << 16);
  EXPECT_EQ(c.data(), mine);
}

} // namespace
