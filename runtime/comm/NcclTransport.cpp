//===- NcclTransport.cpp - Device all-reduce on NCCL ----------------------===//
//
// libamprt_nccl.so: bootstraps an NCCL communicator over the host transport
// (rank 0's ncclUniqueId broadcast) and all-reduces device buffers in place
// on the context's stream, one NCCL call per tensor of a bucket inside one
// group. The wait polls the stream against the deadline and aborts the
// communicator when it passes, so a dead rank is an error, not a hang.
// NCCL sums in the wire type and in its own order: results agree across
// ranks but are not the host path's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "DeviceTransport.h"
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#include <nccl.h>
#include <thread>

using namespace amprt::comm;

namespace {

ncclComm_t comm = nullptr;

amprt_status ncclFailure(ncclResult_t result, const char *what, char *error,
                         size_t size) {
  formatError(error, size, "%s failed in NCCL: %s", what,
              ncclGetErrorString(result));
  return AMPRT_ERROR_DEVICE;
}

bool toNccl(amprt_dtype dtype, ncclDataType_t &out) {
  switch (dtype) {
  case AMPRT_F32:
    out = ncclFloat32;
    return true;
  case AMPRT_F16:
    out = ncclFloat16;
    return true;
  case AMPRT_BF16:
    out = ncclBfloat16;
    return true;
  case AMPRT_F64:
    out = ncclFloat64;
    return true;
  case AMPRT_I32:
    out = ncclInt32;
    return true;
  case AMPRT_I64:
    out = ncclInt64;
    return true;
  case AMPRT_I1:
    out = ncclUint8; // 0 or 1: min is and, max is or
    return true;
  default:
    return false;
  }
}

bool toNccl(amprt_reduction reduction, ncclRedOp_t &out) {
  switch (reduction) {
  case AMPRT_REDUCE_SUM:
    out = ncclSum;
    return true;
  case AMPRT_REDUCE_MEAN:
    out = ncclAvg;
    return true;
  case AMPRT_REDUCE_MIN:
    out = ncclMin;
    return true;
  case AMPRT_REDUCE_MAX:
    out = ncclMax;
    return true;
  default:
    return false;
  }
}

amprt_status join(const Transport *host, int device, double timeoutSeconds,
                  char *error, size_t size) {
  if (comm)
    return AMPRT_OK;
  if (cudaError_t e = cudaSetDevice(device)) {
    formatError(error, size, "cudaSetDevice(%d): %s", device,
                cudaGetErrorString(e));
    return AMPRT_ERROR_DEVICE;
  }
  ncclUniqueId id{};
  if (host->rank == 0)
    if (ncclResult_t r = ncclGetUniqueId(&id))
      return ncclFailure(r, "ncclGetUniqueId", error, size);
  if (amprt_status s =
          host->broadcast(&id, sizeof(id), 0, timeoutSeconds, error, size))
    return s;
  if (ncclResult_t r = ncclCommInitRank(&comm, host->size, id, host->rank))
    return ncclFailure(r, "ncclCommInitRank", error, size);
  return AMPRT_OK;
}

/// Waits for `stream` within the deadline; past it, aborts the
/// communicator (the collective can never complete).
amprt_status wait(cudaStream_t stream, double timeoutSeconds, char *error,
                  size_t size) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess)
      return AMPRT_OK;
    if (e != cudaErrorNotReady) {
      formatError(error, size, "NCCL all-reduce: %s", cudaGetErrorString(e));
      return AMPRT_ERROR_DEVICE;
    }
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm, &async);
    if (async != ncclSuccess && async != ncclInProgress)
      return ncclFailure(async, "NCCL all-reduce", error, size);
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (waited > timeoutSeconds) {
      ncclCommAbort(comm);
      comm = nullptr;
      formatError(error, size,
                  "NCCL all-reduce did not complete within %g s: another rank "
                  "has died, hangs, or runs a different step",
                  timeoutSeconds);
      return AMPRT_ERROR_DEVICE;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

amprt_status allReduce(void *const *buffers, const size_t *elements, int count,
                       amprt_dtype dtype, amprt_reduction reduction,
                       void *stream, double timeoutSeconds, char *error,
                       size_t size) {
  ncclDataType_t type;
  ncclRedOp_t op;
  if (!comm) {
    formatError(error, size, "NCCL all-reduce before the communicator joined");
    return AMPRT_ERROR_INVALID_ARGUMENT;
  }
  if (!toNccl(dtype, type) || !toNccl(reduction, op)) {
    formatError(error, size, "NCCL all-reduce: unsupported type or reduction");
    return AMPRT_ERROR_UNSUPPORTED;
  }
  auto s = static_cast<cudaStream_t>(stream);
  if (ncclResult_t r = ncclGroupStart())
    return ncclFailure(r, "ncclGroupStart", error, size);
  for (int i = 0; i < count; ++i)
    if (ncclResult_t r = ncclAllReduce(buffers[i], buffers[i], elements[i],
                                       type, op, comm, s)) {
      ncclGroupEnd();
      return ncclFailure(r, "ncclAllReduce", error, size);
    }
  if (ncclResult_t r = ncclGroupEnd())
    return ncclFailure(r, "ncclGroupEnd", error, size);
  return wait(s, timeoutSeconds, error, size);
}

void leave() {
  if (comm)
    ncclCommDestroy(comm);
  comm = nullptr;
}

} // namespace

extern "C" __attribute__((visibility("default"))) const DeviceTransport *
amprt_nccl_transport(char *error, size_t errorSize) {
  static const DeviceTransport table = {kDeviceTransportVersion, "nccl", join,
                                        allReduce, leave};
  int version = 0;
  if (ncclResult_t r = ncclGetVersion(&version)) {
    ncclFailure(r, "ncclGetVersion", error, errorSize);
    return nullptr;
  }
  return &table;
}
