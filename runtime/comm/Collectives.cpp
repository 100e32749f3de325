//===- Collectives.cpp - amprt_comm_* and amprt_all_reduce ----------------===//
//
// The process group and its all-reduce, written once over a Transport. The
// tensors of one call are packed into one host buffer (a bucket: one message
// however many gradients), reduced deterministically (ChunkReduce.h) and
// unpacked. Host staging makes the same code serve every device: a CUDA
// tensor is copied to the host and back (a CUDA-aware or NCCL transport
// would avoid those copies).
//
//===----------------------------------------------------------------------===//

#include "ChunkReduce.h"
#include "DeviceBackend.h"
#include "DeviceTransport.h"
#include "Runtime.h"
#include "Transport.h"
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

using namespace amprt;
using namespace amprt::comm;

namespace {

struct World {
  const Transport *transport = nullptr; // null: this process alone
  /// NCCL for CUDA contexts (--comm=nccl), joined at the first all-reduce.
  const DeviceTransport *device = nullptr;
  bool deviceJoined = false;
  bool joined = false;
  /// MPI was finalized: it cannot start again in this process.
  bool mpiFinalized = false;
  double timeoutSeconds = 300;
  uint64_t bytesSent = 0, collectives = 0;
};

World &world() {
  static World w;
  return w;
}

int rankOf() { return world().transport ? world().transport->rank : 0; }
int sizeOf() { return world().transport ? world().transport->size : 1; }

/// `file` beside this library, unless the environment variable `env` names
/// another.
std::string libraryPath(const char *env, const char *file) {
  if (const char *given = std::getenv(env))
    return given;
  std::string path = file;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&amprt_comm_init), &info) &&
      info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      path = self.substr(0, slash + 1) + path;
  }
  return path;
}

/// The entry `symbol` of the `what` transport library `path`; `missing`
/// says what to install when it does not load.
amprt_status openTransport(const char *what, const std::string &path,
                           const char *symbol, const char *missing,
                           void *&entry) {
  // RTLD_GLOBAL: Open MPI's own plugins resolve MPI symbols globally.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *why = dlerror();
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "amprt_comm_init: the %s transport did not load (%s); %s", what,
                why ? why : path.c_str(), missing);
  }
  entry = dlsym(handle, symbol);
  if (!entry)
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "amprt_comm_init: %s is not an amp %s transport", path.c_str(),
                what);
  return ok();
}

amprt_status loadNccl(const DeviceTransport *&out) {
  std::string path = libraryPath("AMPRT_NCCL_LIBRARY", "libamprt_nccl.so");
  void *entry = nullptr;
  AMPRT_CHECK(openTransport("NCCL", path, "amprt_nccl_transport",
                            "NCCL needs libnccl.so.2 and an amp built with "
                            "the CUDA toolkit's NCCL",
                            entry));
  char error[512] = {0};
  const DeviceTransport *table =
      reinterpret_cast<DeviceTransportInitFn>(entry)(error, sizeof(error));
  if (!table)
    return fail(AMPRT_ERROR_DEVICE, "amprt_comm_init: %s", error);
  if (table->version != kDeviceTransportVersion)
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "amprt_comm_init: %s is device transport version %d, this "
                "runtime needs %d",
                path.c_str(), table->version, kDeviceTransportVersion);
  out = table;
  return ok();
}

amprt_status loadMpi(const Transport *&out) {
  std::string path = libraryPath("AMPRT_MPI_LIBRARY", "libamprt_mpi.so");
  void *entry = nullptr;
  AMPRT_CHECK(openTransport("MPI", path, "amprt_mpi_transport",
                            "install MPI (Debian: openmpi-bin "
                            "libopenmpi-dev) and rebuild amp",
                            entry));
  auto init = reinterpret_cast<TransportInitFn>(entry);
  char error[512] = {0};
  const Transport *table = init(error, sizeof(error));
  if (!table)
    return fail(AMPRT_ERROR_DEVICE, "amprt_comm_init: %s", error);
  if (table->version != kTransportVersion)
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "amprt_comm_init: %s is transport version %d, this runtime "
                "needs %d",
                path.c_str(), table->version, kTransportVersion);
  out = table;
  return ok();
}

