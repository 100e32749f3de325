//===- BenchArgs.h - The runtime benchmarks' command line -------*- C++ -*-===//

#ifndef AMP_BENCH_BENCHARGS_H
#define AMP_BENCH_BENCHARGS_H

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/// The decimal integer that is all of `text`, if it lies in [1, max].
inline bool parseCount(const char *text, long max, long &value) {
  if (*text < '0' || *text > '9')
    return false;
  char *end = nullptr;
  errno = 0;
  value = strtol(text, &end, 10);
  return errno == 0 && *end == '\0' && value >= 1 && value <= max;
}

/// `list` as comma-separated counts in [1, max]: at least one, none empty.
inline bool parseCounts(const std::string &list, long max,
                        std::vector<int64_t> &counts) {
  counts.clear();
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma - start);
    long value;
    if (!parseCount(item.c_str(), max, value))
      return false;
    counts.push_back(value);
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

/// The most timed runs a benchmark takes per row.
constexpr long kMaxRepeats = 100000;

/// Reads --sizes=N,... (each in [1, maxSize]) and --repeats=R (in [1,
/// kMaxRepeats]) into `sizes` and `repeats` (which hold the defaults), and
/// --json=FILE into `*json` when the tool passes one (tools that do not
/// reject the flag); prints why and returns false on anything else.
inline bool parseBenchArgs(int argc, char **argv, const char *tool,
                           long maxSize, std::vector<int64_t> &sizes,
                           int &repeats, std::string *json = nullptr) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    long value;
    if (a.rfind("--sizes=", 0) == 0) {
      if (!parseCounts(a.substr(8), maxSize, sizes)) {
        fprintf(stderr, "%s: --sizes takes integers in [1, %ld], got '%s'\n",
                tool, maxSize, a.c_str() + 8);
        return false;
      }
    } else if (a.rfind("--repeats=", 0) == 0) {
      if (!parseCount(a.c_str() + 10, kMaxRepeats, value)) {
        fprintf(stderr,
                "%s: --repeats takes an integer in [1, %ld], got '%s'\n", tool,
                kMaxRepeats, a.c_str() + 10);
        return false;
      }
      repeats = int(value);
    } else if (json && a.rfind("--json=", 0) == 0 && a.size() > 7) {
      *json = a.substr(7);
    } else {
      fprintf(stderr, "usage: %s [--sizes=N,...] [--repeats=R]%s\n", tool,
              json ? " [--json=FILE]" : "");
      return false;
    }
  }
  return true;
}

#endif // AMP_BENCH_BENCHARGS_H
