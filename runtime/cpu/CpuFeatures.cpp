//===- CpuFeatures.cpp - What the CPU backend runs on this machine --------===//
//
// A bf16 figure means little without the CPU's bf16 arithmetic named, and
// results that differ between machines are explained by the kernels each
// ran: benchmark tables and reports print amprt_cpu_kernels().
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"
#include "OneDnn.h"
#include "amprt/amprt.h"

#include <cpuid.h>
#include <string>

namespace {

/// CPUID leaf 7's registers for `subleaf` (zeros where the CPU lacks it).
struct Leaf7 {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  explicit Leaf7(unsigned subleaf) {
    if (__get_cpuid_max(0, nullptr) >= 7)
      __cpuid_count(7, subleaf, eax, ebx, ecx, edx);
  }
};

/// The features that pick kernels here and in oneDNN, as names. AVX-512
/// and AVX2 come from the compiler's checks, which also ask whether the
/// OS saves the registers; the newer ones from CPUID, under AVX-512.
std::string vectorFeatures() {
  std::string names;
  auto add = [&](bool has, const char *name) {
    if (has)
      names += names.empty() ? name : std::string(" ") + name;
  };
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl");
  Leaf7 base(0), sub(1);
  add(__builtin_cpu_supports("avx2"), "AVX2");
  add(avx512, "AVX-512");
  add(avx512 && (sub.eax >> 5 & 1), "AVX-512-BF16");
  add(avx512 && (base.edx >> 23 & 1), "AVX-512-FP16");
  // AMX-TILE, AMX-BF16 and AMX-INT8.
  add(avx512 && (base.edx >> 22 & 1) && (base.edx >> 24 & 1) &&
          (base.edx >> 25 & 1),
      "AMX");
  return names.empty() ? "no AVX2" : names;
}

} // namespace

extern "C" const char *amprt_cpu_kernels(void) {
  static const std::string description = [] {
    std::string isa = amprt::cpu::dnnlKernelIsa();
    std::string gemm = amprt::cpu::openBlasEnabled() ? "; GEMM OpenBLAS"
                                                     : "; GEMM built-in loops";
    return vectorFeatures() + gemm +
           (isa.empty() ? "; no oneDNN" : "; oneDNN " + isa);
  }();
  return description.c_str();
}
