//===- Dispatch.h - The C API front's checks and backend choice -*- C++ -*-===//
//
// Every amprt_ op entry point is written the same way: check its arguments
// and compute its geometry here, on the host, once; then run the op on the
// backend of the context's device. A backend (the CPU's, or a device
// library's) sees only checked arguments, so its entries hold no checks of
// their own and every backend reports the same errors.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_API_DISPATCH_H
#define AMPRT_API_DISPATCH_H

#include "../common/DeviceBackend.h"
#include "../common/Geometry.h"
#include "../common/OpProfile.h"
#include "../common/Runtime.h"
#include <initializer_list>

/// Runs `call`, an entry of the backend table, on `ctx`'s backend, timed
/// under the name in `op` when AMPRT_PROFILE is set (OpProfile.h).
#define AMPRT_RUN(ctx, call)                                                   \
  do {                                                                         \
    ::amprt::OpTimer opTimer(ctx, op);                                         \
    return ::amprt::opsFor(ctx)->call;                                         \
  } while (0)

namespace amprt {

namespace cpu {
/// The CPU backend's table (ops only: CPU memory is the host's).
const device::Backend *backend();
} // namespace cpu

/// The backend that runs ops on `ctx`'s device. A CUDA context exists only
/// when the device library loaded, so its table is there.
inline const device::Backend *opsFor(const amprt_context *ctx) {
  return ctx->device == AMPRT_DEVICE_CUDA ? device::backend() : cpu::backend();
}

inline amprt_status requireContext(const char *op, amprt_context *ctx) {
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: ctx is null", op);
  return AMPRT_OK;
}

/// An operand, by the name errors give it.
struct Operand {
  const char *name;
  const amprt_tensor *tensor;
};

/// `ctx` is a context and every operand a live tensor on it.
inline amprt_status checkOperands(const char *op, amprt_context *ctx,
                                  std::initializer_list<Operand> operands) {
  AMPRT_CHECK(requireContext(op, ctx));
  for (const Operand &o : operands)
    AMPRT_CHECK(checkTensor(op, o.name, o.tensor, ctx));
  return AMPRT_OK;
}

/// The sizes of a matrix product op(a) op(b), batched or not.
struct GemmShape {
  int64_t m, n, k, batch;
};

/// Checks the operands' ranks (2; equal and >= 3 when `batched`), batch
/// dimensions and contracting sizes, and c's shape, for op(a) op(b).
amprt_status gemmShape(const char *op, const amprt_tensor *a,
                       const amprt_tensor *b, bool ta, bool tb, bool batched,
                       const amprt_tensor *c, GemmShape &g);

/// Split of `shape` around dimension `axis`.
inline Split split(const Shape &shape, int64_t axis) {
  Split s;
  for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
    (d < axis ? s.outer : d == axis ? s.axis : s.inner) *= shape[d];
  return s;
}

/// The element type of statistics for data of `dtype` (f32, f64 for f64).
inline amprt_dtype statsDtype(amprt_dtype dtype) {
  return dtype == AMPRT_F64 ? AMPRT_F64 : AMPRT_F32;
}

} // namespace amprt

#endif // AMPRT_API_DISPATCH_H
