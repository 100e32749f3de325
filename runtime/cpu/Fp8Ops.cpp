//===- Fp8Ops.cpp - FP8 quantization and delayed scaling on the CPU -------===//
//
// The CPU backend's FP8 entries run the device backend's op code
// (device/DeviceOps.h) on the CPU's cores: one definition of the rounding,
// the scale rule and the amax history for both backends, so the CPU tests
// check what the GPU runs.
//
//===----------------------------------------------------------------------===//

#include "../device/DeviceOps.h"
#include "CpuExec.h"
#include "CpuOps.h"

using namespace amprt;
using namespace amprt::cpu;

namespace {
constexpr int64_t kGrain = 1 << 14;
} // namespace

amprt_status cpu::scaledCast(Ctx *, const Tensor *x, const Tensor *scale,
                             Tensor *y) {
  CpuExec exec(kGrain);
  return device::scaledCast(exec, x, scale, y);
}

amprt_status cpu::amax(Ctx *, const Tensor *x, Tensor *y) {
  CpuExec exec(1);
  return device::amax(exec, x, y);
}

amprt_status cpu::fp8Scale(Ctx *, const Tensor *history, double fp8Max,
                           int64_t margin, Tensor *scale) {
  CpuExec exec(1);
  return device::fp8Scale(exec, history, fp8Max, margin, scale);
}

amprt_status cpu::recordAmax(Ctx *, const Tensor *history, const Tensor *amax,
                             Tensor *newHistory) {
  CpuExec exec(kGrain);
  return device::recordAmax(exec, history, amax, newHistory);
}
