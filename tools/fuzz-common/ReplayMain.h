//===- ReplayMain.h - A fuzzer's main without libFuzzer ---------*- C++ -*-===//
//
// Where the compiler has no libFuzzer (gcc), each fuzzer's DUMMY_MAIN calls
// runReplayMain, which takes libFuzzer's flags so the test suite's commands
// work with either build:
//   TOOL [-runs=N] [-seed=S] [-only=I] [-save=PATH] [FILE|DIR]...
// It runs every file given (directories: every file in them, sorted), then
// N fresh inputs that the fuzzer's own generator draws from the seed. To
// turn a failure into a regression file: `-runs=N -seed=S -only=I
// -save=PATH` runs only generated input I (the failure message names it)
// and writes its bytes to PATH first.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_FUZZ_COMMON_REPLAYMAIN_H
#define AMP_TOOLS_FUZZ_COMMON_REPLAYMAIN_H

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace amp::fuzz {

/// One fresh input, drawn from `rng`; `corpus` holds the files that were
/// run (a generator may mutate them).
using FreshInput = std::function<std::vector<uint8_t>(
    std::mt19937 &rng, const std::vector<std::vector<uint8_t>> &corpus)>;

int runReplayMain(int argc, char **argv, const char *tool,
                  const FreshInput &fresh);

} // namespace amp::fuzz

#endif // AMP_TOOLS_FUZZ_COMMON_REPLAYMAIN_H
