//===- OneDnn.cpp - Products and convolutions on oneDNN -------------------===//
//
// One primitive per distinct product or convolution (shapes, transposes or
// geometry, dtype), created on first use and kept: creating one
// JIT-compiles its kernel (milliseconds), running it costs microseconds. One
// that oneDNN would only run on its reference (scalar) kernel is remembered
// as declined and goes to OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "OneDnn.h"
#include "ConvFilterTaps.h"
#include "Scratch.h"

#include <cstdlib>
#include <cstring>

#ifdef AMPRT_HAVE_DNNL
#include <array>
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>
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

/// A product: count, m, n, k, transposes, dtype and the result's row
/// stride (n for a dense result).
using Key =
    std::tuple<int64_t, int64_t, int64_t, int64_t, bool, bool, int, int64_t>;

/// A convolution: kind, dtype, layout and the geometry's fields.
using ConvKey = std::vector<int64_t>;

/// One argument of a convolution kernel that works in a layout of its own
/// (oneDNN's fast kernels block the channels): that layout, and the reorder
/// from the tensor into it (an operand, before the kernel) or out of it into
/// the tensor (the result, after the kernel).
struct Staging {
  dnnl::memory::desc layout;
  dnnl::reorder reorder;
};

struct Cached {
  std::optional<dnnl::primitive> primitive; // empty: declined
  std::string kernel;
  // A convolution's first operand, second operand and result, each staged
  // where the kernel's layout differs from the tensor's: always the filter
  // (small), an activation only where narrowOutput() lets the kernel pick.
  std::array<std::optional<Staging>, 3> staging;
};

struct State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  std::mutex mutex;
  std::map<Key, Cached> products;
  std::map<ConvKey, Cached> convolutions;
  std::map<std::vector<int64_t>, Cached> stridedProducts;
  std::string last;
};

/// Keeps `pd`'s primitive unless its kernel is oneDNN's reference one.
template <typename Primitive, typename PrimitiveDesc>
void keepUnlessReference(Cached &cached, const PrimitiveDesc &pd) {
  cached.kernel = pd.impl_info_str();
  if (cached.kernel.rfind("ref", 0) != 0)
    cached.primitive.emplace(Primitive(pd));
}

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

/// A [count, rows, cols] result whose rows lie `rowStride` elements apart.
dnnl::memory::desc result(int64_t count, int64_t rows, int64_t cols,
                          int64_t rowStride, dnnl::memory::data_type type) {
  return dnnl::memory::desc({count, rows, cols}, type,
                            dnnl::memory::dims{rows * rowStride, rowStride, 1});
}

/// The cached primitive for a product, created on first use.
Cached &product(const Key &key, dnnl::memory::data_type type) {
  State &s = state();
  auto [it, inserted] = s.products.try_emplace(key);
  if (!inserted)
    return it->second;
  auto [count, m, n, k, ta, tb, dtype, ldc] = key;
  (void)dtype;
  try {
    dnnl::matmul::desc desc(operand(count, m, k, ta, type),
                            operand(count, k, n, tb, type),
                            result(count, m, n, ldc, type));
    dnnl::matmul::primitive_desc pd(desc, s.engine);
    keepUnlessReference<dnnl::matmul>(it->second, pd);
  } catch (const dnnl::error &) {
    // No implementation for these descriptors: OpenBLAS runs it.
  }
  return it->second;
}

/// The primitive for a product of operands of `dtype`, if oneDNN has a
/// native kernel for it; names it as the last kernel when `run`.
std::optional<dnnl::primitive> productPrimitive(amprt_dtype dtype, bool ta,
                                                bool tb, int64_t m, int64_t n,
                                                int64_t k, int64_t count,
                                                bool run, int64_t ldc) {
  std::optional<dnnl::memory::data_type> type = dnnlType(dtype);
  if (!dnnlEnabled() || !type || m == 0 || n == 0 || k == 0 || count == 0)
    return std::nullopt;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Cached &cached = product(Key{count, m, n, k, ta, tb, (int)dtype, ldc}, *type);
  if (run && cached.primitive)
    s.last = cached.kernel;
  return cached.primitive;
}

} // namespace

