//===- Runtime.cpp - Errors, contexts, tensors and the caching allocator ---===//

#include "Runtime.h"
#include "DeviceBackend.h"
#include "OpProfile.h"
#include <dlfcn.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

using namespace amprt;

namespace {
thread_local std::string lastError;

/// Rounds a request up to a size class: 512-byte steps for small blocks,
/// 1/8 of the next power of two above 1 MiB, so reuse is likely and waste
/// is bounded.
size_t roundSize(size_t bytes) {
  if (bytes == 0)
    bytes = 1;
  if (bytes <= (1u << 20))
    return (bytes + 511) & ~size_t(511);
  size_t pow2 = 1;
  while (pow2 < bytes)
    pow2 <<= 1;
  size_t step = pow2 / 8;
  return (bytes + step - 1) / step * step;
}
} // namespace

amprt_status amprt::fail(amprt_status status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  lastError = buffer;
  return status;
}

amprt_status amprt::ok() { return AMPRT_OK; }

const char *amprt::dtypeName(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F32:
    return "f32";
  case AMPRT_F16:
    return "f16";
  case AMPRT_BF16:
    return "bf16";
  case AMPRT_F64:
    return "f64";
  case AMPRT_I32:
    return "i32";
  case AMPRT_I64:
    return "i64";
  case AMPRT_I1:
    return "i1";
  case AMPRT_F8E4M3FN:
    return "f8E4M3FN";
  case AMPRT_F8E5M2:
    return "f8E5M2";
  case AMPRT_DTYPE_MAX_ENUM:
    break;
  }
  return "unknown";
}

std::string amprt::shapeString(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

bool amprt::isFloat(amprt_dtype dtype) {
  return dtype == AMPRT_F32 || dtype == AMPRT_F16 || dtype == AMPRT_BF16 ||
         dtype == AMPRT_F64;
}

static size_t hostMemoryBytes() {
  static const size_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0 ? (size_t)pages * (size_t)pageSize
                                     : SIZE_MAX;
  }();
  return bytes;
}

void *amprt::allocate(amprt_context *ctx, size_t bytes, size_t *blockBytes) {
  size_t size = roundSize(bytes);
  *blockBytes = size;
  void *data = nullptr;
  auto it = ctx->freeBlocks.find(size);
  if (it != ctx->freeBlocks.end() && !it->second.empty()) {
    data = it->second.back();
    it->second.pop_back();
    ctx->cachedBytes -= size;
  } else if (size > ctx->capacityBytes) {
    // Fail here rather than in the allocator, where an overcommitting
    // kernel or a sanitizer's allocator would not return null.
    return nullptr;
  } else if (ctx->device == AMPRT_DEVICE_CUDA) {
    data = device::backend()->deviceAlloc(ctx, size);
  } else {
    data = std::aligned_alloc(64, size);
  }
  if (!data)
    return nullptr;
  ctx->currentBytes += size;
  if (ctx->currentBytes > ctx->peakBytes)
    ctx->peakBytes = ctx->currentBytes;
  return data;
}

void amprt::deallocate(amprt_context *ctx, void *data, size_t blockBytes) {
  if (!data)
    return;
  ctx->currentBytes -= blockBytes;
  ctx->freeBlocks[blockBytes].push_back(data);
  ctx->cachedBytes += blockBytes;
}

