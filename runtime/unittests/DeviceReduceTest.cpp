//===- DeviceReduceTest.cpp - A GPU's reductions, level by level ----------===//
//
// device::reduceInLevels (how a GPU and the emulated device reduce) on host
// memory through HostExec: sums agree with a long-double sum of the same
// values, maxima are exact, and the result does not depend on anything but
// the values, for one to many levels, short and long outputs, column and
// row folds, an empty fold and level one's longer runs when its partials
// would pass their bound.
//
//===----------------------------------------------------------------------===//

#include "../device/HostExec.h"
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace amprt::device;

namespace {

/// x [count][outputs] (column folds: outputs side by side) or
/// [outputs][count] (row folds).
struct Problem {
  int64_t outputs, count;
  bool columns;
  std::vector<double> x;
};

Problem make(int64_t outputs, int64_t count, bool columns, unsigned seed) {
  Problem p{outputs, count, columns, std::vector<double>(outputs * count)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (double &v : p.x)
    v = dist(gen);
  return p;
}

double at(const Problem &p, int64_t o, int64_t j) {
  return p.columns ? p.x[j * p.outputs + o] : p.x[o * p.count + j];
}

/// Runs reduceInLevels over `p`; one result per output.
std::vector<double> reduce(const Problem &p, bool isMax,
                           int64_t maxPartials = kMaxLevelPartials) {
  Index outer, inner;
  outer.rank = inner.rank = 1;
  outer.shape[0] = p.outputs;
  outer.stride[0] = p.columns ? 1 : p.count;
  inner.shape[0] = p.count > 0 ? p.count : 1;
  inner.stride[0] = p.columns ? p.outputs : 1;
  std::vector<double> out(p.outputs, -7);
  HostExec exec;
  EXPECT_EQ(reduceInLevels(exec, "test", LoadValue<double>{p.x.data()}, outer,
                           inner, p.outputs, p.count, isMax,
                           KeepFinish{out.data(), 1.0}, maxPartials),
            AMPRT_OK);
  return out;
}

void expectReduced(const Problem &p, int64_t maxPartials) {
  std::string what = "outputs " + std::to_string(p.outputs) + " count " +
                     std::to_string(p.count) +
                     (p.columns ? " columns" : " rows") + " max partials " +
                     std::to_string(maxPartials);
  std::vector<double> sums = reduce(p, false, maxPartials),
                      maxima = reduce(p, true, maxPartials);
  for (int64_t o = 0; o < p.outputs; ++o) {
    long double sum = 0;
    double max = -INFINITY;
    for (int64_t j = 0; j < p.count; ++j) {
      sum += at(p, o, j);
      max = std::max(max, at(p, o, j));
    }
    EXPECT_NEAR(sums[o], (double)sum, 1e-12 * (1 + p.count)) << what;
    EXPECT_EQ(maxima[o], max) << what << " output " << o;
  }
}

TEST(DeviceReduce, LevelsAgreeWithTheSums) {
  // 32 values a thread: 1024 and 1025 are two and three levels, 40000
  // four; 0 is an empty fold (0, or -inf for a maximum).
  for (int64_t count : {0, 1, 31, 32, 33, 1024, 1025, 40000})
    for (int64_t outputs : {1, 3, 64})
      for (bool columns : {true, false})
        expectReduced(make(outputs, count, columns, 11 + count), 1 << 22);
}

TEST(DeviceReduce, LongerRunsPastThePartialsBound) {
  // At most 100 level-one partials: level one folds longer runs.
  for (int64_t outputs : {1, 3, 7})
    expectReduced(make(outputs, 5000, true, 5), 100);
  // More outputs than the bound: one run per output.
  expectReduced(make(300, 40, false, 6), 100);
}

TEST(DeviceReduce, TheSameBitsEveryRun) {
  for (bool columns : {true, false}) {
    Problem p = make(5, 3000, columns, 9);
    std::vector<double> first = reduce(p, false);
    for (int run = 0; run < 3; ++run)
      EXPECT_EQ(reduce(p, false), first);
  }
}

TEST(DeviceReduce, NaNPropagates) {
  for (bool columns : {true, false}) {
    Problem p = make(2, 2000, columns, 3);
    p.x[columns ? 1500 * 2 + 1 : 2000 + 1500] = NAN;
    std::vector<double> sums = reduce(p, false), maxima = reduce(p, true);
    EXPECT_FALSE(std::isnan(sums[0]));
    EXPECT_TRUE(std::isnan(sums[1]));
    EXPECT_FALSE(std::isnan(maxima[0]));
    EXPECT_TRUE(std::isnan(maxima[1]));
  }
}

} // namespace