bool dnnlMatmulRuns(amprt_dtype dtype, bool ta, bool tb, int64_t m, int64_t n,
                    int64_t k, int64_t count) {
  return productPrimitive(dtype, ta, tb, m, n, k, count, false, n).has_value();
}

bool dnnlProductTNRuns(amprt_dtype dtype, int64_t m, int64_t n, int64_t k,
                       int64_t ldc) {
  return productPrimitive(dtype, true, false, m, n, k, 1, false, ldc)
      .has_value();
}

bool dnnlProductTN(amprt_dtype dtype, int64_t m, int64_t n, int64_t k,
                   const void *a, const void *b, void *c, int64_t ldc) {
  std::optional<dnnl::primitive> primitive =
      productPrimitive(dtype, true, false, m, n, k, 1, true, ldc);
  if (!primitive)
    return false;
  State &s = state();
  dnnl::memory::data_type type = *dnnlType(dtype);
  auto at = [](const void *p) { return const_cast<void *>(p); };
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC,
       dnnl::memory(operand(1, m, k, true, type), s.engine, at(a))},
      {DNNL_ARG_WEIGHTS,
       dnnl::memory(operand(1, k, n, false, type), s.engine, at(b))},
      {DNNL_ARG_DST, dnnl::memory(result(1, m, n, ldc, type), s.engine, c)}};
  dnnl::stream stream(s.engine);
  primitive->execute(stream, args);
  stream.wait();
  return true;
}

namespace {

/// A view as oneDNN's descriptor of the same dimensions and strides (its
/// offset goes into the data pointer).
dnnl::memory::desc viewDesc(const StridedView &v,
                            dnnl::memory::data_type type) {
  return dnnl::memory::desc(dnnl::memory::dims(v.shape, v.shape + v.rank), type,
                            dnnl::memory::dims(v.stride, v.stride + v.rank));
}

/// The cached primitive for a product of views, created on first use;
/// empty where oneDNN declines it.
std::optional<dnnl::primitive> stridedProduct(amprt_dtype dtype,
                                              const StridedView &av,
                                              const StridedView &bv,
                                              const StridedView &cv) {
  std::optional<dnnl::memory::data_type> type = dnnlType(dtype);
  if (!dnnlEnabled() || !type || av.numel() == 0 || bv.numel() == 0)
    return std::nullopt;
  std::vector<int64_t> key{dtype, av.rank};
  for (const StridedView *v : {&av, &bv, &cv}) {
    key.insert(key.end(), v->shape, v->shape + v->rank);
    key.insert(key.end(), v->stride, v->stride + v->rank);
  }
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, inserted] = s.stridedProducts.try_emplace(std::move(key));
  if (inserted) {
    try {
      dnnl::matmul::desc desc(viewDesc(av, *type), viewDesc(bv, *type),
                              viewDesc(cv, *type));
      dnnl::matmul::primitive_desc pd(desc, s.engine);
      keepUnlessReference<dnnl::matmul>(it->second, pd);
    } catch (const dnnl::error &) {
      // No implementation for these strides: the C API copies the views.
    }
  }
  if (it->second.primitive)
    s.last = it->second.kernel;
  return it->second.primitive;
}

} // namespace

bool dnnlStridedMatmul(const amprt_tensor *a, const StridedView &av,
                       const amprt_tensor *b, const StridedView &bv,
                       amprt_tensor *c, const StridedView &cv) {
  std::optional<dnnl::primitive> primitive =
      stridedProduct(c->dtype, av, bv, cv);
  if (!primitive)
    return false;
  State &s = state();
  dnnl::memory::data_type type = *dnnlType(c->dtype);
  auto at = [](const amprt_tensor *t, const StridedView &v) {
    return static_cast<char *>(t->data) +
           v.offset * int64_t(amprt_dtype_size(t->dtype));
  };
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, dnnl::memory(viewDesc(av, type), s.engine, at(a, av))},
      {DNNL_ARG_WEIGHTS, dnnl::memory(viewDesc(bv, type), s.engine, at(b, bv))},
      {DNNL_ARG_DST, dnnl::memory(viewDesc(cv, type), s.engine, at(c, cv))}};
  dnnl::stream stream(s.engine);
  primitive->execute(stream, args);
  stream.wait();
  return true;
}

