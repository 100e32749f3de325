//===- EmulatedDevice.cpp - The device backend's ops on the host, for tests
//===//
//
// libamprt_emulated_device.so is a CUDA backend table (common/DeviceBackend.h) whose
// memory is host memory and whose executor is HostExec: every op but the
// contractions runs the code the CUDA backend runs (BackendTable.h over
// DeviceOps.h and Kernels.h), in host loops. Pointing AMPRT_CUDA_LIBRARY
// at it makes AMPRT_DEVICE_CUDA contexts work on machines without a GPU,
// so the device tests, amp-run --device=cuda and the lowering's device
// path are exercised here. Contractions go through the CPU backend: the
// cuBLAS and cuDNN calls themselves need a GPU to test.
//
//===----------------------------------------------------------------------===//

#include "device/BackendTable.h"
#include "device/Fp8Gemm.h"
#include "device/HostExec.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace amprt;

namespace {

/// The CPU context the emulated device borrows contractions and its
/// memory size from.
amprt_context *cpuContext() {
  static amprt_context *cpu = [] {
    amprt_context *c = nullptr;
    amprt_context_create(AMPRT_DEVICE_CPU, 0, &c);
    return c;
  }();
  return cpu;
}

int deviceCount() { return 1; }

amprt_status initContext(amprt_context *ctx, int index) {
  if (index != 0)
    return fail(AMPRT_ERROR_DEVICE,
                "amprt_context_create: the emulated device has index 0");
  ctx->ccMajor = ctx->ccMinor = 0;
  ctx->indexFault = std::calloc(1, sizeof(device::IndexFault));
  return ctx->indexFault ? AMPRT_OK
                         : fail(AMPRT_ERROR_OUT_OF_MEMORY,
                                "amprt_context_create: no memory");
}

void destroyContext(amprt_context *ctx) { std::free(ctx->indexFault); }
void *deviceAlloc(amprt_context *, size_t bytes) {
  return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}
void deviceFree(amprt_context *, void *p) { std::free(p); }
/// Host memory, as the CPU context reports it.
size_t memoryCapacity(const amprt_context *) {
  size_t bytes = 0;
  amprt_memory_capacity(cpuContext(), &bytes);
  return bytes;
}
/// AMPRT_EMULATED_SYNC_MS=N makes each synchronising call wait N ms, as
/// on a GPU still running queued work, so tests can tell what a timer
/// stopped before the device finished.
void waitAsABusyDevice() {
  static const long ms = [] {
    const char *v = std::getenv("AMPRT_EMULATED_SYNC_MS");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  if (ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/// Synchronising calls report an index fault as the CUDA backend's do.
amprt_status synchronize(amprt_context *ctx) {
  waitAsABusyDevice();
  device::HostExec exec(ctx);
  return device::takeIndexFault(exec);
}
amprt_status copy(amprt_context *, void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return AMPRT_OK;
}
amprt_status copyToHost(amprt_context *ctx, void *dst, const void *src,
                        size_t bytes) {
  std::memcpy(dst, src, bytes);
  return synchronize(ctx);
}

/// A CPU-context copy of a device tensor (and back).
struct CpuCopy {
  amprt_tensor *t = nullptr;
  CpuCopy(amprt_context *cpu, const amprt_tensor *of) {
    if (amprt_tensor_create(cpu, of->dtype, (int)of->shape.size(),
                            of->shape.data(), &t) == AMPRT_OK)
      std::memcpy(t->data, of->data, of->bytes);
  }
  ~CpuCopy() { amprt_tensor_release(t); }
  void copyBack(amprt_tensor *to) const {
    std::memcpy(to->data, t->data, to->bytes);
  }
};

// The contractions stand in for cuBLAS and cuDNN, which take no bias: a
// bias and an activation are applied after them as the CUDA backend
// applies them (device::finishContraction).
amprt_status matmul(amprt_context *ctx, const amprt_tensor *a,
                    const amprt_tensor *b, bool ta, bool tb,
                    const amprt_tensor *bias, const device::Activation &act,
                    amprt_tensor *c, int64_t, int64_t, int64_t, int64_t) {
  amprt_context *cpu = cpuContext();
  amprt_tensor *written = act.target(c);
  CpuCopy ca(cpu, a), cb(cpu, b), cc(cpu, written);
  amprt_status status = c->shape.size() > 2
                            ? amprt_batch_matmul(cpu, ca.t, cb.t, ta, tb, cc.t)
                            : amprt_matmul(cpu, ca.t, cb.t, ta, tb, cc.t);
  if (status == AMPRT_OK)
    cc.copyBack(written);
  if (status != AMPRT_OK)
    return status;
  device::HostExec exec(ctx);
  return device::finishContraction(exec, bias, act, c, 1);
}

amprt_status conv(amprt_context *ctx, ConvKind kind, const amprt_tensor *first,
                  const amprt_tensor *second, const amprt_tensor *bias,
                  const device::Activation &act, amprt_tensor *result,
                  const ConvGeometry &g) {
  amprt_context *cpu = cpuContext();
  amprt_tensor *written = act.target(result);
  CpuCopy a(cpu, first), b(cpu, second), r(cpu, written);
  int64_t strides[2] = {g.sh, g.sw}, padding[4] = {g.pt, g.pb, g.pl, g.pr},
          dilations[2] = {g.dh, g.dw};
  amprt_layout layout = g.nchw ? AMPRT_NCHW : AMPRT_NHWC;
  amprt_status status =
      kind == ConvKind::Forward ? amprt_conv2d(cpu, a.t, b.t, strides, padding,
                                               dilations, layout, r.t)
      : kind == ConvKind::BackwardInput
          ? amprt_conv2d_backward_input(cpu, a.t, b.t, strides, padding,
                                        dilations, layout, r.t)
          : amprt_conv2d_backward_filter(cpu, a.t, b.t, strides, padding,
                                         dilations, layout, r.t);
  if (status == AMPRT_OK)
    r.copyBack(written);
  if (status != AMPRT_OK)
    return status;
  device::HostExec exec(ctx);
  return device::finishContraction(exec, bias, act, result,
                                   g.nchw ? g.oh * g.ow : 1);
}

/// cuBLASLt's FP8 GEMM as the CUDA backend calls it (CudaFp8Gemm.cu), over
/// the operands it stages: c[g, i, j] = factor_a * factor_b * sum over l of
/// a[g, i, l] b[g, j, l], summed in f32.
template <typename QA, typename QB, typename U> struct TnFp8GemmKernel {
  const QA *a;
  const QB *b;
  const float *aFactor, *bFactor;
  U *c;
  int64_t m, n, k;
  void operator()(int64_t i) const {
    int64_t g = i / (m * n), row = i / n % m, col = i % n;
    const QA *aRow = a + (g * m + row) * k;
    const QB *bRow = b + (g * n + col) * k;
    float sum = 0;
    for (int64_t l = 0; l < k; ++l)
      sum += load(aRow, l) * load(bRow, l);
    using C = typename Compute<U>::type;
    store(c, i, (C)(*aFactor * *bFactor * sum));
  }
};

/// The CUDA backend's FP8 path with the reference GEMM above, so the tests
/// check its staging (transposes, factors, batches) and its choice of the
/// products it takes; those it does not fall back as on a GPU.
amprt_status scaledMatmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *scaleA, const amprt_tensor *b,
                          const amprt_tensor *scaleB, bool ta, bool tb,
                          amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                          int64_t batch, bool *ran) {
  *ran = false;
  if (const char *refusal = device::fp8GemmRefusal(a, b, m, n, k, batch)) {
    ctx->scaledMatmulFallback = refusal;
    return AMPRT_OK;
  }
  device::HostExec exec(ctx);
  device::Fp8Operands<device::HostExec> operands(exec);
  AMPRT_CHECK(operands.stage(a, scaleA, b, scaleB, ta, tb, m, n, k, batch));
  const char *op = "amprt_scaled_matmul";
  amprt_status status = device::withFp8(op, a->dtype, [&](auto aTag) {
    return device::withFp8(op, b->dtype, [&](auto bTag) {
      using QA = decltype(aTag);
      using QB = decltype(bTag);
      amprt_status launched = AMPRT_OK;
      AMPRT_FLOAT_DISPATCH(c->dtype, U, {
        launched = exec.launch(
            TnFp8GemmKernel<QA, QB, U>{static_cast<const QA *>(operands.a()),
                                       static_cast<const QB *>(operands.b()),
                                       operands.aFactor(), operands.bFactor(),
                                       static_cast<U *>(c->data), m, n, k},
            batch * m * n);
      });
      return launched;
    });
  });
  *ran = status == AMPRT_OK;
  return status;
}

} // namespace

extern "C" const amprt::device::Backend *amprt_cuda_backend(void) {
  static const amprt::device::Backend backend =
      device::makeBackend<device::HostExec>(
          {deviceCount, initContext, destroyContext, deviceAlloc, deviceFree,
           memoryCapacity, synchronize, copy, copyToHost, copy, matmul, conv,
           scaledMatmul});
  return &backend;
}
