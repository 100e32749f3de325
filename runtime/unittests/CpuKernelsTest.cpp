//===- CpuKernelsTest.cpp - The kernel family the CPU backend runs --------===//
//
// The runtime's tests run again under each oneDNN kernel family the CPU
// has (ctest's `runtime-isa-*` entries set ONEDNN_MAX_CPU_ISA): those runs
// mean something only if oneDNN honoured the cap. This test says which
// family runs, passes when it is the one asked for, skips when the CPU
// lacks it (oneDNN then runs a lower one), and fails when the cap was
// ignored (a higher family runs).
//
//===----------------------------------------------------------------------===//

#include "amprt/amprt.h"
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

namespace {

/// oneDNN's x86 families from the lowest, as amprt_cpu_kernels names them.
const char *const kFamilies[] = {"sse41",
                                 "avx",
                                 "avx2",
                                 "avx2_vnni",
                                 "avx512_core",
                                 "avx512_core_vnni",
                                 "avx512_core_bf16",
                                 "avx512_core_amx"};

/// The family's rank in kFamilies, or -1.
int rankOf(std::string family) {
  std::transform(family.begin(), family.end(), family.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (int i = 0; i < (int)std::size(kFamilies); ++i)
    if (family == kFamilies[i])
      return i;
  return -1;
}

/// The family after "; oneDNN " in amprt_cpu_kernels(), or "".
std::string runningFamily() {
  std::string kernels = amprt_cpu_kernels();
  std::string marker = "; oneDNN ";
  size_t at = kernels.find(marker);
  return at == std::string::npos ? "" : kernels.substr(at + marker.size());
}

TEST(CpuKernels, NamesTheFeaturesAndOneDnnFamily) {
  std::string kernels = amprt_cpu_kernels();
  EXPECT_EQ(kernels, amprt_cpu_kernels()) << "one description per process";
  bool named = kernels.find("; oneDNN ") != std::string::npos ||
               kernels.find("; no oneDNN") != std::string::npos;
  EXPECT_TRUE(named) << kernels;
  std::string family = runningFamily();
  if (!family.empty()) {
    EXPECT_GE(rankOf(family), 0) << kernels;
  }
  // oneDNN runs no AVX-512 family where the CPU (or the OS) has none.
  if (kernels.find("AVX-512") == std::string::npos) {
    EXPECT_EQ(family.find("avx512"), std::string::npos) << kernels;
  }
}

TEST(CpuKernels, OneDnnRunsTheCappedFamily) {
  const char *cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (!cap || !*cap) // oneDNN reads an empty cap as none
    GTEST_SKIP() << "ONEDNN_MAX_CPU_ISA is not set";
  std::string family = runningFamily();
  if (family.empty())
    GTEST_SKIP() << "no oneDNN: " << amprt_cpu_kernels();
  int wanted = rankOf(cap), running = rankOf(family);
  ASSERT_GE(wanted, 0) << "unknown ONEDNN_MAX_CPU_ISA " << cap;
  ASSERT_GE(running, 0) << amprt_cpu_kernels();
  if (running < wanted)
    GTEST_SKIP() << "this CPU lacks " << cap << ": " << amprt_cpu_kernels();
  EXPECT_EQ(running, wanted) << "oneDNN ignored ONEDNN_MAX_CPU_ISA=" << cap
                             << ": " << amprt_cpu_kernels();
}

} // namespace
