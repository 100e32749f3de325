//===- Gemm.cpp - OpenBLAS threading and choice for the CPU backend -------===//

#include "Gemm.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

bool amprt::cpu::openBlasEnabled() {
#ifdef AMPRT_HAVE_OPENBLAS
  static const bool enabled = [] {
    const char *v = std::getenv("AMPRT_BLAS");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return enabled;
#else
  return false;
#endif
}

void amprt::cpu::useSingleThreadedBlas() {
#ifdef AMPRT_HAVE_OPENBLAS
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
#endif
}
