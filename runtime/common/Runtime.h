//===- Runtime.h - Contexts, tensors and checks behind the C API --*- C++ -*-===//

#ifndef AMPRT_COMMON_RUNTIME_H
#define AMPRT_COMMON_RUNTIME_H

#include "amprt/amprt.h"
#include "amprt_half.h"
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

/// A device, its stream and a caching allocator: freed blocks are kept by
/// rounded size and reused, as framework allocators do.
struct amprt_context {
  amprt_device device = AMPRT_DEVICE_CPU;
  int index = 0;
  int ccMajor = 0, ccMinor = 0;
  void *stream = nullptr;      // cudaStream_t on CUDA
  void *cudaHandles = nullptr; // cuBLASLt / cuDNN handles on CUDA
  std::unordered_map<size_t, std::vector<void *>> freeBlocks;
  size_t currentBytes = 0, peakBytes = 0, cachedBytes = 0;
  size_t capacityBytes = 0; // the device's memory; larger requests fail
  amprt_status stickyStatus = AMPRT_OK;
  std::string stickyError;
  /// A device's word for the first index out of range its kernels met
  /// (device::IndexFault, in device memory; null on the CPU), and whether
  /// a kernel was handed it since the last synchronising call read it.
  void *indexFault = nullptr;
  bool indexFaultPending = false;
  /// Why the last amprt_scaled_matmul dequantized its operands instead of
  /// multiplying them as FP8; empty when it did not.
  std::string scaledMatmulFallback;
};

struct amprt_tensor {
  amprt_context *ctx = nullptr;
  amprt_dtype dtype = AMPRT_F32;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  size_t bytes = 0;
  size_t blockBytes = 0; // the rounded size of the allocation
  void *data = nullptr;
  /// A view (amprt_tensor_view) borrows another tensor's storage.
  bool ownsData = true;
};

namespace amprt {

using Shape = std::vector<int64_t>;

/// Records a message for amprt_last_error() and returns `status`.
amprt_status fail(amprt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/// Clears the thread's last error and returns AMPRT_OK.
amprt_status ok();

const char *dtypeName(amprt_dtype dtype);
std::string shapeString(const Shape &shape);
bool isFloat(amprt_dtype dtype);

/// Device memory through the context's cache.
void *allocate(amprt_context *ctx, size_t bytes, size_t *blockBytes);
void deallocate(amprt_context *ctx, void *data, size_t blockBytes);

// Argument checks shared by every entry point; each records a message that
// names the op and the offending operand.
amprt_status checkTensor(const char *op, const char *name,
                         const amprt_tensor *t, amprt_context *ctx);
amprt_status checkFloat(const char *op, const char *name,
                        const amprt_tensor *t);
amprt_status checkSameDtype(const char *op, const char *name,
                            const amprt_tensor *t, amprt_dtype dtype);
amprt_status checkShape(const char *op, const char *name,
                        const amprt_tensor *t, const Shape &expected);
amprt_status checkScalar(const char *op, const char *name,
                         const amprt_tensor *t, amprt_dtype dtype);
/// NumPy broadcast of `a` and `b` into `out`; false when incompatible.
bool broadcastShapes(const Shape &a, const Shape &b, Shape &out);
/// Normalises a possibly negative axis; false when out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out);

/// Returns the status of `expr` from the enclosing function unless it is
/// AMPRT_OK (the C API front, the CPU backend and the device op code).
#define AMPRT_CHECK(expr)                                                      \
  do {                                                                         \
    amprt_status s_ = (expr);                                                  \
    if (s_ != AMPRT_OK)                                                        \
      return s_;                                                               \
  } while (0)

/// Applies `fn` with the tensor's storage type (float, double, half_t or
/// bf16_t) as a template argument.
#define AMPRT_FLOAT_DISPATCH(dtype, T, ...)                                    \
  switch (dtype) {                                                             \
  case AMPRT_F32: {                                                            \
    using T = float;                                                           \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case AMPRT_F64: {                                                            \
    using T = double;                                                          \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case AMPRT_F16: {                                                            \
    using T = ::amprt::half_t;                                                 \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case AMPRT_BF16: {                                                           \
    using T = ::amprt::bf16_t;                                                 \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  default:                                                                     \
    break;                                                                     \
  }

} // namespace amprt

#endif // AMPRT_COMMON_RUNTIME_H
