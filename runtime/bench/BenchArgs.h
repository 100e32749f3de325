//===- BenchArgs.h - The runtime benchmarks' command line -------*- C++ -*-===//

#ifndef AMP_BENCH_BENCHARGS_H
#define AMP_BENCH_BENCHARGS_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/// Reads --sizes=N,... (each in [1, maxSize]) and --repeats=R into `sizes`
/// and `repeats` (which hold the defaults), and --json=FILE into `*json`
/// when the tool passes one (tools that do not reject the flag); prints why
/// and returns false on anything else.
inline bool parseBenchArgs(int argc, char **argv, const char *tool,
                           long maxSize, std::vector<int64_t> &sizes,
                           int &repeats, std::string *json = nullptr) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      for (char *p = &a[8]; *p;) {
        long v = strtol(p, &p, 10);
        if (v < 1 || v > maxSize || (*p && *p != ',')) {
          fprintf(stderr, "%s: sizes must be integers in [1, %ld]\n", tool,
                  maxSize);
          return false;
        }
        sizes.push_back(v);
        if (*p == ',')
          ++p;
      }
    } else if (a.rfind("--repeats=", 0) == 0) {
      repeats = std::max(1, atoi(a.c_str() + 10));
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
