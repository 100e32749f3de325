//===- DummyPipelineFuzzer.cpp - Replay and random runs without libFuzzer -===//
//
// amp-pipeline-fuzzer's main where there is no libFuzzer (ReplayMain.h): its
// fresh inputs are random graph bytes and corpus text with a few bytes
// deleted, inserted or replaced.
//
//===----------------------------------------------------------------------===//

#include "ReplayMain.h"
#include <algorithm>

namespace {

/// Deletes, inserts or replaces a few bytes, as libFuzzer's simplest
/// mutators do.
std::vector<uint8_t> mutate(std::vector<uint8_t> in, std::mt19937 &rng) {
  for (unsigned i = 0, e = 1 + rng() % 4; i < e && !in.empty(); ++i) {
    size_t at = rng() % in.size();
    switch (rng() % 3) {
    case 0:
      in.erase(in.begin() + at,
               in.begin() + std::min(in.size(), at + 1 + rng() % 8));
      break;
    case 1:
      in.insert(in.begin() + at, " %0x:{}<>()[]1,"[rng() % 15]);
      break;
    default:
      in[at] = (uint8_t)(32 + rng() % 95);
    }
  }
  return in;
}

/// Corpus text mutated, or random bytes: half structured training steps,
/// half foreign IR (mode bytes 0-8).
std::vector<uint8_t>
freshInput(std::mt19937 &rng, const std::vector<std::vector<uint8_t>> &corpus) {
  std::vector<const std::vector<uint8_t> *> texts;
  for (const std::vector<uint8_t> &bytes : corpus)
    if (!bytes.empty() && bytes[0] >= 0x09 && bytes[0] < 0x80)
      texts.push_back(&bytes);
  if (!texts.empty() && rng() % 3 == 0)
    return mutate(*texts[rng() % texts.size()], rng);
  std::vector<uint8_t> input(1 + rng() % 96);
  for (uint8_t &b : input)
    b = (uint8_t)rng();
  if (rng() % 2)
    input[0] |= 0x80;
  else
    input[0] %= 0x09;
  return input;
}

} // namespace

int main(int argc, char **argv) {
  return amp::fuzz::runReplayMain(argc, argv, "amp-pipeline-fuzzer",
                                  freshInput);
}
