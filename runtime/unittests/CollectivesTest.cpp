//===- CollectivesTest.cpp - The all-reduce's arithmetic and its checks ---===//
//
// The chunking and per-element reduction that every rank applies (against
// plain loops), and amprt_all_reduce / amprt_comm_* in a process alone: a
// copy, and errors for what the op does not define. Runs of several ranks
// are the lit tests under mpirun (test/Tools/amp-run/data-parallel*.mlir).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "comm/ChunkReduce.h"
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace amprt_test;
using namespace amprt::comm;

namespace {

TEST(Collectives, ChunksCoverEveryElementOnce) {
  for (int64_t n : {0, 1, 5, 7, 64, 1000003})
    for (int parts : {1, 2, 3, 8, 13}) {
      int64_t next = 0, shortest = n, longest = 0;
      for (int p = 0; p < parts; ++p) {
        EXPECT_EQ(chunkBegin(n, parts, p), next) << n << " " << parts;
        int64_t length = chunkLength(n, parts, p);
        next += length;
        shortest = std::min(shortest, length);
        longest = std::max(longest, length);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(longest - shortest, 1);
    }
}

TEST(Collectives, F32SumsInRankOrder) {
  // Three ranks' copies of a 4-element chunk, back to back.
  std::vector<float> in = {1e8f,  1, -1, 0.1f, //
                           1,     2, 3,  0.2f, //
                           -1e8f, 3, 5,  0.3f};
  std::vector<float> out(4);
  reduceChunk(AMPRT_F32, AMPRT_REDUCE_SUM, in.data(), 3, 4, out.data());
  for (int i = 0; i < 4; ++i) {
    float expected = (in[i] + in[4 + i]) + in[8 + i]; // rank 0, 1, 2
    EXPECT_EQ(out[i], expected) << i;
  }
  // (1e8 + 1) - 1e8 is 0 in f32: the order is the rank order, not another.
  EXPECT_EQ(out[0], 0.0f);
  reduceChunk(AMPRT_F32, AMPRT_REDUCE_MEAN, in.data(), 3, 4, out.data());
  EXPECT_EQ(out[1], (1.0f + 2.0f + 3.0f) / 3.0f);
}

TEST(Collectives, HalfAccumulatesInF32AndRoundsOnce) {
  // 2048 + 1 + 1 in f16: rounding after each addition gives 2048 (2049 is a
  // tie that goes to even), rounding once gives 2050.
  std::vector<uint16_t> in = {toHalf(2048), toHalf(1), toHalf(1)};
  uint16_t out = 0;
  reduceChunk(AMPRT_F16, AMPRT_REDUCE_SUM, in.data(), 3, 1, &out);
  EXPECT_EQ(fromHalf(out), 2050.0);
  // Past f16's range the sum is inf, which the finite check then sees.
  std::vector<uint16_t> big = {toHalf(60000), toHalf(60000)};
  reduceChunk(AMPRT_F16, AMPRT_REDUCE_SUM, big.data(), 2, 1, &out);
  EXPECT_TRUE(std::isinf(fromHalf(out)));
  // bf16 alike: 1 + 1/256 is a tie (to 1); 1 + 2/256 is exact.
  std::vector<uint16_t> b16 = {toBf16(1.0), toBf16(1.0 / 256),
                               toBf16(1.0 / 256)};
  reduceChunk(AMPRT_BF16, AMPRT_REDUCE_SUM, b16.data(), 3, 1, &out);
  EXPECT_EQ(fromBf16(out), 1.0 + 1.0 / 128);
}

TEST(Collectives, MinAndMaxKeepNaNAndAreLogicOnFlags) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {1, nan, 2, 0};
  float out[2];
  reduceChunk(AMPRT_F32, AMPRT_REDUCE_MIN, in.data(), 2, 2, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_TRUE(std::isnan(out[1])); // a found-inf is never hidden
  reduceChunk(AMPRT_F32, AMPRT_REDUCE_MAX, in.data(), 2, 2, out);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_TRUE(std::isnan(out[1]));
  std::vector<uint8_t> flags = {1, 1, 0, /*rank 1*/ 1, 0, 0};
  uint8_t all[3], any[3];
  reduceChunk(AMPRT_I1, AMPRT_REDUCE_MIN, flags.data(), 2, 3, all);
  reduceChunk(AMPRT_I1, AMPRT_REDUCE_MAX, flags.data(), 2, 3, any);
  EXPECT_EQ(std::vector<int>(all, all + 3), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(std::vector<int>(any, any + 3), (std::vector<int>{1, 1, 0}));
  EXPECT_FALSE(reductionApplies(AMPRT_REDUCE_SUM, AMPRT_I1));
  EXPECT_FALSE(reductionApplies(AMPRT_REDUCE_MEAN, AMPRT_I64));
  EXPECT_TRUE(reductionApplies(AMPRT_REDUCE_MAX, AMPRT_I32));
}

TEST(Collectives, OneProcessIsACopyAndErrorsAreClear) {
  EXPECT_EQ(amprt_comm_rank(), 0);
  EXPECT_EQ(amprt_comm_size(), 1);
  EXPECT_EQ(amprt_comm_init("tcp", 10), AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amprt_last_error()).find("unknown backend 'tcp'"),
            std::string::npos);
  EXPECT_EQ(amprt_comm_init("self", 0), AMPRT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(amprt_comm_init("self", 10), AMPRT_OK);
  EXPECT_EQ(amprt_comm_init("self", 10), AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(amprt_comm_backend(), "self");
  EXPECT_EQ(amprt_comm_set_timeout(-1), AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_comm_set_timeout(5), AMPRT_OK);
  EXPECT_EQ(amprt_comm_agree(42, "a value"), AMPRT_OK);

  Runtime rt;
  Tensor comm = rt.make(AMPRT_I64, {}, {0});
  Tensor a = rt.make(AMPRT_F16, {3}, {1.5, -2, 65504});
  Tensor b = rt.make(AMPRT_F16, {2, 2}, {1, 2, 3, 4});
  Tensor ra = rt.make(AMPRT_F16, {3}), rb = rt.make(AMPRT_F16, {2, 2});
  const amprt_tensor *xs[] = {a, b};
  amprt_tensor *ys[] = {ra, rb};
  for (amprt_reduction r : {AMPRT_REDUCE_SUM, AMPRT_REDUCE_MEAN,
                            AMPRT_REDUCE_MIN, AMPRT_REDUCE_MAX}) {
    ASSERT_EQ(amprt_all_reduce(rt.ctx, comm, xs, 2, r, ys), AMPRT_OK)
        << amprt_last_error();
    EXPECT_EQ(rt.read(ra), (std::vector<double>{1.5, -2, 65504}));
    EXPECT_EQ(rt.read(rb), (std::vector<double>{1, 2, 3, 4}));
  }
  uint64_t bytes = 1, count = 0;
  ASSERT_EQ(amprt_comm_stats(&bytes, &count), AMPRT_OK);
  EXPECT_EQ(bytes, 0u); // nothing leaves a process alone
  EXPECT_EQ(count, 4u);

  Tensor f32 = rt.make(AMPRT_F32, {3});
  const amprt_tensor *mixed[] = {a, f32};
  EXPECT_EQ(amprt_all_reduce(rt.ctx, comm, mixed, 2, AMPRT_REDUCE_SUM, ys),
            AMPRT_ERROR_DTYPE);
  Tensor flag = rt.make(AMPRT_I1, {}), flagOut = rt.make(AMPRT_I1, {});
  const amprt_tensor *flags[] = {flag};
  amprt_tensor *flagsOut[] = {flagOut};
  EXPECT_EQ(
      amprt_all_reduce(rt.ctx, comm, flags, 1, AMPRT_REDUCE_SUM, flagsOut),
      AMPRT_ERROR_DTYPE);
  EXPECT_NE(std::string(amprt_last_error()).find("does not apply to i1"),
            std::string::npos);
  Tensor other = rt.make(AMPRT_I64, {}, {3});
  EXPECT_EQ(amprt_all_reduce(rt.ctx, other, xs, 2, AMPRT_REDUCE_SUM, ys),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amprt_last_error()).find("communicator 3"),
            std::string::npos);
  amprt_tensor *wrongShape[] = {rb, ra};
  EXPECT_EQ(amprt_all_reduce(rt.ctx, comm, xs, 2, AMPRT_REDUCE_SUM, wrongShape),
            AMPRT_ERROR_SHAPE);
  EXPECT_EQ(amprt_all_reduce(rt.ctx, comm, xs, 2, (amprt_reduction)9, ys),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_all_reduce(rt.ctx, comm, nullptr, 0, AMPRT_REDUCE_SUM, ys),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_comm_broadcast(a, 1), AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_comm_broadcast(a, 0), AMPRT_OK);
  EXPECT_EQ(amprt_comm_finalize(), AMPRT_OK);

  // A process alone joins again (a host that trains twice), its counts
  // from zero; leaving twice is no error.
  ASSERT_EQ(amprt_comm_init("self", 10), AMPRT_OK);
  ASSERT_EQ(amprt_comm_stats(&bytes, &count), AMPRT_OK);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(amprt_comm_finalize(), AMPRT_OK);
  EXPECT_EQ(amprt_comm_finalize(), AMPRT_OK);
}

} // namespace
