//===- ReplayMain.cpp - A fuzzer's main without libFuzzer -----------------===//

#include "ReplayMain.h"
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace amp::fuzz {
namespace {

bool readFile(const std::string &path, std::vector<uint8_t> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  return !in.bad();
}

/// Every file of `dir`, sorted, so a replay runs in the same order.
void addDirectory(const std::string &dir, std::vector<std::string> &files) {
  std::error_code ec;
  std::vector<std::string> entries;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (!entry.is_directory(ec))
      entries.push_back(entry.path().string());
  std::sort(entries.begin(), entries.end());
  files.insert(files.end(), entries.begin(), entries.end());
}

struct ReplayFlags {
  unsigned long runs = 0, seed = 1;
  long only = -1;
  std::string save;
  std::vector<std::string> files;
};

/// False (having said why) on a flag this main does not know.
bool parseFlags(int argc, char **argv, const char *tool, ReplayFlags &flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-runs=", 0) == 0) {
      flags.runs = std::stoul(arg.substr(6));
    } else if (arg.rfind("-seed=", 0) == 0) {
      flags.seed = std::stoul(arg.substr(6));
    } else if (arg.rfind("-only=", 0) == 0) {
      flags.only = std::stol(arg.substr(6));
    } else if (arg.rfind("-save=", 0) == 0) {
      flags.save = arg.substr(6);
    } else if (arg[0] == '-') {
      fprintf(stderr,
              "%s: this build has no libFuzzer; only -runs=, -seed=, -only= "
              "and -save= are understood, got '%s'\n",
              tool, arg.c_str());
      return false;
    } else if (std::error_code ec; std::filesystem::is_directory(arg, ec)) {
      addDirectory(arg, flags.files);
    } else {
      flags.files.push_back(arg);
    }
  }
  return true;
}

bool saveInput(const std::string &path, const std::vector<uint8_t> &input) {
  FILE *f = fopen(path.c_str(), "wb");
  bool saved = f && fwrite(input.data(), 1, input.size(), f) == input.size();
  if (f)
    saved = fclose(f) == 0 && saved;
  return saved;
}

} // namespace

int runReplayMain(int argc, char **argv, const char *tool,
                  const FreshInput &fresh) {
  ReplayFlags flags;
  if (!parseFlags(argc, argv, tool, flags))
    return 2;
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::vector<uint8_t>> corpus;
  for (const std::string &file : flags.files) {
    std::vector<uint8_t> bytes;
    if (!readFile(file, bytes)) {
      fprintf(stderr, "%s: cannot read '%s'\n", tool, file.c_str());
      return 2;
    }
    fprintf(stderr, "running %s\n", file.c_str());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    corpus.push_back(std::move(bytes));
  }
  std::mt19937 rng(flags.seed);
  for (unsigned long r = 0; r < flags.runs; ++r) {
    std::vector<uint8_t> input = fresh(rng, corpus);
    if (flags.only >= 0 && (long)r != flags.only)
      continue;
    if (!flags.save.empty() && !saveInput(flags.save, input)) {
      fprintf(stderr, "%s: cannot write '%s'\n", tool, flags.save.c_str());
      return 2;
    }
    // Named first so that a crash says which input to replay.
    fprintf(stderr, "generated input %lu\n", r);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  fprintf(stderr,
          "%s: %zu files and %lu generated inputs, no property violated\n",
          tool, flags.files.size(), flags.runs);
  return 0;
}

} // namespace amp::fuzz
