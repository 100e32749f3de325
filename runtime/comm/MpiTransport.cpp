//===- MpiTransport.cpp - The runtime's process group over MPI ------------===//
//
// libamprt_mpi.so: the Transport table on MPI's nonblocking collectives.
// Each call starts the collective and polls it against a deadline, so a
// rank that died or hangs turns into an error on the ranks that wait for it
// instead of a hang. Errors return (MPI_ERRORS_RETURN) rather than abort
// inside MPI, so the runtime can say which collective failed.
//
//===----------------------------------------------------------------------===//

#include "Transport.h"
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mpi.h>
#include <vector>

using namespace amprt::comm;

namespace {

amprt_status mpiError(int code, const char *what, char *error, size_t size) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(code, text, &length);
  formatError(error, size, "%s failed in MPI: %s", what, text);
  return AMPRT_ERROR_DEVICE;
}

/// Polls `request` until it completes or `timeoutSeconds` pass.
amprt_status waitFor(MPI_Request &request, const char *what,
                     double timeoutSeconds, char *error, size_t size) {
  double start = MPI_Wtime();
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    if (int rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE))
      return mpiError(rc, what, error, size);
    if (done)
      return AMPRT_OK;
    if (MPI_Wtime() - start > timeoutSeconds) {
      formatError(error, size,
                  "%s did not complete within %g s: another rank has died, "
                  "hangs, or runs a different step",
                  what, timeoutSeconds);
      return AMPRT_ERROR_DEVICE;
    }
    // Spin briefly (a collective on one machine takes microseconds), then
    // stop burning the core that a slower rank may need.
    if (polls > 2000) {
      timespec pause{0, 50000};
      nanosleep(&pause, nullptr);
    }
  }
}

int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// MPI counts are ints: byte counts and offsets must fit.
bool toInts(const size_t *in, std::vector<int> &out, const char *what,
            char *error, size_t size) {
  int n = worldSize();
  out.resize(n);
  for (int i = 0; i < n; ++i) {
    if (in[i] > (size_t)INT_MAX) {
      formatError(error, size,
                  "%s: %zu bytes exceed MPI's count limit (%d); use smaller "
                  "buckets",
                  what, in[i], INT_MAX);
      return false;
    }
    out[i] = (int)in[i];
  }
  return true;
}

amprt_status allToAll(const void *send, const size_t *sendCounts,
                      const size_t *sendOffsets, void *recv,
                      const size_t *recvCounts, const size_t *recvOffsets,
                      double timeoutSeconds, char *error, size_t size) {
  const char *what = "all-to-all exchange";
  std::vector<int> sc, so, rc, ro;
  if (!toInts(sendCounts, sc, what, error, size) ||
      !toInts(sendOffsets, so, what, error, size) ||
      !toInts(recvCounts, rc, what, error, size) ||
      !toInts(recvOffsets, ro, what, error, size))
    return AMPRT_ERROR_INVALID_ARGUMENT;
  MPI_Request request;
  if (int code =
          MPI_Ialltoallv(send, sc.data(), so.data(), MPI_BYTE, recv, rc.data(),
                         ro.data(), MPI_BYTE, MPI_COMM_WORLD, &request))
    return mpiError(code, what, error, size);
  return waitFor(request, what, timeoutSeconds, error, size);
}

amprt_status allGather(const void *mine, const size_t *counts,
                       const size_t *offsets, void *out, double timeoutSeconds,
                       char *error, size_t size) {
  const char *what = "all-gather";
  std::vector<int> c, o;
  if (!toInts(counts, c, what, error, size) ||
      !toInts(offsets, o, what, error, size))
    return AMPRT_ERROR_INVALID_ARGUMENT;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Request request;
  if (int code = MPI_Iallgatherv(mine, c[rank], MPI_BYTE, out, c.data(),
                                 o.data(), MPI_BYTE, MPI_COMM_WORLD, &request))
    return mpiError(code, what, error, size);
  return waitFor(request, what, timeoutSeconds, error, size);
}

amprt_status broadcast(void *data, size_t bytes, int root,
                       double timeoutSeconds, char *error, size_t size) {
  const char *what = "broadcast";
  // Large tensors go in pieces that fit MPI's int count.
  auto *p = static_cast<char *>(data);
  do {
    int piece = bytes > (size_t)INT_MAX ? INT_MAX : (int)bytes;
    MPI_Request request;
    if (int code =
            MPI_Ibcast(p, piece, MPI_BYTE, root, MPI_COMM_WORLD, &request))
      return mpiError(code, what, error, size);
    if (amprt_status s = waitFor(request, what, timeoutSeconds, error, size))
      return s;
    p += piece;
    bytes -= piece;
  } while (bytes > 0);
  return AMPRT_OK;
}

amprt_status minMax(uint64_t value, uint64_t *min, uint64_t *max,
                    double timeoutSeconds, char *error, size_t size) {
  // max(~v) = ~min(v): one reduction gives both.
  uint64_t in[2] = {value, ~value}, out[2] = {0, 0};
  MPI_Request request;
  if (int code = MPI_Iallreduce(in, out, 2, MPI_UINT64_T, MPI_MAX,
                                MPI_COMM_WORLD, &request))
    return mpiError(code, "agreement check", error, size);
  if (amprt_status s =
          waitFor(request, "agreement check", timeoutSeconds, error, size))
    return s;
  *max = out[0];
  *min = ~out[1];
  return AMPRT_OK;
}

void abortJob(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

amprt_status finalize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Finalize();
  return AMPRT_OK;
}

} // namespace

extern "C" __attribute__((visibility("default"))) const Transport *
amprt_mpi_transport(char *error, size_t errorSize) {
  static Transport table;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Collectives are called from the thread that runs the step; OpenMP
    // workers never call MPI.
    int provided = 0;
    if (int code =
            MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided)) {
      mpiError(code, "MPI_Init_thread", error, errorSize);
      return nullptr;
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  table.version = kTransportVersion;
  table.name = "mpi";
  MPI_Comm_rank(MPI_COMM_WORLD, &table.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &table.size);
  table.allToAll = allToAll;
  table.allGather = allGather;
  table.broadcast = broadcast;
  table.minMax = minMax;
  table.abort = abortJob;
  table.finalize = finalize;
  return &table;
}