bool dnnlMatmul(const amprt_tensor *a, const amprt_tensor *b, bool ta, bool tb,
                amprt_tensor *c, int64_t m, int64_t n, int64_t k,
                int64_t count) {
  if (b->dtype != a->dtype || c->dtype != a->dtype)
    return false;
  std::optional<dnnl::primitive> primitive =
      productPrimitive(a->dtype, ta, tb, m, n, k, count, true, n);
  if (!primitive)
    return false;
  State &s = state();
  dnnl::memory::data_type type = *dnnlType(a->dtype);
  dnnl::memory src(operand(count, m, k, ta, type), s.engine, a->data);
  dnnl::memory weights(operand(count, k, n, tb, type), s.engine, b->data);
  dnnl::memory dst(operand(count, m, n, false, type), s.engine, c->data);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  dnnl::stream stream(s.engine);
  primitive->execute(stream, args);
  stream.wait();
  return true;
}

namespace {

/// x / dx ([n, c, h, w] in oneDNN's order), w / dw and y / dy descriptors
/// in the tensors' own layout.
struct ConvDescs {
  dnnl::memory::desc x, w, y;
};

ConvDescs convDescs(const ConvGeometry &g, dnnl::memory::data_type type) {
  using tag = dnnl::memory::format_tag;
  tag activation = g.nchw ? tag::nchw : tag::nhwc;
  tag filter = g.nchw ? tag::oihw : tag::ohwi;
  return {dnnl::memory::desc({g.n, g.c, g.h, g.w}, type, activation),
          dnnl::memory::desc({g.o, g.c, g.kh, g.kw}, type, filter),
          dnnl::memory::desc({g.n, g.o, g.oh, g.ow}, type, activation)};
}

/// The tensors' descriptors in argument order (first operand, second
/// operand, result): x, w -> y; dy, w -> dx; x, dy -> dw.
std::array<dnnl::memory::desc, 3> argumentDescs(ConvKind kind,
                                                const ConvDescs &d) {
  switch (kind) {
  case ConvKind::Forward:
    return {d.x, d.w, d.y};
  case ConvKind::BackwardInput:
    return {d.y, d.w, d.x};
  case ConvKind::BackwardFilter:
    return {d.x, d.y, d.w};
  }
  return {};
}

/// oneDNN's argument names in the same order.
std::array<int, 3> argumentIds(ConvKind kind) {
  switch (kind) {
  case ConvKind::Forward:
    return {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
  case ConvKind::BackwardInput:
    return {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC};
  case ConvKind::BackwardFilter:
    return {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
  }
  return {};
}

/// Whether a forward convolution may pick its activations' layout too.
/// oneDNN 2.6's kernel on plain NHWC activations (brgconv) runs output
/// rows of at most 4 points slowly: ResNet-18's last stage (512 channels,
/// 4x4, batch 64) took 6.1 ms in bf16 and 14.5 ms in f32, against 3.3 and
/// 9.0 ms on its blocked-channel kernel with both activations reordered
/// (Zen 5, 2 threads). Wider rows, 1x1 windows and the adjoints ran as
/// fast or faster in place, so they stay there.
bool narrowOutput(ConvKind kind, const ConvGeometry &g) {
  return kind == ConvKind::Forward && g.ow <= kNarrowOutputRow &&
         g.kh * g.kw > 1;
}

dnnl::memory::desc anyLayout(const dnnl::memory::desc &d) {
  return dnnl::memory::desc(d.dims(), d.data_type(),
                            dnnl::memory::format_tag::any);
}

/// Stages every argument whose kernel layout differs from the tensor's.
void stageArguments(Cached &cached, ConvKind kind, const ConvDescs &d,
                    const std::array<dnnl::memory::desc, 3> &kernelDescs,
                    const dnnl::engine &engine) {
  std::array<dnnl::memory::desc, 3> plain = argumentDescs(kind, d);
  for (size_t i = 0; i < plain.size(); ++i) {
    if (kernelDescs[i] == plain[i])
      continue;
    bool result = i == 2;
    dnnl::reorder::primitive_desc pd =
        result ? dnnl::reorder::primitive_desc(engine, kernelDescs[i], engine,
                                               plain[i])
               : dnnl::reorder::primitive_desc(engine, plain[i], engine,
                                               kernelDescs[i]);
    cached.staging[i] = Staging{kernelDescs[i], dnnl::reorder(pd)};
  }
}

/// The cached primitive for a convolution, created on first use.
Cached &convolution(ConvKind kind, const ConvGeometry &g,
                    dnnl::memory::data_type type, int dtype) {
  State &s = state();
  ConvKey key{(int64_t)kind, dtype, g.nchw, g.n,  g.h,  g.w,  g.c,  g.o,  g.kh,
              g.kw,          g.sh,  g.sw,   g.dh, g.dw, g.pt, g.pb, g.pl, g.pr};
  auto [it, inserted] = s.convolutions.try_emplace(key);
  if (!inserted)
    return it->second;
  ConvDescs d = convDescs(g, type);
  // The filter in whatever layout the kernel wants (format "any"): with
  // the tensors' plain OHWI / OIHW filters oneDNN has only its reference
  // kernel.
  dnnl::memory::desc anyFilter = anyLayout(d.w);
  bool narrow = narrowOutput(kind, g);
  dnnl::memory::desc x = narrow ? anyLayout(d.x) : d.x;
  dnnl::memory::desc y = narrow ? anyLayout(d.y) : d.y;
  dnnl::memory::dims strides{g.sh, g.sw}, dilates{g.dh - 1, g.dw - 1},
      padLeft{g.pt, g.pl}, padRight{g.pb, g.pr};
  auto algorithm = dnnl::algorithm::convolution_direct;
  Cached &cached = it->second;
  try {
    dnnl::convolution_forward::desc forwardDesc(
        dnnl::prop_kind::forward_training, algorithm, x, anyFilter, y, strides,
        dilates, padLeft, padRight);
    dnnl::convolution_forward::primitive_desc forward(forwardDesc, s.engine);
    std::array<dnnl::memory::desc, 3> kernelDescs;
    switch (kind) {
    case ConvKind::Forward:
      keepUnlessReference<dnnl::convolution_forward>(cached, forward);
      kernelDescs = {forward.src_desc(), forward.weights_desc(),
                     forward.dst_desc()};
      break;
    case ConvKind::BackwardInput: {
      dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(
              algorithm, x, anyFilter, y, strides, dilates, padLeft, padRight),
          s.engine, forward);
      keepUnlessReference<dnnl::convolution_backward_data>(cached, pd);
      kernelDescs = {pd.diff_dst_desc(), pd.weights_desc(), pd.diff_src_desc()};
      break;
    }
    case ConvKind::BackwardFilter: {
      dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(
              algorithm, x, anyFilter, y, strides, dilates, padLeft, padRight),
          s.engine, forward);
      keepUnlessReference<dnnl::convolution_backward_weights>(cached, pd);
      kernelDescs = {pd.src_desc(), pd.diff_dst_desc(), pd.diff_weights_desc()};
      break;
    }
    }
    if (cached.primitive)
      stageArguments(cached, kind, d, kernelDescs, s.engine);
  } catch (const dnnl::error &) {
    // No implementation for these descriptors (or no reorder into its
    // layouts): im2col + GEMM runs it.
    cached = Cached();
  }
  return it->second;
}

} // namespace