amprt_status amprt::checkTensor(const char *op, const char *name,
                                const amprt_tensor *t, amprt_context *ctx) {
  if (!t)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: %s is null", op, name);
  if (t->ctx != ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: %s belongs to another context", op, name);
  return AMPRT_OK;
}

amprt_status amprt::checkFloat(const char *op, const char *name,
                               const amprt_tensor *t) {
  if (!isFloat(t->dtype))
    return fail(AMPRT_ERROR_DTYPE, "%s: %s must be a float tensor, got %s",
                op, name, dtypeName(t->dtype));
  return AMPRT_OK;
}

amprt_status amprt::checkSameDtype(const char *op, const char *name,
                                   const amprt_tensor *t, amprt_dtype dtype) {
  if (t->dtype != dtype)
    return fail(AMPRT_ERROR_DTYPE, "%s: %s must be %s, got %s", op, name,
                dtypeName(dtype), dtypeName(t->dtype));
  return AMPRT_OK;
}

amprt_status amprt::checkShape(const char *op, const char *name,
                               const amprt_tensor *t, const Shape &expected) {
  if (t->shape != expected)
    return fail(AMPRT_ERROR_SHAPE, "%s: %s must have shape %s, got %s", op,
                name, shapeString(expected).c_str(),
                shapeString(t->shape).c_str());
  return AMPRT_OK;
}

amprt_status amprt::checkScalar(const char *op, const char *name,
                                const amprt_tensor *t, amprt_dtype dtype) {
  if (!t->shape.empty() || t->dtype != dtype)
    return fail(AMPRT_ERROR_SHAPE, "%s: %s must be a rank-0 %s tensor", op,
                name, dtypeName(dtype));
  return AMPRT_OK;
}

bool amprt::broadcastShapes(const Shape &a, const Shape &b, Shape &out) {
  size_t rank = a.size() > b.size() ? a.size() : b.size();
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

bool amprt::normalizeAxis(int64_t axis, int64_t rank, int64_t &out) {
  if (axis < -rank || axis >= rank)
    return false;
  out = axis < 0 ? axis + rank : axis;
  return true;
}

const device::Backend *device::backend() {
  static std::string why;
  static const Backend *loaded = []() -> const Backend * {
    // Next to this library unless AMPRT_CUDA_LIBRARY names another file.
    std::string path = "libamprt_cuda.so";
    if (const char *env = std::getenv("AMPRT_CUDA_LIBRARY")) {
      path = env;
    } else {
      Dl_info info;
      if (dladdr(reinterpret_cast<void *>(&amprt_cuda_device_count), &info) &&
          info.dli_fname) {
        std::string self = info.dli_fname;
        size_t slash = self.rfind('/');
        if (slash != std::string::npos)
          path = self.substr(0, slash + 1) + path;
      }
    }
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *error = dlerror();
      why = error ? error : path + " did not load";
      return nullptr;
    }
    auto get = reinterpret_cast<const Backend *(*)()>(
        dlsym(handle, "amprt_cuda_backend"));
    const Backend *table = get ? get() : nullptr;
    if (!table || table->version != kBackendVersion) {
      why = path + " is not a CUDA backend of this runtime version";
      dlclose(handle);
      return nullptr;
    }
    return table;
  }();
  if (!loaded)
    fail(AMPRT_ERROR_DEVICE, "this amp runtime has no CUDA backend (%s)",
         why.c_str());
  return loaded;
}

//===----------------------------------------------------------------------===//
// C API: errors, contexts, tensors
//===----------------------------------------------------------------------===//

extern "C" {

const char *amprt_last_error(void) { return lastError.c_str(); }
int amprt_abi_version(void) { return AMPRT_ABI_VERSION; }

const char *amprt_status_string(amprt_status status) {
  switch (status) {
  case AMPRT_OK:
    return "ok";
  case AMPRT_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case AMPRT_ERROR_SHAPE:
    return "shape mismatch";
  case AMPRT_ERROR_DTYPE:
    return "element type mismatch";
  case AMPRT_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case AMPRT_ERROR_DEVICE:
    return "device error";
  case AMPRT_ERROR_UNSUPPORTED:
    return "unsupported";
  case AMPRT_ERROR_INDEX:
    return "index out of range";
  case AMPRT_STATUS_MAX_ENUM:
    break;
  }
  return "unknown status";
}

namespace {

/// Why the last amprt_cuda_device_count() found no usable device.
std::string cudaUnavailable;

/// The CUDA driver, loaded once and kept (the backend needs it); false
/// with the loader's message in `why` when there is none.
bool haveCudaDriver(std::string &why) {
  static std::string error;
  static const bool driver = [] {
    if (std::getenv("AMPRT_CUDA_LIBRARY"))
      return true; // another backend, e.g. the tests' emulated device
    if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL))
      return true;
    const char *message = dlerror();
    error = std::string("no CUDA driver (") +
            (message ? message : "libcuda.so.1 did not load") + ")";
    return false;
  }();
  why = error;
  return driver;
}

} // namespace