/// amprt_all_reduce of a CUDA context on the device transport: results
/// start as copies of the operands and are reduced in place on the
/// context's stream.
amprt_status deviceAllReduce(amprt_context *ctx, const amprt_tensor *const *xs,
                             int count, amprt_reduction reduction,
                             amprt_tensor *const *ys) {
  const char *op = "amprt_all_reduce";
  World &w = world();
  char error[512] = {0};
  if (!w.deviceJoined) {
    if (amprt_status s = w.device->join(w.transport, ctx->index,
                                        w.timeoutSeconds, error, sizeof(error)))
      return fail(s, "%s: %s", op, error);
    w.deviceJoined = true;
  }
  std::vector<void *> buffers(count);
  std::vector<size_t> elements(count);
  uint64_t bytes = 0;
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(device::backend()->copyOnDevice(ctx, ys[i]->data, xs[i]->data,
                                                xs[i]->bytes));
    buffers[i] = ys[i]->data;
    elements[i] = ys[i]->numel;
    bytes += ys[i]->bytes;
  }
  if (amprt_status s = w.device->allReduce(
          buffers.data(), elements.data(), count, xs[0]->dtype, reduction,
          ctx->stream, w.timeoutSeconds, error, sizeof(error)))
    return fail(s, "%s: %s", op, error);
  int parts = w.transport->size;
  w.bytesSent += 2 * bytes * (parts - 1) / parts; // a ring all-reduce
  ++w.collectives;
  return ok();
}

/// Records a transport's message for the caller.
amprt_status transportFailure(amprt_status status, const char *op,
                              const char *error) {
  return fail(status, "%s: %s", op, error);
}

} // namespace

extern "C" {

amprt_status amprt_comm_init(const char *backend, double timeout_seconds) {
  const char *op = "amprt_comm_init";
  World &w = world();
  if (!backend)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: backend is null", op);
  if (w.joined)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: this process already joined a process group", op);
  if (!(timeout_seconds > 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: the timeout must be > 0 seconds, got %g", op,
                timeout_seconds);
  std::string name = backend;
  if (w.mpiFinalized && name != "self")
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: MPI was finalized in this process and cannot start "
                "again (a process alone may join \"self\")",
                op);
  const Transport *transport = nullptr;
  const DeviceTransport *device = nullptr;
  if (name == "mpi" || name == "nccl") {
    // NCCL joins the job MPI forms (its bootstrap and the host-side
    // collectives go through MPI).
    if (name == "nccl")
      AMPRT_CHECK(loadNccl(device));
    AMPRT_CHECK(loadMpi(transport));
  } else if (name != "self") {
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: unknown backend '%s' (expected self, mpi or nccl)", op,
                backend);
  }
  w.transport = transport;
  w.device = device;
  w.joined = true;
  w.timeoutSeconds = timeout_seconds;
  w.bytesSent = w.collectives = 0;
  return ok();
}

amprt_status amprt_comm_set_timeout(double timeout_seconds) {
  if (!(timeout_seconds > 0))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_comm_set_timeout: the timeout must be > 0 seconds, "
                "got %g",
                timeout_seconds);
  world().timeoutSeconds = timeout_seconds;
  return ok();
}

int amprt_comm_rank(void) { return rankOf(); }
int amprt_comm_size(void) { return sizeOf(); }

const char *amprt_comm_backend(void) {
  if (world().device)
    return world().device->name;
  return world().transport ? world().transport->name : "self";
}

amprt_status amprt_comm_broadcast(amprt_tensor *tensor, int root) {
  const char *op = "amprt_comm_broadcast";
  if (!tensor)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: tensor is null", op);
  if (root < 0 || root >= sizeOf())
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: root %d is not a rank (%d ranks)", op, root, sizeOf());
  const Transport *t = world().transport;
  if (!t || t->size == 1)
    return ok();
  std::vector<char> host(tensor->bytes);
  AMPRT_CHECK(amprt_tensor_read(tensor, host.data(), host.size()));
  char error[512] = {0};
  if (amprt_status s =
          t->broadcast(host.data(), host.size(), root, world().timeoutSeconds,
                       error, sizeof(error)))
    return transportFailure(s, op, error);
  if (t->rank == root)
    world().bytesSent += host.size() * (t->size - 1);
  ++world().collectives;
  return amprt_tensor_write(tensor, host.data(), host.size());
}

amprt_status amprt_comm_agree(uint64_t value, const char *what) {
  const char *op = "amprt_comm_agree";
  const Transport *t = world().transport;
  if (!t || t->size == 1)
    return ok();
  uint64_t min = 0, max = 0;
  char error[512] = {0};
  if (amprt_status s = t->minMax(value, &min, &max, world().timeoutSeconds,
                                 error, sizeof(error)))
    return transportFailure(s, op, error);
  ++world().collectives;
  if (min != max)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "the ranks disagree on %s (rank %d has %016llx; values "
                "range from %016llx to %016llx): every rank must run the "
                "same program with the same flags",
                what ? what : "a value", t->rank, (unsigned long long)value,
                (unsigned long long)min, (unsigned long long)max);
  return ok();
}

amprt_status amprt_comm_stats(uint64_t *bytes_sent, uint64_t *collectives) {
  if (!bytes_sent || !collectives)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "amprt_comm_stats: null output");
  *bytes_sent = world().bytesSent;
  *collectives = world().collectives;
  return ok();
}

void amprt_comm_abort(int code) {
  if (const Transport *t = world().transport)
    t->abort(code);
  std::_Exit(code);
}

