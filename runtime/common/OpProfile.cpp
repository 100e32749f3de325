//===- OpProfile.cpp - The process's table of op times --------------------===//

#include "OpProfile.h"
#include "AtomicWrite.h"
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct OpTime {
  long long calls = 0;
  double seconds = 0;
};

std::mutex tableMutex;

std::map<std::string, OpTime> &table() {
  static std::map<std::string, OpTime> times;
  return times;
}

/// Rows by total time, longest first (ties by name, so runs compare).
std::vector<std::pair<std::string, OpTime>> sortedRows() {
  std::vector<std::pair<std::string, OpTime>> rows(table().begin(),
                                                   table().end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds;
  });
  return rows;
}

} // namespace

const char *amprt::opProfilePath() {
  static const char *path = [] {
    const char *env = std::getenv("AMPRT_PROFILE");
    return env && *env ? env : nullptr;
  }();
  return path;
}

void amprt::recordOpTime(const char *op, double seconds) {
  std::lock_guard<std::mutex> lock(tableMutex);
  OpTime &t = table()[op];
  ++t.calls;
  t.seconds += seconds;
}

int amprt::writeOpProfile() {
  std::lock_guard<std::mutex> lock(tableMutex);
  double total = 0;
  for (const auto &[op, t] : table())
    total += t.seconds;
  auto rows = sortedRows();
  return writeFileWhole(opProfilePath(), [&](std::FILE *out) {
    bool good = std::fprintf(out, "op\tcalls\ttotal_ms\tmean_us\tshare\n") > 0;
    for (const auto &[op, t] : rows)
      good = good &&
             std::fprintf(out, "%s\t%lld\t%.3f\t%.2f\t%.4f\n", op.c_str(),
                          t.calls, t.seconds * 1e3, t.seconds * 1e6 / t.calls,
                          total > 0 ? t.seconds / total : 0.0) > 0;
    return good;
  });
}
