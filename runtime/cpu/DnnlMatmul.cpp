//===- DnnlMatmul.cpp - Matmuls on oneDNN's native kernels ----------------===//
//
// One primitive per distinct product (shape, transposes, dtype), created on
// first use and kept: creating one JIT-compiles its kernel (milliseconds),
// running it costs microseconds. A product oneDNN would only run on its
// reference (scalar) kernel is remembered as declined and goes to OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "DnnlMatmul.h"

#include <cstdlib>
#include <cstring>

#ifdef AMPRT_HAVE_DNNL
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <tuple>
#endif

namespace amprt::cpu {

#ifdef AMPRT_HAVE_DNNL

namespace {

/// AMPRT_DNNL=0 turns oneDNN off (A/B measurements, or a user who wants
/// OpenBLAS's rounding); read once.
bool dnnlEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("AMPRT_DNNL");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return enabled;
}

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, bool, bool, int>;

struct Cached {
  std::optional<dnnl::matmul> primitive; // empty: declined
  std::string kernel;
};

struct State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  std::mutex mutex;
  std::map<Key, Cached> products;
  std::string last;
};

State &state() {
  static State s;
  return s;
}

std::optional<dnnl::memory::data_type> dnnlType(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F32:
    return dnnl::memory::data_type::f32;
  case AMPRT_BF16:
    return dnnl::memory::data_type::bf16;
  default: // f16 has native kernels only with AVX512-FP16; f64 none.
    return std::nullopt;
  }
}

/// A [count, rows, cols] operand stored row-major, or transposed (stored
/// as [count, cols, rows]).
dnnl::memory::desc operand(int64_t count, int64_t rows, int64_t cols,
                           bool transposed, dnnl::memory::data_type type) {
  dnnl::memory::dims dims{count, rows, cols};
  dnnl::memory::dims strides = transposed
                                   ? dnnl::memory::dims{rows * cols, 1, rows}
                                   : dnnl::memory::dims{rows * cols, cols, 1};
  return dnnl::memory::desc(dims, type, strides);
}

/// The cached primitive for a product, created on first use.
Cached &product(const Key &key, dnnl::memory::data_type type) {
  State &s = state();
  auto [it, inserted] = s.products.try_emplace(key);
  if (!inserted)
    return it->second;
  auto [count, m, n, k, ta, tb, dtype] = key;
  (void)dtype;
  try {
    dnnl::matmul::desc desc(operand(count, m, k, ta, type),
                            operand(count, k, n, tb, type),
                            operand(count, m, n, false, type));
    dnnl::matmul::primitive_desc pd(desc, s.engine);
    it->second.kernel = pd.impl_info_str();
    if (it->second.kernel.rfind("ref", 0) != 0)
      it->second.primitive.emplace(pd);
  } catch (const dnnl::error &) {
    // No implementation for these descriptors: OpenBLAS runs it.
  }
  return it->second;
}

} // namespace

bool dnnlMatmul(const amprt_tensor *a, const amprt_tensor *b, bool ta, bool tb,
                amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                int64_t count) {
  if (!dnnlEnabled() || m == 0 || n == 0 || k == 0 || count == 0)
    return false;
  std::optional<dnnl::memory::data_type> type = dnnlType(a->dtype);
  if (!type || b->dtype != a->dtype || c->dtype != a->dtype)
    return false;
  State &s = state();
  std::optional<dnnl::matmul> primitive;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    Cached &cached = product(Key{count, m, n, k, ta, tb, (int)a->dtype}, *type);
    if (!cached.primitive)
      return false;
    primitive = cached.primitive;
    s.last = cached.kernel;
  }
  dnnl::memory src(operand(count, m, k, ta, *type), s.engine, a->data);
  dnnl::memory weights(operand(count, k, n, tb, *type), s.engine, b->data);
  dnnl::memory dst(operand(count, m, n, false, *type), s.engine, c->data);
  dnnl::stream stream(s.engine);
  primitive->execute(
      stream,
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
  stream.wait();
  return true;
}

bool dnnlSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb,
               float beta, float *c, int64_t ldc) {
  if (!dnnlEnabled())
    return false;
  return dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc) == dnnl_success;
}

const char *dnnlLastKernel() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  static thread_local std::string copy;
  copy = s.last;
  return copy.c_str();
}

#else

bool dnnlMatmul(const amprt_tensor *, const amprt_tensor *, bool, bool,
                amprt_tensor *, int64_t, int64_t, int64_t, int64_t) {
  return false;
}
bool dnnlSgemm(bool, bool, int64_t, int64_t, int64_t, float, const float *,
               int64_t, const float *, int64_t, float, float *, int64_t) {
  return false;
}
const char *dnnlLastKernel() { return ""; }

#endif

} // namespace amprt::cpu