amprt_status amprt_comm_finalize(void) {
  World &w = world();
  amprt_status s = AMPRT_OK;
  if (w.device && w.deviceJoined)
    w.device->leave();
  w.device = nullptr;
  if (w.transport) {
    s = w.transport->finalize();
    w.mpiFinalized = true;
  }
  w.transport = nullptr;
  // A host that trains more than once in one process joins again.
  w.joined = false;
  return s == AMPRT_OK ? ok() : s;
}

amprt_status amprt_all_reduce(amprt_context *ctx, const amprt_tensor *comm,
                              const amprt_tensor *const *xs, int count,
                              amprt_reduction reduction,
                              amprt_tensor *const *ys) {
  const char *op = "amprt_all_reduce";
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: ctx is null", op);
  AMPRT_CHECK(checkTensor(op, "comm", comm, ctx));
  AMPRT_CHECK(checkScalar(op, "comm", comm, AMPRT_I64));
  if (count < 1 || !xs || !ys)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: needs operands", op);
  if (reduction < AMPRT_REDUCE_SUM || reduction > AMPRT_REDUCE_MAX)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown reduction %d", op,
                (int)reduction);
  AMPRT_CHECK(checkTensor(op, "operand", xs[0], ctx));
  amprt_dtype dtype = xs[0]->dtype;
  if (!reductionApplies(reduction, dtype))
    return fail(AMPRT_ERROR_DTYPE, "%s: %s does not apply to %s tensors", op,
                reduction == AMPRT_REDUCE_SUM ? "sum" : "mean",
                dtypeName(dtype));
  int64_t total = 0;
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(checkTensor(op, "operand", xs[i], ctx));
    AMPRT_CHECK(checkTensor(op, "result", ys[i], ctx));
    AMPRT_CHECK(checkSameDtype(op, "operand", xs[i], dtype));
    AMPRT_CHECK(checkSameDtype(op, "result", ys[i], dtype));
    AMPRT_CHECK(checkShape(op, "result", ys[i], xs[i]->shape));
    total += xs[i]->numel;
  }
  int64_t id = -1;
  AMPRT_CHECK(amprt_tensor_read(comm, &id, sizeof(id)));
  if (id != 0)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: communicator %lld does not exist (0 is the world)", op,
                (long long)id);

  size_t elementBytes = amprt_dtype_size(dtype);
  const Transport *t = world().transport;
  int parts = sizeOf();
  if (world().device && ctx->device == AMPRT_DEVICE_CUDA && parts > 1)
    return deviceAllReduce(ctx, xs, count, reduction, ys);

  std::vector<char> packed(total * elementBytes);
  size_t offset = 0;
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(amprt_tensor_read(xs[i], packed.data() + offset, xs[i]->bytes));
    offset += xs[i]->bytes;
  }

  if (t && parts > 1) {
    int rank = t->rank;
    int64_t mine = chunkLength(total, parts, rank);
    std::vector<size_t> sendCounts(parts), sendOffsets(parts),
        recvCounts(parts), recvOffsets(parts), gatherCounts(parts),
        gatherOffsets(parts);
    for (int j = 0; j < parts; ++j) {
      sendCounts[j] = chunkLength(total, parts, j) * elementBytes;
      sendOffsets[j] = chunkBegin(total, parts, j) * elementBytes;
      recvCounts[j] = mine * elementBytes;
      recvOffsets[j] = j * mine * elementBytes;
      gatherCounts[j] = sendCounts[j];
      gatherOffsets[j] = sendOffsets[j];
    }
    std::vector<char> copies(parts * mine * elementBytes + 1);
    std::vector<char> reduced(mine * elementBytes + 1);
    char error[512] = {0};
    if (amprt_status s =
            t->allToAll(packed.data(), sendCounts.data(), sendOffsets.data(),
                        copies.data(), recvCounts.data(), recvOffsets.data(),
                        world().timeoutSeconds, error, sizeof(error)))
      return transportFailure(s, op, error);
    reduceChunk(dtype, reduction, copies.data(), parts, mine, reduced.data());
    if (amprt_status s = t->allGather(
            reduced.data(), gatherCounts.data(), gatherOffsets.data(),
            packed.data(), world().timeoutSeconds, error, sizeof(error)))
      return transportFailure(s, op, error);
    world().bytesSent += (total - mine) * elementBytes +
                         (uint64_t)(parts - 1) * mine * elementBytes;
  }
  // On one rank the packed copy is the result: the reduction of one value
  // is the value (an f32 sum of one 16-bit value rounds back exactly).
  ++world().collectives;

  offset = 0;
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(
        amprt_tensor_write(ys[i], packed.data() + offset, ys[i]->bytes));
    offset += ys[i]->bytes;
  }
  return ok();
}

} // extern "C"