int amprt_cuda_device_count(void) {
  // Without a CUDA driver there is no device: say so without loading the
  // backend (and with it cuBLAS and cuDNN, a tenth of a second).
  if (!haveCudaDriver(cudaUnavailable))
    return 0;
  // Asking is never an error: keep the thread's last message, and the
  // reason for no device (a backend that did not load, the driver's
  // answer) for amprt_cuda_unavailable_reason.
  std::string previous = lastError;
  lastError.clear();
  const device::Backend *backend = device::backend();
  int count = backend ? backend->deviceCount() : 0;
  cudaUnavailable = count > 0 ? "" : lastError;
  if (count == 0 && cudaUnavailable.empty())
    cudaUnavailable = "the CUDA driver reports no device";
  lastError = previous;
  return count;
}

const char *amprt_cuda_unavailable_reason(void) {
  amprt_cuda_device_count();
  return cudaUnavailable.c_str();
}

amprt_status amprt_context_create(amprt_device device, int index,
                                  amprt_context **out) {
  if (!out)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_context_create: out is null");
  *out = nullptr;
  if (device != AMPRT_DEVICE_CPU && device != AMPRT_DEVICE_CUDA)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_context_create: unknown device kind %d", (int)device);
  auto *ctx = new (std::nothrow) amprt_context();
  if (!ctx)
    return fail(AMPRT_ERROR_OUT_OF_MEMORY, "amprt_context_create: no memory");
  ctx->device = device;
  ctx->index = index;
  ctx->capacityBytes = hostMemoryBytes();
  if (device == AMPRT_DEVICE_CUDA) {
    const device::Backend *backend = device::backend();
    amprt_status status = backend ? backend->initContext(ctx, index)
                                  : fail(AMPRT_ERROR_DEVICE,
                                         "amprt_context_create: %s",
                                         amprt_last_error());
    if (status != AMPRT_OK) {
      delete ctx;
      return status;
    }
    ctx->capacityBytes = backend->memoryCapacity(ctx);
    if (ctx->capacityBytes == 0)
      ctx->capacityBytes = SIZE_MAX;
  } else if (index != 0) {
    delete ctx;
    return fail(AMPRT_ERROR_DEVICE,
                "amprt_context_create: there is one CPU device, index 0; "
                "got %d",
                index);
  }
  *out = ctx;
  return ok();
}

void amprt_context_destroy(amprt_context *ctx) {
  if (!ctx)
    return;
  if (opProfilePath())
    if (int error = writeOpProfile())
      std::fprintf(stderr, "amprt: AMPRT_PROFILE: cannot write %s: %s\n",
                   opProfilePath(), std::strerror(error));
  for (auto &[size, blocks] : ctx->freeBlocks)
    for (void *block : blocks) {
      if (ctx->device == AMPRT_DEVICE_CUDA)
        device::backend()->deviceFree(ctx, block);
      else
        std::free(block);
    }
  if (ctx->device == AMPRT_DEVICE_CUDA)
    device::backend()->destroyContext(ctx);
  delete ctx;
}

amprt_status amprt_context_device(const amprt_context *ctx,
                                  amprt_device *device, int *major,
                                  int *minor) {
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_context_device: ctx is null");
  if (device)
    *device = ctx->device;
  if (major)
    *major = ctx->ccMajor;
  if (minor)
    *minor = ctx->ccMinor;
  return ok();
}

