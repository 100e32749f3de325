//===- CpuBackend.cpp - The CPU backend's table ---------------------------===//

#include "../api/Dispatch.h"
#include "CpuOps.h"

using namespace amprt;

const device::Backend *cpu::backend() {
  static const device::Backend table = [] {
    device::Backend t{};
    t.version = device::kBackendVersion;
    t.copyOnDevice = cpu::copyOnDevice;
    t.stridedMatmul = cpu::stridedMatmul;
    t.attention = cpu::attention;
    t.attentionGrad = cpu::attentionGrad;
#define AMPRT_SET_CPU_OP(name, params) t.name = cpu::name;
    AMPRT_BACKEND_OPS(AMPRT_SET_CPU_OP)
#undef AMPRT_SET_CPU_OP
    return t;
  }();
  return &table;
}
