//===- Transport.h - What a process group gives the runtime -----*- C++ -*-===//
//
// The runtime's collectives (amprt_all_reduce and the amprt_comm_ calls)
// are written once, in libamprt, on top of a few byte-moving primitives that
// a transport library provides: libamprt_mpi.so (MPI, here Debian's
// OpenMPI) is loaded on demand, so programs that never join a process group
// do not load MPI. The table is plain C so the two libraries need not share
// a C++ ABI, and versioned so a stale transport is refused, not called.
//
// Every call takes a deadline: a rank that died or hangs must end the job
// with an error, never leave the others waiting. A transport that misses the
// deadline returns AMPRT_ERROR_DEVICE with a message; the job cannot go on
// after that (a collective is half done), so the caller ends every rank with
// `abort`.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMM_TRANSPORT_H
#define AMPRT_COMM_TRANSPORT_H

#include "amprt/amprt.h"
#include <cstdarg>
#include <cstdio>
#include <stddef.h>
#include <stdint.h>

namespace amprt::comm {

inline constexpr int kTransportVersion = 1;

struct Transport {
  int version;
  /// "mpi".
  const char *name;
  int rank, size;
  /// Rank r sends sendCounts[j] bytes from send + sendOffsets[j] to rank j
  /// and receives recvCounts[j] bytes from rank j at recv + recvOffsets[j].
  amprt_status (*allToAll)(const void *send, const size_t *sendCounts,
                           const size_t *sendOffsets, void *recv,
                           const size_t *recvCounts, const size_t *recvOffsets,
                           double timeoutSeconds, char *error,
                           size_t errorSize);
  /// Rank j contributes counts[j] bytes (from `mine`); every rank receives
  /// all of them at out + offsets[j].
  amprt_status (*allGather)(const void *mine, const size_t *counts,
                            const size_t *offsets, void *out,
                            double timeoutSeconds, char *error,
                            size_t errorSize);
  /// `bytes` at `data` go from `root` to every rank.
  amprt_status (*broadcast)(void *data, size_t bytes, int root,
                            double timeoutSeconds, char *error,
                            size_t errorSize);
  /// The smallest and largest `value` over the ranks.
  amprt_status (*minMax)(uint64_t value, uint64_t *min, uint64_t *max,
                         double timeoutSeconds, char *error, size_t errorSize);
  /// Ends every rank of the job with `code` (does not return).
  void (*abort)(int code);
  amprt_status (*finalize)(void);
};

/// Writes a transport's message into the caller's `error` buffer (the
/// tables report errors this way, not through a C++ type).
inline void formatError(char *error, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
inline void formatError(char *error, size_t size, const char *fmt, ...) {
  if (!error || !size)
    return;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error, size, fmt, args);
  va_end(args);
}

/// Exported by libamprt_mpi.so: joins the launcher's job (MPI_Init) and
/// returns the table, or null with a message in `error`.
using TransportInitFn = const Transport *(*)(char *error, size_t errorSize);

} // namespace amprt::comm

#endif // AMPRT_COMM_TRANSPORT_H
