//===- DummyPipelineFuzzer.cpp - Replay and random runs without libFuzzer -===//
//
// The main of amp-pipeline-fuzzer when the compiler has no libFuzzer (gcc):
//   amp-pipeline-fuzzer [-runs=N] [-seed=S] [-only=I] [-save=PATH]
//   [FILE|DIR]...
// runs every file given (directories: every file in them, sorted), then N
// fresh inputs drawn from the seed: random graph bytes and corpus text with
// a few bytes deleted, inserted or replaced. -runs and -seed are libFuzzer's
// flags, so the test suite's command works with either build. To turn a
// failure into a regression file: `-runs=N -seed=S -only=I -save=PATH` runs
// only generated input I (the failure message names it) and writes its bytes
// to PATH first.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

bool readFile(const std::string &path, std::vector<uint8_t> &out) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return false;
  out.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  return true;
}

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

} // namespace

int main(int argc, char **argv) {
  unsigned long runs = 0, seed = 1;
  long only = -1;
  std::string save;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-runs=", 0) == 0) {
      runs = std::stoul(arg.substr(6));
    } else if (arg.rfind("-seed=", 0) == 0) {
      seed = std::stoul(arg.substr(6));
    } else if (arg.rfind("-only=", 0) == 0) {
      only = std::stol(arg.substr(6));
    } else if (arg.rfind("-save=", 0) == 0) {
      save = arg.substr(6);
    } else if (arg[0] == '-') {
      fprintf(stderr,
              "amp-pipeline-fuzzer: this build has no libFuzzer; "
              "only -runs= and -seed= are understood, got '%s'\n",
              arg.c_str());
      return 2;
    } else if (llvm::sys::fs::is_directory(arg)) {
      std::error_code ec;
      std::vector<std::string> entries;
      for (llvm::sys::fs::directory_iterator it(arg, ec), end; it != end && !ec;
           it.increment(ec))
        if (!llvm::sys::fs::is_directory(it->path()))
          entries.push_back(it->path());
      std::sort(entries.begin(), entries.end());
      files.insert(files.end(), entries.begin(), entries.end());
    } else {
      files.push_back(arg);
    }
  }
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::vector<uint8_t>> texts;
  for (const std::string &file : files) {
    std::vector<uint8_t> bytes;
    if (!readFile(file, bytes)) {
      fprintf(stderr, "amp-pipeline-fuzzer: cannot read '%s'\n", file.c_str());
      return 2;
    }
    fprintf(stderr, "running %s\n", file.c_str());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    if (!bytes.empty() && bytes[0] >= 0x09 && bytes[0] < 0x80)
      texts.push_back(std::move(bytes));
  }
  std::mt19937 rng(seed);
  for (unsigned long r = 0; r < runs; ++r) {
    std::vector<uint8_t> input;
    if (!texts.empty() && rng() % 3 == 0) {
      input = mutate(texts[rng() % texts.size()], rng);
    } else {
      input.resize(1 + rng() % 96);
      for (uint8_t &b : input)
        b = (uint8_t)rng();
      // Half structured training steps, half foreign IR (mode bytes 0-8).
      if (rng() % 2)
        input[0] |= 0x80;
      else
        input[0] %= 0x09;
    }
    if (only >= 0 && (long)r != only)
      continue;
    if (!save.empty()) {
      FILE *f = fopen(save.c_str(), "wb");
      if (!f || fwrite(input.data(), 1, input.size(), f) != input.size()) {
        fprintf(stderr, "amp-pipeline-fuzzer: cannot write '%s'\n",
                save.c_str());
        return 2;
      }
      fclose(f);
    }
    // Named first so that a crash says which input to replay.
    fprintf(stderr, "generated input %lu\n", r);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  fprintf(stderr,
          "amp-pipeline-fuzzer: %zu files and %lu generated inputs, "
          "no property violated\n",
          files.size(), runs);
  return 0;
}
