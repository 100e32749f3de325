//===- UnaryTablesTest.cpp - 16-bit lookups on every target ---------------===//
//
// A 16-bit exp, tanh, GELU, ... looks its results up by bit pattern
// (cpu/UnaryTables.h); a machine's own runs use its widest gather. Here
// every lookup this CPU can run (16-lane AVX-512, 8-lane AVX2, the
// element loop) reads a table of distinct random entries at every
// pattern, the last one included (its gather reads the table's extra
// entry), over lengths that leave every tail, in place and not, and
// writes nothing past its length.
//
//===----------------------------------------------------------------------===//

#include "cpu/UnaryTables.h"

#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace amprt::cpu;

namespace {

using Lookup = int64_t (*)(const uint16_t *, uint16_t *, int64_t,
                           const uint16_t *);

/// A target's whole vectors, then the element loop for the rest (as
/// lookupSpan finishes them).
void lookupOn(Lookup vectors, const uint16_t *in, uint16_t *out, int64_t n,
              const uint16_t *table) {
  int64_t j = vectors ? vectors(in, out, n, table) : 0;
  for (; j < n; ++j)
    out[j] = table[in[j]];
}

std::vector<std::pair<std::string, Lookup>> lookupsOfThisCpu() {
  std::vector<std::pair<std::string, Lookup>> lookups = {{"loop", nullptr}};
  if (hasAvx2())
    lookups.push_back({"avx2", lookupAvx2});
  if (hasAvx512F())
    lookups.push_back({"avx512", lookupAvx512});
  return lookups;
}

/// Random entries, and an extra one no pattern names (0xBEEF).
std::vector<uint16_t> randomTable() {
  std::mt19937 gen(7);
  std::vector<uint16_t> table(kUnaryTableSize);
  for (auto &e : table)
    e = static_cast<uint16_t>(gen());
  table.back() = 0xBEEF;
  return table;
}

TEST(UnaryTables, EveryPatternOnEveryTarget) {
  std::vector<uint16_t> table = randomTable();
  std::vector<uint16_t> every(1 << 16);
  for (size_t i = 0; i < every.size(); ++i)
    every[i] = static_cast<uint16_t>(0xFFFF - i); // the last pattern first
  for (auto &[name, vectors] : lookupsOfThisCpu()) {
    std::vector<uint16_t> out(every.size());
    lookupOn(vectors, every.data(), out.data(), every.size(), table.data());
    for (size_t i = 0; i < every.size(); ++i)
      ASSERT_EQ(out[i], table[every[i]]) << name << " pattern " << every[i];
    // In place: each vector's patterns are read before its results land.
    std::vector<uint16_t> inPlace = every;
    lookupOn(vectors, inPlace.data(), inPlace.data(), inPlace.size(),
             table.data());
    EXPECT_EQ(inPlace, out) << name << " in place";
  }
}

TEST(UnaryTables, EveryTailAndNothingPastIt) {
  std::vector<uint16_t> table = randomTable();
  std::mt19937 gen(11);
  constexpr uint16_t kGuard = 0x5A5A;
  for (auto &[name, vectors] : lookupsOfThisCpu())
    for (int64_t n = 0; n <= 40; ++n) {
      std::vector<uint16_t> in(n), out(n + 16, kGuard);
      for (auto &p : in)
        p = static_cast<uint16_t>(gen());
      lookupOn(vectors, in.data(), out.data(), n, table.data());
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], table[in[i]]) << name << " n " << n << " #" << i;
      for (int64_t i = n; i < n + 16; ++i)
        ASSERT_EQ(out[i], kGuard) << name << " wrote past n " << n;
    }
}

} // namespace
