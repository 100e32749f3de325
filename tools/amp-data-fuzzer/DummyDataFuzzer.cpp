//===- DummyDataFuzzer.cpp - Replay and random runs without libFuzzer -----===//
//
// amp-data-fuzzer's main where there is no libFuzzer (ReplayMain.h): its
// fresh inputs are random bytes, or a corpus input with a few bytes
// replaced.
//
//===----------------------------------------------------------------------===//

#include "ReplayMain.h"

namespace {

std::vector<uint8_t>
freshInput(std::mt19937 &rng, const std::vector<std::vector<uint8_t>> &corpus) {
  if (!corpus.empty() && rng() % 2 == 0) {
    std::vector<uint8_t> input = corpus[rng() % corpus.size()];
    for (unsigned i = 0, e = 1 + rng() % 4; i < e && !input.empty(); ++i)
      input[rng() % input.size()] = (uint8_t)rng();
    return input;
  }
  // About 40 choices make a whole folder; shorter inputs leave the rest 0.
  std::vector<uint8_t> input(1 + rng() % 64);
  for (uint8_t &b : input)
    b = (uint8_t)rng();
  return input;
}

} // namespace

int main(int argc, char **argv) {
  return amp::fuzz::runReplayMain(argc, argv, "amp-data-fuzzer", freshInput);
}