amprt_status amprt_synchronize(amprt_context *ctx) {
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "amprt_synchronize: ctx is null");
  if (ctx->device == AMPRT_DEVICE_CUDA)
    return device::backend()->synchronize(ctx);
  return ok();
}

amprt_status amprt_memory_stats(const amprt_context *ctx, size_t *current,
                                size_t *peak) {
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_memory_stats: ctx is null");
  if (current)
    *current = ctx->currentBytes;
  if (peak)
    *peak = ctx->peakBytes;
  return ok();
}

amprt_status amprt_memory_capacity(const amprt_context *ctx, size_t *bytes) {
  if (!ctx || !bytes)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_memory_capacity: null context or output");
  *bytes = ctx->capacityBytes;
  return ok();
}

void amprt_memory_reset_peak(amprt_context *ctx) {
  if (ctx)
    ctx->peakBytes = ctx->currentBytes;
}

size_t amprt_dtype_size(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F32:
  case AMPRT_I32:
    return 4;
  case AMPRT_F16:
  case AMPRT_BF16:
    return 2;
  case AMPRT_F64:
  case AMPRT_I64:
    return 8;
  case AMPRT_I1:
  case AMPRT_F8E4M3FN:
  case AMPRT_F8E5M2:
    return 1;
  case AMPRT_DTYPE_MAX_ENUM:
    break;
  }
  return 0;
}

/// The element count of a shape argument of `rank` dimensions, each >= 1,
/// whose elements of `element` bytes fit in int64_t bytes.
static amprt_status elementCount(const char *op, int rank, const int64_t *shape,
                                 size_t element, int64_t *numel) {
  if (rank < 0 || rank > 16 || (rank > 0 && !shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: rank must be in [0, 16] with a shape",
                op);
  *numel = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 1)
      return fail(AMPRT_ERROR_SHAPE,
                  "%s: dimension %d is %lld; sizes must be "
                  ">= 1",
                  op, i, (long long)shape[i]);
    if (*numel > INT64_MAX / shape[i] ||
        *numel * shape[i] > INT64_MAX / (int64_t)element)
      return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                  "%s: %d-dimensional tensor is too large to allocate", op,
                  rank);
    *numel *= shape[i];
  }
  return ok();
}

amprt_status amprt_tensor_create(amprt_context *ctx, amprt_dtype dtype,
                                 int rank, const int64_t *shape,
                                 amprt_tensor **out) {
  const char *op = "amprt_tensor_create";
  if (!out)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: out is null", op);
  *out = nullptr;
  if (!ctx)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: ctx is null", op);
  size_t element = amprt_dtype_size(dtype);
  if (element == 0)
    return fail(AMPRT_ERROR_DTYPE, "%s: unknown element type %d", op,
                (int)dtype);
  int64_t numel = 0;
  AMPRT_CHECK(elementCount(op, rank, shape, element, &numel));
  auto *t = new (std::nothrow) amprt_tensor();
  if (!t)
    return fail(AMPRT_ERROR_OUT_OF_MEMORY, "%s: no memory", op);
  t->ctx = ctx;
  t->dtype = dtype;
  t->shape.assign(shape, shape + rank);
  t->numel = numel;
  t->bytes = (size_t)numel * element;
  t->data = allocate(ctx, t->bytes, &t->blockBytes);
  if (!t->data) {
    size_t bytes = t->bytes;
    delete t;
    return fail(AMPRT_ERROR_OUT_OF_MEMORY,
                "%s: cannot allocate %zu bytes on the %s", op, bytes,
                ctx->device == AMPRT_DEVICE_CUDA ? "GPU" : "CPU");
  }
  *out = t;
  return ok();
}

void amprt_tensor_release(amprt_tensor *tensor) {
  if (!tensor)
    return;
  if (tensor->ownsData)
    deallocate(tensor->ctx, tensor->data, tensor->blockBytes);
  delete tensor;
}

void amprt_record_status(amprt_context *ctx, amprt_status status) {
  if (ctx && status != AMPRT_OK && ctx->stickyStatus == AMPRT_OK) {
    ctx->stickyStatus = status;
    ctx->stickyError = lastError;
  }
}

