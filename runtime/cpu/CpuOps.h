//===- CpuOps.h - The CPU backend's entries ---------------------*- C++ -*-===//
//
// One function per op entry of the backend table, with the table's
// parameters (declared from AMPRT_BACKEND_OPS, so a changed entry fails to
// compile here); CpuBackend.cpp assembles them into the table the C API
// front dispatches CPU contexts to.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_CPUOPS_H
#define AMPRT_CPU_CPUOPS_H

#include "../common/DeviceBackend.h"

namespace amprt::cpu {

using device::Activation;
using device::Ctx;
using device::Tensor;

#define AMPRT_DECLARE_CPU_OP(name, params) amprt_status name params;
AMPRT_BACKEND_OPS(AMPRT_DECLARE_CPU_OP)
#undef AMPRT_DECLARE_CPU_OP

/// amprt_batch_matmul_strided on oneDNN, where it has a native kernel for
/// the views (f32, bf16); *ran false otherwise.
amprt_status stridedMatmul(Ctx *ctx, const Tensor *a, const StridedView &av,
                           const Tensor *b, const StridedView &bv, Tensor *c,
                           const StridedView &cv, bool *ran);

/// amprt_attention and its gradient a head at a time (AttentionOps.cpp):
/// f32, f16 and bf16; *ran false for f64.
amprt_status attention(Ctx *ctx, const device::AttentionOperands &a, Tensor *o,
                       const StridedView &ov, bool *ran);
amprt_status attentionGrad(Ctx *ctx, const device::AttentionOperands &a,
                           const Tensor *dO, const StridedView &dOv,
                           const device::AttentionGrads &g, bool *ran);

/// CPU memory is the host's: a copy "on the device" is a memcpy.
amprt_status copyOnDevice(Ctx *ctx, void *dst, const void *src, size_t bytes);

} // namespace amprt::cpu

#endif // AMPRT_CPU_CPUOPS_H