bool dnnlConv(ConvKind kind, const ConvGeometry &g, const amprt_tensor *first,
              const amprt_tensor *second, amprt_tensor *result) {
  if (!dnnlEnabled())
    return false;
  amprt_dtype dtype = first->dtype;
  std::optional<dnnl::memory::data_type> type = dnnlType(dtype);
  if (!type || second->dtype != dtype || result->dtype != dtype)
    return false;
  State &s = state();
  std::optional<dnnl::primitive> primitive;
  std::array<std::optional<Staging>, 3> staging;
  bool directFilterGrad;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    Cached &cached = convolution(kind, g, *type, (int)dtype);
    if (!cached.primitive)
      return false;
    primitive = cached.primitive;
    staging = cached.staging;
    directFilterGrad =
        kind == ConvKind::BackwardFilter && cached.kernel.rfind("jit", 0) == 0;
    s.last = cached.kernel; // the per-tap products name theirs
  }
  // Its direct (pre-brgemm) filter-gradient kernels are the slow ones on
  // narrow outputs; AMX machines get brgemm kernels, which stay.
  if (directFilterGrad && filterGradByTaps(g, first, second, result))
    return true;
  std::array<dnnl::memory::desc, 3> plain =
      argumentDescs(kind, convDescs(g, *type));
  std::array<const amprt_tensor *, 3> tensors{first, second, result};
  std::array<dnnl::memory, 3> tensorMemory, kernelMemory;
  std::array<Scratch<char>, 3> staged;
  dnnl::stream stream(s.engine);
  for (size_t i = 0; i < tensors.size(); ++i) {
    tensorMemory[i] = dnnl::memory(plain[i], s.engine, tensors[i]->data);
    kernelMemory[i] = tensorMemory[i];
    if (!staging[i])
      continue;
    staged[i].allocate((int64_t)staging[i]->layout.get_size());
    kernelMemory[i] =
        dnnl::memory(staging[i]->layout, s.engine, staged[i].data());
    if (i < 2)
      staging[i]->reorder.execute(stream, tensorMemory[i], kernelMemory[i]);
  }
  std::array<int, 3> ids = argumentIds(kind);
  primitive->execute(stream, {{ids[0], kernelMemory[0]},
                              {ids[1], kernelMemory[1]},
                              {ids[2], kernelMemory[2]}});
  if (staging[2])
    staging[2]->reorder.execute(stream, kernelMemory[2], tensorMemory[2]);
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