amprt_status amprt_context_status(const amprt_context *ctx) {
  return ctx ? ctx->stickyStatus : AMPRT_ERROR_INVALID_ARGUMENT;
}

const char *amprt_context_error(const amprt_context *ctx) {
  return ctx ? ctx->stickyError.c_str() : "";
}

void amprt_context_clear_status(amprt_context *ctx) {
  if (ctx) {
    ctx->stickyStatus = AMPRT_OK;
    ctx->stickyError.clear();
  }
}

amprt_tensor *amprt_tensor_new(amprt_context *ctx, int32_t dtype,
                               int32_t rank, const int64_t *shape) {
  amprt_tensor *t = nullptr;
  amprt_record_status(ctx, amprt_tensor_create(ctx, (amprt_dtype)dtype, rank,
                                               shape, &t));
  return t;
}

amprt_tensor *amprt_tensor_view(amprt_context *ctx, const amprt_tensor *x,
                                int32_t rank, const int64_t *shape) {
  const char *op = "amprt_tensor_view";
  amprt_status status = AMPRT_OK;
  if (!ctx || !x)
    status =
        fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: null context or tensor", op);
  else if (x->ctx != ctx)
    status = fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: x belongs to another context", op);
  int64_t numel = 0;
  if (status == AMPRT_OK)
    status = elementCount(op, rank, shape, amprt_dtype_size(x->dtype), &numel);
  if (status == AMPRT_OK && numel != x->numel)
    status =
        fail(AMPRT_ERROR_SHAPE, "%s: %s and %s hold different element counts",
             op, shapeString(x->shape).c_str(),
             shapeString(Shape(shape, shape + rank)).c_str());
  amprt_tensor *t = nullptr;
  if (status == AMPRT_OK) {
    t = new (std::nothrow) amprt_tensor(*x);
    if (!t)
      status = fail(AMPRT_ERROR_OUT_OF_MEMORY, "%s: no memory", op);
  }
  if (status != AMPRT_OK) {
    amprt_record_status(ctx, status);
    return nullptr;
  }
  t->shape.assign(shape, shape + rank);
  t->blockBytes = 0;
  t->ownsData = false;
  return t;
}

amprt_dtype amprt_tensor_dtype(const amprt_tensor *t) { return t->dtype; }
int amprt_tensor_rank(const amprt_tensor *t) { return (int)t->shape.size(); }
const int64_t *amprt_tensor_shape(const amprt_tensor *t) {
  return t->shape.data();
}
int64_t amprt_tensor_numel(const amprt_tensor *t) { return t->numel; }

amprt_status amprt_tensor_write(amprt_tensor *t, const void *host,
                                size_t bytes) {
  if (!t || (!host && bytes))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_tensor_write: null tensor or host pointer");
  if (bytes != t->bytes)
    return fail(AMPRT_ERROR_SHAPE,
                "amprt_tensor_write: %zu bytes given, the tensor holds %zu",
                bytes, t->bytes);
  if (t->ctx->device == AMPRT_DEVICE_CUDA)
    return device::backend()->copyToDevice(t->ctx, t->data, host, bytes);
  std::memcpy(t->data, host, bytes);
  return ok();
}

amprt_status amprt_tensor_read(const amprt_tensor *t, void *host,
                               size_t bytes) {
  if (!t || (!host && bytes))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "amprt_tensor_read: null tensor or host pointer");
  if (bytes != t->bytes)
    return fail(AMPRT_ERROR_SHAPE,
                "amprt_tensor_read: %zu bytes asked, the tensor holds %zu",
                bytes, t->bytes);
  if (t->ctx->device == AMPRT_DEVICE_CUDA)
    return device::backend()->copyToHost(t->ctx, host, t->data, bytes);
  std::memcpy(host, t->data, bytes);
  return ok();
}

} // extern "C"
