//===- Gemm.cpp - OpenBLAS threading for the CPU backend ------------------===//

#include "Gemm.h"

#include <mutex>

void amprt::cpu::useSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}
