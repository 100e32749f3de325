//===- DeviceTransport.h - Collectives on device memory --------*- C++ -*-===//
//
// A transport whose all-reduce works on device buffers in place, on the
// context's stream (libamprt_nccl.so: NCCL). It joins the job the host
// transport (MPI) already formed: the host transport carries its bootstrap
// and every other collective (agreement, broadcast). Plain C, versioned,
// as Transport.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMM_DEVICETRANSPORT_H
#define AMPRT_COMM_DEVICETRANSPORT_H

#include "Transport.h"

namespace amprt::comm {

inline constexpr int kDeviceTransportVersion = 1;

struct DeviceTransport {
  int version;
  /// "nccl".
  const char *name;
  /// Joins `host`'s job on CUDA device `device`. Collective: every rank
  /// calls it at the same point (the first all-reduce of a CUDA context).
  amprt_status (*join)(const Transport *host, int device, double timeoutSeconds,
                       char *error, size_t errorSize);
  /// Each of `count` device buffers of `elements[i]` elements becomes its
  /// reduction over the ranks, in place, on `stream`; returns when done.
  amprt_status (*allReduce)(void *const *buffers, const size_t *elements,
                            int count, amprt_dtype dtype,
                            amprt_reduction reduction, void *stream,
                            double timeoutSeconds, char *error,
                            size_t errorSize);
  void (*leave)(void);
};

/// Exported by libamprt_nccl.so.
using DeviceTransportInitFn = const DeviceTransport *(*)(char *error,
                                                         size_t errorSize);

} // namespace amprt::comm

#endif // AMPRT_COMM_DEVICETRANSPORT_H