const char *dnnlKernelIsa() {
  if (!dnnlEnabled())
    return "";
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::sse41:
    return "sse41";
  case dnnl::cpu_isa::avx:
    return "avx";
  case dnnl::cpu_isa::avx2:
    return "avx2";
  case dnnl::cpu_isa::avx2_vnni:
    return "avx2_vnni";
  case dnnl::cpu_isa::avx512_core:
    return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx:
    return "avx512_core_amx";
  default:
    return "other";
  }
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
bool dnnlMatmulRuns(amprt_dtype, bool, bool, int64_t, int64_t, int64_t,
                    int64_t) {
  return false;
}
bool dnnlStridedMatmul(const amprt_tensor *, const StridedView &,
                       const amprt_tensor *, const StridedView &,
                       amprt_tensor *, const StridedView &) {
  return false;
}
bool dnnlSgemm(bool, bool, int64_t, int64_t, int64_t, float, const float *,
               int64_t, const float *, int64_t, float, float *, int64_t) {
  return false;
}
bool dnnlProductTNRuns(amprt_dtype, int64_t, int64_t, int64_t, int64_t) {
  return false;
}
bool dnnlProductTN(amprt_dtype, int64_t, int64_t, int64_t, const void *,
                   const void *, void *, int64_t) {
  return false;
}
bool dnnlConv(ConvKind, const ConvGeometry &, const amprt_tensor *,
              const amprt_tensor *, amprt_tensor *) {
  return false;
}
const char *dnnlKernelIsa() { return ""; }
const char *dnnlLastKernel() { return ""; }

#endif

} // namespace amprt::cpu
