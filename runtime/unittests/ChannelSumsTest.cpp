//===- ChannelSumsTest.cpp - Per-channel sums: one order on every path ----===//
//
// Batch norm and bias gradients sum channels through channelSums; channels-
// last rows of 16 or 32 channels take a path that keeps the sums in
// registers (sumChannelsLast). Every path must give the bits of the
// generic visit of the same blocks, on the baseline loops and in the
// AVX-512 clone, so that results do not depend on the layout's fast path.
// 16-bit data widened a few rows at a time (channelSumsWidened) must give
// the generic visit's bits over the widened values.
//
//===----------------------------------------------------------------------===//

#include "cpu/Blocks.h"
#include "cpu/Common.h"
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace {

using amprt::Split;

/// The generic visit: sumRowBlocks over forEachInRows, f per element.
template <typename F>
std::vector<double> genericSums(const Split &s, int64_t width, F f) {
  return amprt::cpu::sumRowBlocks(
      s, s.axis * width, [&](int64_t first, int64_t last, double *acc) {
        amprt::cpu::forEachInRows(s, first, last,
                                  [&](int64_t c, int64_t k) { f(c, k, acc); });
      });
}

void expectSameBits(const std::vector<double> &got,
                    const std::vector<double> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t j = 0; j < got.size(); ++j)
    ASSERT_EQ(std::memcmp(&got[j], &want[j], sizeof(double)), 0)
        << what << ", sum " << j << ": " << got[j] << " vs " << want[j];
}

TEST(ChannelSums, EveryPathGivesTheGenericBits) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-3, 3);
  // Channel counts on and off the register path; row counts within one
  // block, and over many (blocks are 32K elements).
  for (int64_t axis : {16, 32, 17})
    for (int64_t outer : {1, 7, 3000, 25088}) {
      Split s;
      s.outer = outer;
      s.axis = axis;
      s.inner = 1;
      std::vector<float> x(outer * axis), dy(outer * axis);
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = value(rng);
        dy[i] = value(rng);
      }
      std::vector<double> mu(axis);
      for (double &m : mu)
        m = value(rng) * 0.1;
      auto one = [&](int64_t c, int64_t k, double *acc) {
        double d = (double)x[k] - mu[c];
        acc[c] += d * d;
      };
      auto two = [&](int64_t c, int64_t k, double *acc) {
        double d = dy[k];
        acc[c] += d;
        acc[axis + c] += d * ((double)x[k] - mu[c]);
      };
      std::string at =
          "axis " + std::to_string(axis) + " outer " + std::to_string(outer);
      std::vector<double> want1 = genericSums(s, 1, one),
                          want2 = genericSums(s, 2, two);
      expectSameBits(amprt::cpu::channelSums(s, 1, one), want1,
                     "one sum, " + at);
      expectSameBits(amprt::cpu::channelSums<true>(s, 1, one), want1,
                     "one sum, wide, " + at);
      expectSameBits(amprt::cpu::channelSums(s, 2, two), want2,
                     "two sums, " + at);
      expectSameBits(amprt::cpu::channelSums<true>(s, 2, two), want2,
                     "two sums, wide, " + at);
    }
}

TEST(ChannelSums, WidenedSixteenBitRowsGiveTheGenericBits) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> value(-3, 3);
  // Blocks of 2048 rows of 16 channels widen 128 rows at a time: row counts
  // within one range, over several ranges of a block, and over many blocks.
  for (int64_t axis : {16, 17})
    for (int64_t outer : {7, 300, 3000, 25088}) {
      Split s;
      s.outer = outer;
      s.axis = axis;
      s.inner = 1;
      std::vector<amprt::half_t> xh(outer * axis), dyh(outer * axis);
      std::vector<float> x(xh.size()), dy(dyh.size());
      for (size_t i = 0; i < x.size(); ++i) {
        xh[i].bits = amprt::floatToHalf(value(rng));
        dyh[i].bits = amprt::floatToHalf(value(rng));
        x[i] = amprt::halfToFloat(xh[i].bits);
        dy[i] = amprt::halfToFloat(dyh[i].bits);
      }
      std::vector<double> mu(axis);
      for (double &m : mu)
        m = value(rng) * 0.1;
      std::vector<double> want1 =
          genericSums(s, 1, [&](int64_t c, int64_t k, double *acc) {
            double d = (double)x[k] - mu[c];
            acc[c] += d * d;
          });
      std::vector<double> want2 =
          genericSums(s, 2, [&](int64_t c, int64_t k, double *acc) {
            acc[c] += dy[k];
            acc[axis + c] += dy[k] * ((double)x[k] - mu[c]);
          });
      auto one = [&](int64_t c, float v, double *acc) {
        double d = (double)v - mu[c];
        acc[c] += d * d;
      };
      auto two = [&](int64_t c, float d, float v, double *acc) {
        acc[c] += d;
        acc[axis + c] += d * ((double)v - mu[c]);
      };
      std::string at =
          "axis " + std::to_string(axis) + " outer " + std::to_string(outer);
      expectSameBits(amprt::cpu::channelSumsWidened(s, 1, one, xh.data()),
                     want1, "one widened sum, " + at);
      expectSameBits(amprt::cpu::channelSumsWidened<true>(s, 1, one, xh.data()),
                     want1, "one widened sum, wide, " + at);
      expectSameBits(amprt::cpu::channelSumsWidened<true>(s, 2, two, dyh.data(),
                                                          xh.data()),
                     want2, "two widened sums, wide, " + at);
    }
}

} // namespace
