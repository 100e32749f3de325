//===- DeviceOps.h - The device backend's ops over an executor -*- C++ -*-===//
//
// Each op turns checked tensors into kernels (Kernels.h) and runs them on
// an executor `Exec`, which provides:
//   amprt_status launch(const K &kernel, int64_t n);   // kernel(i), i < n
//   void *alloc(size_t bytes); void release(void *p);  // scratch memory
//   amprt_status toHost(void *dst, const void *src, size_t bytes);
//   amprt_status copy(void *dst, const void *src, size_t bytes);
//   IndexFault *indexFault();        // the context's fault word, or null
//   IndexFault *pendingIndexFault(); // the same, if handed out since read
// and may provide launchBlocks(kernel, outputs, chunks) for a reduction's
// partial sums (PartialReduceKernel::block, blocks of outputs per call).
// The CUDA backend's executor launches grid-stride kernels on the
// context's stream; HostExec (HostExec.h) runs the same code in host loops
// for the tests. Arguments were checked by the C API before these run.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_DEVICEOPS_H
#define AMPRT_DEVICE_DEVICEOPS_H

#include "../common/DeviceBackend.h"
#include "../common/Runtime.h"
#include "Kernels.h"
#include "SoftmaxLevels.h"
#include "StridedCopy.h"
#include <algorithm>
#include <type_traits>
#include <utility>

namespace amprt::device {

/// f(T()) for a float `dtype` (its storage type T), and f's status.
template <typename F> amprt_status withFloatType(amprt_dtype dtype, F &&f) {
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(dtype, T, { status = f(T()); });
  return status;
}

/// withFloatType for i32 and i64 too.
template <typename F> amprt_status withNumericType(amprt_dtype dtype, F &&f) {
  if (dtype == AMPRT_I32)
    return f(int32_t());
  if (dtype == AMPRT_I64)
    return f(int64_t());
  return withFloatType(dtype, f);
}

template <typename Exec, typename K, typename = void>
constexpr bool kHasLaunchBlocks = false;
template <typename Exec, typename K>
constexpr bool
    kHasLaunchBlocks<Exec, K,
                     std::void_t<decltype(std::declval<Exec &>().launchBlocks(
                         std::declval<const K &>(), int64_t(), int64_t()))>> =
        true;

/// Whether `Exec` runs on cores (it has launchBlocks: a few threads, each
/// with long loops) rather than on a GPU's many threads (as HostExec runs
/// the GPU's code for the tests).
template <typename Exec>
constexpr bool kOnCores =
    kHasLaunchBlocks<Exec, PartialReduceKernel<LoadValue<double>>>;

/// Scratch memory for the length of one op.
template <typename Exec> class Scratch {
public:
  Scratch(Exec &exec, size_t bytes) : exec(exec), ptr(exec.alloc(bytes)) {}
  ~Scratch() {
    if (ptr)
      exec.release(ptr);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  template <typename T> T *as() const { return static_cast<T *>(ptr); }
  amprt_status status(const char *op) const {
    return ptr ? AMPRT_OK
               : fail(AMPRT_ERROR_OUT_OF_MEMORY,
                      "%s: no device memory for scratch space", op);
  }

private:
  Exec &exec;
  void *ptr;
};

inline amprt_status rankCheck(const char *op, size_t rank) {
  if (rank > (size_t)kMaxRank)
    return fail(AMPRT_ERROR_UNSUPPORTED,
                "%s: the device backend handles rank <= %d, got %zu", op,
                kMaxRank, rank);
  return AMPRT_OK;
}

/// Indexes `in` (right-aligned, NumPy broadcast) by linear indices of `out`.
inline Index broadcastIndex(const Shape &in, const Shape &out) {
  Index index;
  index.rank = (int)out.size();
  int64_t stride = 1;
  for (int64_t d = (int64_t)out.size() - 1; d >= 0; --d) {
    int64_t k = d - (int64_t)(out.size() - in.size());
    index.shape[d] = out[d];
    index.stride[d] = (k < 0 || in[k] == 1) ? 0 : stride;
    if (k >= 0)
      stride *= in[k];
  }
  return index;
}

/// Row-major strides of `shape` as an Index over it.
inline Index denseIndex(const Shape &shape) {
  Index index;
  index.rank = (int)shape.size();
  int64_t stride = 1;
  for (int64_t d = index.rank - 1; d >= 0; --d) {
    index.shape[d] = shape[d];
    index.stride[d] = stride;
    stride *= shape[d];
  }
  return index;
}

/// Runs f(E()) with an unsigned type of the element's size.
template <typename F> void withElementBits(amprt_dtype dtype, F f) {
  withUnsignedOfSize(amprt_dtype_size(dtype), f);
}

//===--------------------------------------------------------------------===//
// Elementwise
//===--------------------------------------------------------------------===//

template <typename Exec>
amprt_status fill(Exec &e, amprt_tensor *t, double value) {
  switch (t->dtype) {
  case AMPRT_I32:
    return e.launch(
        FillKernel<int32_t>{static_cast<int32_t *>(t->data), (int32_t)value},
        t->numel);
  case AMPRT_I64:
    return e.launch(
        FillKernel<int64_t>{static_cast<int64_t *>(t->data), (int64_t)value},
        t->numel);
  case AMPRT_I1:
    return e.launch(FillKernel<uint8_t>{static_cast<uint8_t *>(t->data),
                                        (uint8_t)(value != 0)},
                    t->numel);
  default:
    break;
  }
  return withFloatType(t->dtype, [&](auto tag) {
    using T = decltype(tag);
    T v;
    store(&v, 0, (typename Compute<T>::type)value);
    return e.launch(FillKernel<T>{static_cast<T *>(t->data), v}, t->numel);
  });
}

template <typename Exec>
amprt_status unary(Exec &e, Unary kind, const amprt_tensor *x, amprt_tensor *y,
                   double alpha) {
  return withFloatType(x->dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = typename Compute<T>::type;
    return e.launch(UnaryKernel<T>{static_cast<const T *>(x->data),
                                   static_cast<T *>(y->data), kind, (C)alpha},
                    x->numel);
  });
}

template <typename Exec>
amprt_status elementwiseChain(Exec &e, const amprt_tensor *const *inputs,
                              const Chain &chain, amprt_tensor *y) {
  return withFloatType(y->dtype, [&](auto tag) {
    using T = decltype(tag);
    ChainKernel<T> kernel{};
    for (int k = 0; k < chain.inputs; ++k)
      kernel.in[k] = static_cast<const T *>(inputs[k]->data);
    kernel.y = static_cast<T *>(y->data);
    kernel.chain = chain;
    return e.launch(kernel, y->numel);
  });
}

/// f(std::bool_constant<broadcast>()): whether a or b broadcasts to c,
/// as a template argument.
template <typename F>
auto withBroadcast(const amprt_tensor *a, const amprt_tensor *b,
                   const amprt_tensor *c, F f) {
  if (a->shape == c->shape && b->shape == c->shape)
    return f(std::false_type());
  return f(std::true_type());
}

template <typename Exec>
amprt_status binary(Exec &e, Binary kind, const amprt_tensor *a,
                    const amprt_tensor *b, amprt_tensor *c) {
  AMPRT_CHECK(rankCheck("binary op", c->shape.size()));
  Index ia = broadcastIndex(a->shape, c->shape),
        ib = broadcastIndex(b->shape, c->shape);
  return withNumericType(a->dtype, [&](auto tag) {
    using T = decltype(tag);
    return withBroadcast(a, b, c, [&](auto broadcast) {
      return e.launch(
          BinaryKernel<T, decltype(broadcast)::value>{
              static_cast<const T *>(a->data), static_cast<const T *>(b->data),
              static_cast<T *>(c->data), ia, ib, kind},
          c->numel);
    });
  });
}

template <typename Exec>
amprt_status compare(Exec &e, Compare kind, const amprt_tensor *a,
                     const amprt_tensor *b, amprt_tensor *c) {
  AMPRT_CHECK(rankCheck("amprt_compare", c->shape.size()));
  Index ia = broadcastIndex(a->shape, c->shape),
        ib = broadcastIndex(b->shape, c->shape);
  uint8_t *out = static_cast<uint8_t *>(c->data);
  return withNumericType(a->dtype, [&](auto tag) {
    using T = decltype(tag);
    return withBroadcast(a, b, c, [&](auto broadcast) {
      return e.launch(
          CompareKernel<T, decltype(broadcast)::value>{
              static_cast<const T *>(a->data), static_cast<const T *>(b->data),
              out, ia, ib, kind},
          c->numel);
    });
  });
}

template <typename Exec>
amprt_status select(Exec &e, const amprt_tensor *cond, const amprt_tensor *a,
                    const amprt_tensor *b, amprt_tensor *c) {
  AMPRT_CHECK(rankCheck("amprt_select", c->shape.size()));
  Index ic = broadcastIndex(cond->shape, c->shape),
        ia = broadcastIndex(a->shape, c->shape),
        ib = broadcastIndex(b->shape, c->shape);
  amprt_status status = AMPRT_OK;
  withElementBits(a->dtype, [&](auto tag) {
    using E = decltype(tag);
    status = e.launch(SelectKernel<E>{static_cast<const uint8_t *>(cond->data),
                                      static_cast<const E *>(a->data),
                                      static_cast<const E *>(b->data),
                                      static_cast<E *>(c->data), ic, ia, ib},
                      c->numel);
  });
  return status;
}

template <typename Exec>
amprt_status isFinite(Exec &e, const amprt_tensor *x, amprt_tensor *y) {
  return withFloatType(x->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(IsFiniteKernel<T>{static_cast<const T *>(x->data),
                                      static_cast<uint8_t *>(y->data)},
                    x->numel);
  });
}

template <typename Exec>
amprt_status activationGrad(Exec &e, ActivationGrad kind,
                            const amprt_tensor *dy, const amprt_tensor *saved,
                            amprt_tensor *dx, double alpha) {
  return withFloatType(dy->dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = typename Compute<T>::type;
    return e.launch(ActivationGradKernel<T>{static_cast<const T *>(dy->data),
                                            static_cast<const T *>(saved->data),
                                            static_cast<T *>(dx->data), kind,
                                            (C)alpha},
                    dy->numel);
  });
}

template <typename Exec>
amprt_status cast(Exec &e, const amprt_tensor *x, amprt_tensor *y) {
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    AMPRT_FLOAT_DISPATCH(y->dtype, U, {
      status = e.launch(CastKernel<T, U>{static_cast<const T *>(x->data),
                                         static_cast<U *>(y->data)},
                        x->numel);
    });
  });
  return status;
}

template <typename Exec>
amprt_status scale(Exec &e, const amprt_tensor *x, const amprt_tensor *scale,
                   amprt_tensor *y, bool unscale) {
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    AMPRT_FLOAT_DISPATCH(y->dtype, U, {
      status = e.launch(
          ScaleKernel<T, U>{static_cast<const T *>(x->data),
                            static_cast<U *>(y->data),
                            static_cast<const float *>(scale->data), unscale},
          x->numel);
    });
  });
  return status;
}

//===--------------------------------------------------------------------===//
// FP8
//===--------------------------------------------------------------------===//

/// fn(storage element) for an FP8 dtype.
template <typename Fn>
amprt_status withFp8(const char *op, amprt_dtype dtype, Fn fn) {
  switch (dtype) {
  case AMPRT_F8E4M3FN:
    return fn(f8e4m3fn_t{});
  case AMPRT_F8E5M2:
    return fn(f8e5m2_t{});
  default:
    return fail(AMPRT_ERROR_DTYPE, "%s: %s is not an FP8 type", op,
                dtypeName(dtype));
  }
}

/// amp.quantize (y FP8) or amp.dequantize (x FP8).
template <typename Exec>
amprt_status scaledCast(Exec &e, const amprt_tensor *x,
                        const amprt_tensor *scale, amprt_tensor *y) {
  const float *s = static_cast<const float *>(scale->data);
  if (isFloat(x->dtype))
    return withFp8("quantize", y->dtype, [&](auto q) {
      return withFloatType(x->dtype, [&](auto t) {
        using Q = decltype(q);
        using T = decltype(t);
        return e.launch(QuantizeKernel<T, Q>{static_cast<const T *>(x->data),
                                             static_cast<Q *>(y->data), s},
                        x->numel);
      });
    });
  return withFp8("dequantize", x->dtype, [&](auto q) {
    return withFloatType(y->dtype, [&](auto u) {
      using Q = decltype(q);
      using U = decltype(u);
      return e.launch(DequantizeKernel<Q, U>{static_cast<const Q *>(x->data),
                                             static_cast<U *>(y->data), s},
                      x->numel);
    });
  });
}

template <typename Exec>
amprt_status fp8Scale(Exec &e, const amprt_tensor *history, double fp8Max,
                      int64_t margin, amprt_tensor *scale) {
  return e.launch(Fp8ScaleKernel{static_cast<const float *>(history->data),
                                 history->numel, (float)fp8Max, (int)margin,
                                 static_cast<float *>(scale->data)},
                  1);
}

template <typename Exec>
amprt_status recordAmax(Exec &e, const amprt_tensor *history,
                        const amprt_tensor *amax, amprt_tensor *newHistory) {
  return e.launch(RecordAmaxKernel{static_cast<const float *>(history->data),
                                   static_cast<const float *>(amax->data),
                                   static_cast<float *>(newHistory->data)},
                  history->numel);
}

//===--------------------------------------------------------------------===//
// Reductions
//===--------------------------------------------------------------------===//

/// Reduced indices per partial sum on an executor with cores
/// (launchBlocks): a few threads, each folding long runs.
constexpr int64_t kReduceChunk = 1024;
/// Values (or partials) each thread folds on a GPU, level by level.
constexpr int64_t kLevelFold = 32;
/// Most level-one partials on a GPU (32 MiB of doubles); beyond it level
/// one folds longer runs.
constexpr int64_t kMaxLevelPartials = int64_t(1) << 22;

/// On cores (launchBlocks): chunks of kReduceChunk values per output, then
/// each output's chunk sums in order.
template <typename Exec, typename Value, typename Finish>
amprt_status reduceInChunks(Exec &e, const char *op, Value value,
                            const Index &outer, const Index &inner,
                            int64_t numOut, int64_t count, bool isMax,
                            Finish finish) {
  int64_t chunk = count < kReduceChunk ? (count > 0 ? count : 1) : kReduceChunk;
  int64_t chunks = count > 0 ? (count + chunk - 1) / chunk : 1;
  Scratch<Exec> partial(e, (size_t)(numOut * chunks) * sizeof(double));
  AMPRT_CHECK(partial.status(op));
  PartialReduceKernel<Value> partials{
      value, outer,  inner, count,
      chunk, chunks, isMax, partial.template as<double>()};
  AMPRT_CHECK(e.launchBlocks(partials, numOut, chunks));
  return e.launch(FinishReduceKernel<Finish>{finish,
                                             partial.template as<double>(),
                                             chunks, isMax, chunks, 1},
                  numOut);
}

/// On a GPU: a tree of levels, each thread folding at most kLevelFold
/// values (level one) or partials (the next levels) in order, neighbouring
/// threads on neighbouring outputs (in level one of a row fold, on
/// neighbouring values of one output: RowFirstLevelKernel), until at most
/// kLevelFold partials per output remain for finish. Many short loops keep the
/// GPU's threads busy and its loads side by side, where a thread per long run
/// would wait on one load after another. `maxPartials` bounds level one's
/// partials (kMaxLevelPartials; smaller in the tests).
template <typename Exec, typename Value, typename Finish>
amprt_status
reduceInLevels(Exec &e, const char *op, Value value, const Index &outer,
               const Index &inner, int64_t numOut, int64_t count, bool isMax,
               Finish finish, int64_t maxPartials = kMaxLevelPartials) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  int64_t fold = kLevelFold;
  if (numOut * ceilDiv(count, fold) > maxPartials)
    fold = ceilDiv(count, std::max<int64_t>(1, maxPartials / numOut));
  int64_t chunks = count > 0 ? ceilDiv(count, fold) : 1;
  int64_t second = chunks > kLevelFold ? ceilDiv(chunks, kLevelFold) : 0;
  Scratch<Exec> scratch(e,
                        (size_t)(numOut * (chunks + second)) * sizeof(double));
  AMPRT_CHECK(scratch.status(op));
  double *in = scratch.template as<double>(), *out = in + numOut * chunks;
  if (inner.rank == 1 && inner.stride[0] == 1)
    AMPRT_CHECK(e.launch(RowFirstLevelKernel<Value>{value, outer, count, numOut,
                                                    chunks, isMax, in},
                         numOut * chunks));
  else
    AMPRT_CHECK(e.launch(FirstLevelKernel<Value>{value, outer, inner, count,
                                                 numOut, fold, isMax, in},
                         numOut * chunks));
  while (chunks > kLevelFold) {
    int64_t next = ceilDiv(chunks, kLevelFold);
    AMPRT_CHECK(
        e.launch(FoldLevelKernel{in, out, chunks, numOut, kLevelFold, isMax},
                 numOut * next));
    std::swap(in, out);
    chunks = next;
  }
  return e.launch(
      FinishReduceKernel<Finish>{finish, in, chunks, isMax, 1, numOut}, numOut);
}

/// Folds `count` values per output (value(o, outer.offset(o) +
/// inner.offset(j))) into finish(o, acc) in a fixed order, so that a
/// result is the same from run to run: on cores in chunks
/// (reduceInChunks), on a GPU in levels (reduceInLevels).
template <typename Exec, typename Value, typename Finish>
amprt_status reduceInto(Exec &e, const char *op, Value value,
                        const Index &outer, const Index &inner, int64_t numOut,
                        int64_t count, bool isMax, Finish finish) {
  if (numOut == 0)
    return AMPRT_OK;
  if constexpr (kOnCores<Exec>)
    return reduceInChunks(e, op, value, outer, inner, numOut, count, isMax,
                          finish);
  else
    return reduceInLevels(e, op, value, outer, inner, numOut, count, isMax,
                          finish);
}

/// `reduced[d]`: whether dimension d of x is reduced.
template <typename Exec>
amprt_status reduce(Exec &e, Reduce kind, const amprt_tensor *x,
                    const bool *reduced, amprt_tensor *y) {
  const char *op = "reduce";
  AMPRT_CHECK(rankCheck(op, x->shape.size()));
  Index dense = denseIndex(x->shape), outer, inner;
  int64_t count = 1;
  for (int d = 0; d < dense.rank; ++d) {
    Index &to = reduced[d] ? inner : outer;
    to.shape[to.rank] = dense.shape[d];
    to.stride[to.rank++] = dense.stride[d];
    if (reduced[d])
      count *= dense.shape[d];
  }
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    status =
        reduceInto(e, op, LoadValue<T>{static_cast<const T *>(x->data)}, outer,
                   inner, y->numel, count, kind == Reduce::Max,
                   StoreFinish<T>{static_cast<T *>(y->data),
                                  kind == Reduce::Mean ? double(count) : 1.0});
  });
  return status;
}

/// amp.amax: max |x| over every element, into an f32 scalar.
template <typename Exec>
amprt_status amax(Exec &e, const amprt_tensor *x, amprt_tensor *y) {
  Index outer, inner;
  inner.rank = 1;
  inner.shape[0] = x->numel;
  inner.stride[0] = 1;
  return withFloatType(x->dtype, [&](auto tag) {
    using T = decltype(tag);
    return reduceInto(e, "amax", AbsValue<T>{static_cast<const T *>(x->data)},
                      outer, inner, 1, x->numel, /*isMax=*/true,
                      AmaxFinish{static_cast<float *>(y->data)});
  });
}

/// Index of channel c (outer) and of its elements (inner) in a Split.
inline void channelIndices(const Split &s, Index &outer, Index &inner) {
  outer.rank = 1;
  outer.shape[0] = s.axis;
  outer.stride[0] = s.inner;
  inner.rank = 2;
  inner.shape[0] = s.outer;
  inner.stride[0] = s.axis * s.inner;
  inner.shape[1] = s.inner;
  inner.stride[1] = 1;
}

//===--------------------------------------------------------------------===//
// Data movement
//===--------------------------------------------------------------------===//

/// y[dstBase + to(i)] = x[srcBase + from(i)] for i < n (StridedCopy.h
/// plans the launch).
template <typename Exec>
amprt_status stridedCopy(Exec &e, const amprt_tensor *x, amprt_tensor *y,
                         const Index &from, const Index &to, int64_t srcBase,
                         int64_t dstBase, int64_t n) {
  CopyPlan plan{from, to, srcBase, dstBase, n, (int)amprt_dtype_size(x->dtype)};
  return runCopy(e, plan, x->data, y->data);
}

/// A view's shape and strides as an Index (its offset apart).
inline Index indexOf(const StridedView &v) {
  static_assert(kMaxViewRank <= kMaxRank, "a view is an Index");
  Index index;
  index.rank = v.rank;
  for (int d = 0; d < v.rank; ++d) {
    index.shape[d] = v.shape[d];
    index.stride[d] = v.stride[d];
  }
  return index;
}

/// y's view `to` = x's view `from` (amprt_batch_matmul_strided's copies).
template <typename Exec>
amprt_status stridedCopyView(Exec &e, const amprt_tensor *x,
                             const StridedView &from, amprt_tensor *y,
                             const StridedView &to) {
  int64_t n = from.numel();
  if (n == 0)
    return AMPRT_OK;
  return stridedCopy(e, x, y, indexOf(from), indexOf(to), from.offset,
                     to.offset, n);
}

template <typename Exec>
amprt_status broadcastTo(Exec &e, const amprt_tensor *x, amprt_tensor *y) {
  AMPRT_CHECK(rankCheck("amprt_broadcast_to", y->shape.size()));
  return stridedCopy(e, x, y, broadcastIndex(x->shape, y->shape),
                     denseIndex(y->shape), 0, 0, y->numel);
}

template <typename Exec>
amprt_status transpose(Exec &e, const amprt_tensor *x, const int64_t *perm,
                       amprt_tensor *y) {
  AMPRT_CHECK(rankCheck("amprt_transpose", x->shape.size()));
  Index xs = denseIndex(x->shape), from = denseIndex(y->shape);
  for (int d = 0; d < from.rank; ++d)
    from.stride[d] = xs.stride[perm[d]];
  return stridedCopy(e, x, y, from, denseIndex(y->shape), 0, 0, y->numel);
}

template <typename Exec>
amprt_status slice(Exec &e, const amprt_tensor *x, const int64_t *offsets,
                   const int64_t *strides, amprt_tensor *y) {
  AMPRT_CHECK(rankCheck("amprt_slice", x->shape.size()));
  Index xs = denseIndex(x->shape), from = denseIndex(y->shape);
  int64_t base = 0;
  for (int d = 0; d < from.rank; ++d) {
    from.stride[d] = xs.stride[d] * (strides ? strides[d] : 1);
    base += offsets[d] * xs.stride[d];
  }
  return stridedCopy(e, x, y, from, denseIndex(y->shape), base, 0, y->numel);
}

template <typename Exec>
amprt_status pad(Exec &e, const amprt_tensor *x, const int64_t *low,
                 double value, amprt_tensor *y) {
  AMPRT_CHECK(rankCheck("amprt_pad", x->shape.size()));
  AMPRT_CHECK(fill(e, y, isFloat(y->dtype) ? value : 0.0));
  Index ys = denseIndex(y->shape), to = denseIndex(x->shape);
  int64_t base = 0;
  for (int d = 0; d < to.rank; ++d) {
    to.stride[d] = ys.stride[d];
    base += low[d] * ys.stride[d];
  }
  return stridedCopy(e, x, y, denseIndex(x->shape), to, 0, base, x->numel);
}

template <typename Exec>
amprt_status concat(Exec &e, const amprt_tensor *const *xs, int count,
                    int64_t dim, amprt_tensor *y) {
  AMPRT_CHECK(rankCheck("amprt_concat", y->shape.size()));
  Index ys = denseIndex(y->shape);
  int64_t offset = 0;
  for (int i = 0; i < count; ++i) {
    Index to = denseIndex(xs[i]->shape);
    for (int d = 0; d < to.rank; ++d)
      to.stride[d] = ys.stride[d];
    AMPRT_CHECK(stridedCopy(e, xs[i], y, denseIndex(xs[i]->shape), to, 0,
                            offset * ys.stride[dim], xs[i]->numel));
    offset += xs[i]->shape[dim];
  }
  return AMPRT_OK;
}

/// The context's fault word for a kernel about to read indices (null
/// where the context has none: the CPU's).
inline IndexFault *handOutIndexFault(amprt_context *ctx) {
  if (!ctx || !ctx->indexFault)
    return nullptr;
  ctx->indexFaultPending = true;
  return static_cast<IndexFault *>(ctx->indexFault);
}

/// The context's fault word if a kernel was handed it since the last read.
inline IndexFault *takePendingIndexFault(amprt_context *ctx) {
  if (!ctx || !ctx->indexFaultPending)
    return nullptr;
  ctx->indexFaultPending = false;
  return static_cast<IndexFault *>(ctx->indexFault);
}

/// "amprt_gather: index 7 of element 2 is outside [0, 4)".
inline amprt_status indexError(const IndexSite &site, int64_t value,
                               int64_t position) {
  return fail(AMPRT_ERROR_INDEX, "%s: %s %lld of %s %lld is outside [0, %lld)",
              site.op, site.what, (long long)value, site.position,
              (long long)position, (long long)site.limit);
}

/// Checks i32/i64 indices in host memory against [0, site.limit); the
/// message names the first bad one as "<what> V of <position> I".
template <typename Exec>
amprt_status checkIndices(Exec &e, const IndexSite &site,
                          const amprt_tensor *indices) {
  std::vector<int64_t> host(indices->numel);
  if (indices->dtype == AMPRT_I64) {
    AMPRT_CHECK(e.toHost(host.data(), indices->data, indices->bytes));
  } else {
    std::vector<int32_t> narrow(indices->numel);
    AMPRT_CHECK(e.toHost(narrow.data(), indices->data, indices->bytes));
    host.assign(narrow.begin(), narrow.end());
  }
  for (int64_t i = 0; i < indices->numel; ++i)
    if (host[i] < 0 || host[i] >= site.limit)
      return indexError(site, host[i], i);
  return AMPRT_OK;
}

/// Where the kernels that read `indices` record one out of range: the
/// executor's fault word, which its backend reads at the next synchronising
/// call (a device's executor: no host copy or wait per op); or null, for an
/// executor over host memory, once the indices are checked here.
template <typename Exec>
amprt_status indexFaultFor(Exec &e, const IndexSite &site,
                           const amprt_tensor *indices, IndexFault *&fault) {
  fault = e.indexFault();
  return fault ? AMPRT_OK : checkIndices(e, site, indices);
}

/// Reads the executor's fault word after the work queued before it and
/// clears it: the error of an index out of range a kernel met since the
/// last read, as the op would have reported it, or OK. Cheap when no kernel
/// was handed the word since (pendingIndexFault false).
template <typename Exec> amprt_status takeIndexFault(Exec &e) {
  IndexFault *word = e.pendingIndexFault();
  if (!word)
    return AMPRT_OK;
  IndexFault fault;
  AMPRT_CHECK(e.toHost(&fault, word, sizeof fault));
  if (!fault.claimed)
    return AMPRT_OK;
  AMPRT_CHECK(e.launch(ClearIndexFaultKernel{word}, 1));
  return indexError(fault.site, fault.value, fault.position);
}

template <typename Exec>
amprt_status gather(Exec &e, const amprt_tensor *table,
                    const amprt_tensor *indices, amprt_tensor *y) {
  int64_t rows = table->shape[0], row = rows ? table->numel / rows : 0;
  IndexSite site{"amprt_gather", "index", "element", rows};
  IndexFault *fault;
  AMPRT_CHECK(indexFaultFor(e, site, indices, fault));
  amprt_status status = AMPRT_OK;
  withElementBits(table->dtype, [&](auto tag) {
    using E = decltype(tag);
    auto run = [&](auto itag) {
      using I = decltype(itag);
      return e.launch(GatherKernel<E, I>{static_cast<const E *>(table->data),
                                         static_cast<const I *>(indices->data),
                                         static_cast<E *>(y->data), row, fault,
                                         site},
                      y->numel);
    };
    status = indices->dtype == AMPRT_I32 ? run(int32_t()) : run(int64_t());
  });
  return status;
}

template <typename Exec>
amprt_status gatherGrad(Exec &e, const amprt_tensor *dy,
                        const amprt_tensor *indices, amprt_tensor *dtable) {
  const char *op = "amprt_gather_grad";
  int64_t rows = dtable->shape[0], row = rows ? dtable->numel / rows : 0;
  IndexSite site{op, "index", "element", rows};
  IndexFault *fault;
  AMPRT_CHECK(indexFaultFor(e, site, indices, fault));
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    using C = typename Compute<T>::type;
    Scratch<Exec> acc(e, (size_t)dtable->numel * sizeof(C));
    status = acc.status(op);
    if (status == AMPRT_OK)
      status =
          e.launch(FillKernel<C>{acc.template as<C>(), C(0)}, dtable->numel);
    auto run = [&](auto itag) {
      using I = decltype(itag);
      return e.launch(
          GatherGradKernel<T, I>{static_cast<const T *>(dy->data),
                                 static_cast<const I *>(indices->data),
                                 acc.template as<C>(), row, fault, site},
          dy->numel);
    };
    if (status == AMPRT_OK)
      status = indices->dtype == AMPRT_I32 ? run(int32_t()) : run(int64_t());
    if (status == AMPRT_OK)
      status = e.launch(CastKernel<C, T>{acc.template as<C>(),
                                         static_cast<T *>(dtable->data)},
                        dtable->numel);
  });
  return status;
}

//===--------------------------------------------------------------------===//
// Bias, pooling, normalization
//===--------------------------------------------------------------------===//

template <typename Exec>
amprt_status biasAdd(Exec &e, const amprt_tensor *x, const amprt_tensor *b,
                     const Split &s, amprt_tensor *y) {
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    status =
        e.launch(BiasAddKernel<T>{static_cast<const T *>(x->data),
                                  static_cast<const T *>(b->data),
                                  static_cast<T *>(y->data), s.axis, s.inner},
                 x->numel);
  });
  return status;
}

/// A contraction's bias (`bias->numel` channels, each over `inner`
/// consecutive elements), added over the result its GEMM or convolution
/// wrote without it: the device libraries' calls here take no bias, so
/// amprt_matmul_bias and amprt_conv2d_bias run amprt_bias_add's kernel in
/// place after them, the same values as the two calls.
template <typename Exec>
amprt_status addContractionBias(Exec &e, const amprt_tensor *bias,
                                amprt_tensor *result, int64_t inner) {
  return biasAdd(e, result, bias,
                 channelSplit(result->numel, bias->numel, inner), result);
}

/// The epilogue of a contraction whose library call wrote the bare product
/// into act.target(result): the bias added there, then the activation
/// from there into `result` (amprt_unary's kernel), the values of the
/// separate calls. cuBLASLt's RELU/GELU epilogues would apply them before
/// the one rounding to 16 bits, not to the rounded sum as the CPU does.
template <typename Exec>
amprt_status finishContraction(Exec &e, const amprt_tensor *bias,
                               const Activation &act, amprt_tensor *result,
                               int64_t inner) {
  amprt_tensor *written = act.target(result);
  if (result->numel == 0)
    return AMPRT_OK;
  if (bias)
    AMPRT_CHECK(addContractionBias(e, bias, written, inner));
  return act.on ? unary(e, act.kind, written, result, act.alpha) : AMPRT_OK;
}

template <typename Exec>
amprt_status biasAddGrad(Exec &e, const amprt_tensor *dy, const Split &s,
                         amprt_tensor *db) {
  Index outer, inner;
  channelIndices(s, outer, inner);
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    auto sumInto = [&](auto finish) {
      return reduceInto(e, "amprt_bias_add_grad",
                        LoadValue<T>{static_cast<const T *>(dy->data)}, outer,
                        inner, s.axis, s.outer * s.inner, false, finish);
    };
    // db is dy's type, or f32 for a 16-bit dy (amprt_bias_add_grad).
    status =
        db->dtype == dy->dtype
            ? sumInto(StoreFinish<T>{static_cast<T *>(db->data), 1.0})
            : sumInto(StoreFinish<float>{static_cast<float *>(db->data), 1.0});
  });
  return status;
}

template <typename Exec>
amprt_status pool(Exec &e, bool isMax, const amprt_tensor *x, const Pool &p,
                  amprt_tensor *y) {
  return withFloatType(x->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(PoolKernel<T>{static_cast<const T *>(x->data),
                                  static_cast<T *>(y->data), p, isMax},
                    y->numel);
  });
}

/// x and y are null for avg pooling.
template <typename Exec>
amprt_status poolGrad(Exec &e, bool isMax, const amprt_tensor *dy,
                      const amprt_tensor *x, const amprt_tensor *y,
                      const Pool &p, amprt_tensor *dx) {
  return withFloatType(dy->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(
        PoolGradKernel<T>{static_cast<const T *>(dy->data),
                          x ? static_cast<const T *>(x->data) : nullptr,
                          y ? static_cast<const T *>(y->data) : nullptr,
                          static_cast<T *>(dx->data), p, isMax},
        dx->numel);
  });
}

template <typename Exec>
amprt_status batchNorm(Exec &e, const amprt_tensor *x,
                       const amprt_tensor *scale, const amprt_tensor *offset,
                       double epsilon, const Split &s, amprt_tensor *y,
                       amprt_tensor *mean, amprt_tensor *invStd) {
  const char *op = "amprt_batch_norm";
  Index outer, inner;
  channelIndices(s, outer, inner);
  int64_t count = s.outer * s.inner;
  Scratch<Exec> stats(e, (size_t)s.axis * 3 * sizeof(double));
  AMPRT_CHECK(stats.status(op));
  double *mu = stats.template as<double>(), *var = mu + s.axis,
         *is = var + s.axis;
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using S = StatsType<T>;
    const T *xs = static_cast<const T *>(x->data);
    status = reduceInto(e, op, LoadValue<T>{xs}, outer, inner, s.axis, count,
                        false, KeepFinish{mu, double(count)});
    if (status == AMPRT_OK)
      status = reduceInto(e, op, CenteredSquareValue<T>{xs, mu}, outer, inner,
                          s.axis, count, false, KeepFinish{var, double(count)});
    if (status == AMPRT_OK)
      status = e.launch(BatchNormStatsKernel<S>{mu, var, epsilon, is,
                                                static_cast<S *>(mean->data),
                                                static_cast<S *>(invStd->data)},
                        s.axis);
    if (status == AMPRT_OK)
      status = e.launch(
          BatchNormApplyKernel<T, S>{xs, static_cast<const S *>(scale->data),
                                     static_cast<const S *>(offset->data), mu,
                                     is, static_cast<T *>(y->data), s.axis,
                                     s.inner},
          x->numel);
  });
  return status;
}

template <typename Exec>
amprt_status batchNormGrad(Exec &e, const amprt_tensor *dy,
                           const amprt_tensor *x, const amprt_tensor *scale,
                           const amprt_tensor *mean, const amprt_tensor *invStd,
                           const Split &s, amprt_tensor *dx,
                           amprt_tensor *dscale, amprt_tensor *doffset) {
  const char *op = "amprt_batch_norm_grad";
  Index outer, inner;
  channelIndices(s, outer, inner);
  int64_t count = s.outer * s.inner;
  Scratch<Exec> sums(e, (size_t)s.axis * 2 * sizeof(double));
  AMPRT_CHECK(sums.status(op));
  double *sumDy = sums.template as<double>(), *sumDyXhat = sumDy + s.axis;
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using S = StatsType<T>;
    const T *xs = static_cast<const T *>(x->data);
    const T *dys = static_cast<const T *>(dy->data);
    const S *mu = static_cast<const S *>(mean->data);
    const S *is = static_cast<const S *>(invStd->data);
    status = reduceInto(e, op, LoadValue<T>{dys}, outer, inner, s.axis, count,
                        false, KeepFinish{sumDy, 1.0});
    if (status == AMPRT_OK)
      status =
          reduceInto(e, op, DyXhatChannelValue<T, S>{dys, xs, mu, is}, outer,
                     inner, s.axis, count, false, KeepFinish{sumDyXhat, 1.0});
    if (status == AMPRT_OK)
      status = e.launch(
          BatchNormGradKernel<T, S>{
              dys, xs, static_cast<const S *>(scale->data), mu, is, sumDy,
              sumDyXhat, static_cast<T *>(dx->data), s.axis, s.inner,
              double(count)},
          x->numel);
    if (status == AMPRT_OK)
      status = e.launch(
          StoreStatsKernel<S>{sumDyXhat, static_cast<S *>(dscale->data)},
          s.axis);
    if (status == AMPRT_OK)
      status = e.launch(
          StoreStatsKernel<S>{sumDy, static_cast<S *>(doffset->data)}, s.axis);
  });
  return status;
}

/// Row and column indices of a [rows, d] tensor for reduceInto: a row
/// fold (output r, values along the row) or a column fold (output j).
inline void rowFold(int64_t rows, int64_t d, Index &outer, Index &inner) {
  outer.rank = inner.rank = 1;
  outer.shape[0] = rows;
  outer.stride[0] = d;
  inner.shape[0] = d > 0 ? d : 1;
  inner.stride[0] = 1;
}

/// Layer norm on a GPU: the rows' means and variances reduced in levels
/// into scratch, then one thread per element (LayerNormApplyKernel); a
/// thread per row of a wide layer would read it alone, element by element.
template <typename Exec, typename T, typename S>
amprt_status layerNormInLevels(Exec &e, const T *x, const S *gamma,
                               const S *beta, double epsilon, int64_t rows,
                               int64_t d, T *y, S *mean, S *invStd) {
  const char *op = "amprt_layer_norm";
  Scratch<Exec> stats(e, (size_t)rows * 3 * sizeof(double));
  AMPRT_CHECK(stats.status(op));
  double *mu = stats.template as<double>(), *var = mu + rows, *is = var + rows;
  Index outer, inner;
  rowFold(rows, d, outer, inner);
  AMPRT_CHECK(reduceInto(e, op, LoadValue<T>{x}, outer, inner, rows, d, false,
                         KeepFinish{mu, double(d)}));
  AMPRT_CHECK(reduceInto(e, op, CenteredSquareValue<T>{x, mu}, outer, inner,
                         rows, d, false, KeepFinish{var, double(d)}));
  AMPRT_CHECK(e.launch(
      BatchNormStatsKernel<S>{mu, var, epsilon, is, mean, invStd}, rows));
  return e.launch(LayerNormApplyKernel<T, S>{x, gamma, beta, mu, is, y, d},
                  rows * d);
}

template <typename Exec>
amprt_status layerNorm(Exec &e, const amprt_tensor *x,
                       const amprt_tensor *gamma, const amprt_tensor *beta,
                       double epsilon, amprt_tensor *y, amprt_tensor *mean,
                       amprt_tensor *invStd) {
  int64_t d = x->shape.back(), rows = d ? x->numel / d : 0;
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using S = StatsType<T>;
    const T *xs = static_cast<const T *>(x->data);
    const S *g = static_cast<const S *>(gamma->data),
            *b = static_cast<const S *>(beta->data);
    T *ys = static_cast<T *>(y->data);
    S *mu = static_cast<S *>(mean->data), *is = static_cast<S *>(invStd->data);
    if constexpr (kOnCores<Exec>)
      status = e.launch(LayerNormKernel<T, S>{xs, g, b, ys, mu, is, d, epsilon},
                        rows);
    else
      status = rows == 0 ? AMPRT_OK
                         : layerNormInLevels(e, xs, g, b, epsilon, rows, d, ys,
                                             mu, is);
  });
  return status;
}

/// dgamma[j] and dbeta[j]: column j of dy * xhat and of dy folded over the
/// rows in chunks added in order.
template <typename Exec>
amprt_status layerNormGradSums(Exec &e, const amprt_tensor *dy,
                               const amprt_tensor *x, const amprt_tensor *mean,
                               const amprt_tensor *invStd, amprt_tensor *dgamma,
                               amprt_tensor *dbeta) {
  const char *op = "amprt_layer_norm_grad";
  int64_t d = x->shape.back(), rows = d ? x->numel / d : 0;
  Index outer, inner;
  outer.rank = inner.rank = 1;
  outer.shape[0] = d;
  outer.stride[0] = 1;
  inner.shape[0] = rows;
  inner.stride[0] = d;
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using S = StatsType<T>;
    const T *xs = static_cast<const T *>(x->data);
    const T *dys = static_cast<const T *>(dy->data);
    const S *mu = static_cast<const S *>(mean->data);
    const S *is = static_cast<const S *>(invStd->data);
    status = reduceInto(e, op, DyXhatRowValue<T, S>{dys, xs, mu, is}, outer,
                        inner, d, rows, false,
                        StoreFinish<S>{static_cast<S *>(dgamma->data), 1.0});
    if (status == AMPRT_OK)
      status =
          reduceInto(e, op, LoadValue<T>{dys}, outer, inner, d, rows, false,
                     StoreFinish<S>{static_cast<S *>(dbeta->data), 1.0});
  });
  return status;
}

/// Layer norm's dx on a GPU: the rows' sums of dy * gamma and of
/// dy * gamma * xhat reduced in levels, then one thread per element
/// (LayerNormGradApplyKernel).
template <typename Exec, typename T, typename S>
amprt_status layerNormDxInLevels(Exec &e, const T *dy, const T *x,
                                 const S *gamma, const S *mean, const S *invStd,
                                 int64_t rows, int64_t d, T *dx) {
  const char *op = "amprt_layer_norm_grad";
  Scratch<Exec> sums(e, (size_t)rows * 2 * sizeof(double));
  AMPRT_CHECK(sums.status(op));
  double *sumG = sums.template as<double>(), *sumGXhat = sumG + rows;
  Index outer, inner;
  rowFold(rows, d, outer, inner);
  AMPRT_CHECK(reduceInto(e, op, DyGammaValue<T, S>{dy, gamma}, outer, inner,
                         rows, d, false, KeepFinish{sumG, 1.0}));
  AMPRT_CHECK(
      reduceInto(e, op, DyGammaXhatValue<T, S>{dy, x, gamma, mean, invStd},
                 outer, inner, rows, d, false, KeepFinish{sumGXhat, 1.0}));
  return e.launch(LayerNormGradApplyKernel<T, S>{dy, x, gamma, mean, invStd,
                                                 sumG, sumGXhat, dx, d},
                  rows * d);
}

template <typename Exec>
amprt_status layerNormGrad(Exec &e, const amprt_tensor *dy,
                           const amprt_tensor *x, const amprt_tensor *gamma,
                           const amprt_tensor *mean, const amprt_tensor *invStd,
                           amprt_tensor *dx, amprt_tensor *dgamma,
                           amprt_tensor *dbeta) {
  int64_t d = x->shape.back(), rows = d ? x->numel / d : 0;
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using S = StatsType<T>;
    const T *dys = static_cast<const T *>(dy->data),
            *xs = static_cast<const T *>(x->data);
    const S *g = static_cast<const S *>(gamma->data),
            *mu = static_cast<const S *>(mean->data),
            *is = static_cast<const S *>(invStd->data);
    T *dxs = static_cast<T *>(dx->data);
    if constexpr (kOnCores<Exec>)
      status =
          e.launch(LayerNormGradKernel<T, S>{dys, xs, g, mu, is, dxs, d}, rows);
    else
      status = rows == 0
                   ? AMPRT_OK
                   : layerNormDxInLevels(e, dys, xs, g, mu, is, rows, d, dxs);
  });
  if (status != AMPRT_OK)
    return status;
  return layerNormGradSums(e, dy, x, mean, invStd, dgamma, dbeta);
}

//===--------------------------------------------------------------------===//
// Softmax and loss
//===--------------------------------------------------------------------===//

/// A softmax kind on a GPU: its rows' statistics reduced in levels into
/// scratch, then one thread per element (SoftmaxLevels.h). `queries`
/// masks keys past the diagonal (0: no mask; rows contiguous).
template <typename K, typename Exec, typename T>
amprt_status softmaxInLevels(Exec &e, const T *a, const T *b, T *out,
                             const Split &s, int64_t queries) {
  const char *op = "amprt_softmax";
  int64_t rows = s.outer * s.inner;
  if (rows == 0 || s.axis == 0)
    return AMPRT_OK;
  Scratch<Exec> stats(e, (size_t)rows * 2 * sizeof(double));
  AMPRT_CHECK(stats.status(op));
  double *max = stats.template as<double>(), *stat = max + rows;
  Index outer, along;
  outer.rank = 2;
  outer.shape[0] = s.outer;
  outer.stride[0] = s.axis * s.inner;
  outer.shape[1] = s.inner;
  outer.stride[1] = 1;
  along.rank = 1;
  along.shape[0] = s.axis;
  along.stride[0] = s.inner;
  auto sumInto = [&](auto value, auto finish) {
    return reduceInto(e, op, value, outer, along, rows, s.axis, false, finish);
  };
  constexpr SoftmaxKind kind = K::value;
  if constexpr (kind == SoftmaxKind::SoftmaxGrad) {
    AMPRT_CHECK(sumInto(ProductValue<T>{a, b}, KeepFinish{stat, 1.0}));
  } else if constexpr (kind == SoftmaxKind::LogSoftmaxGrad) {
    AMPRT_CHECK(sumInto(LoadValue<T>{a}, KeepFinish{stat, 1.0}));
  } else {
    AMPRT_CHECK(reduceInto(e, op, MaskedLoadValue<T>{a, queries}, outer, along,
                           rows, s.axis, true, KeepFinish{max, 1.0}));
    ShiftedExpValue<T> terms{a, max, queries};
    if constexpr (kind == SoftmaxKind::Softmax)
      AMPRT_CHECK(sumInto(terms, ReciprocalFinish{stat}));
    else
      AMPRT_CHECK(sumInto(terms, LogSumExpFinish{stat, max}));
  }
  return e.launch(SoftmaxApplyKernel<T, kind>{a, b, out, max, stat, s, queries},
                  rows * s.axis);
}

/// Forward kinds: a = x, b unused; gradients: a = dy, b = y. On cores a
/// thread per row (SoftmaxKernel); on a GPU in levels.
template <typename Exec>
amprt_status softmax(Exec &e, SoftmaxKind kind, const amprt_tensor *a,
                     const amprt_tensor *b, const Split &s, amprt_tensor *out) {
  amprt_status status = AMPRT_OK;
  AMPRT_FLOAT_DISPATCH(a->dtype, T, {
    const T *as = static_cast<const T *>(a->data),
            *bs = b ? static_cast<const T *>(b->data) : nullptr;
    T *outs = static_cast<T *>(out->data);
    auto run = [&](auto kindTag, auto contiguousTag) {
      SoftmaxKernel<T, decltype(kindTag)::value, decltype(contiguousTag)::value>
          kernel{as, bs, outs, s};
      return e.launch(kernel, s.outer * s.inner);
    };
    status = withSoftmaxKind(kind, [&](auto kindTag) {
      if constexpr (!kOnCores<Exec>)
        return softmaxInLevels<decltype(kindTag)>(e, as, bs, outs, s, 0);
      else
        return s.inner == 1 ? run(kindTag, std::true_type())
                            : run(kindTag, std::false_type());
    });
  });
  return status;
}

/// Softmax over the last axis of x [..., queries, keys] under a causal mask
/// (CausalSoftmaxKernel on cores; on a GPU in levels).
template <typename Exec>
amprt_status causalSoftmax(Exec &e, const amprt_tensor *x, int64_t queries,
                           amprt_tensor *y) {
  int64_t keys = x->shape.back();
  return withFloatType(x->dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *xs = static_cast<const T *>(x->data);
    T *ys = static_cast<T *>(y->data);
    if constexpr (!kOnCores<Exec>) {
      Split rows{keys ? x->numel / keys : 0, keys, 1};
      return softmaxInLevels<
          std::integral_constant<SoftmaxKind, SoftmaxKind::Softmax>>(
          e, xs, (const T *)nullptr, ys, rows, queries);
    } else {
      return e.launch(CausalSoftmaxKernel<T>{xs, ys, keys, queries},
                      keys ? x->numel / keys : 0);
    }
  });
}

/// The forward (dloss null, out = loss) or the gradient (out = dlogits).
template <typename Exec>
amprt_status crossEntropy(Exec &e, const char *op, const amprt_tensor *logits,
                          const amprt_tensor *labels, const amprt_tensor *dloss,
                          amprt_tensor *out) {
  int64_t n = logits->shape[0], c = logits->shape[1];
  bool indices = labels->dtype == AMPRT_I32 || labels->dtype == AMPRT_I64;
  IndexSite site{op, "label", "example", c};
  IndexFault *fault = nullptr;
  if (indices)
    AMPRT_CHECK(indexFaultFor(e, site, labels, fault));
  return withFloatType(logits->dtype, [&](auto tag) {
    using T = decltype(tag);
    auto run = [&](auto tag) {
      using I = decltype(tag);
      return e.launch(
          CrossEntropyKernel<T, I>{
              static_cast<const T *>(logits->data), labels->data,
              dloss ? static_cast<const T *>(dloss->data) : nullptr,
              static_cast<T *>(out->data), c, fault, site},
          n);
    };
    return labels->dtype == AMPRT_I32   ? run(int32_t())
           : labels->dtype == AMPRT_I64 ? run(int64_t())
                                        : run(char());
  });
}

//===--------------------------------------------------------------------===//
// Optimizer and loss scaling
//===--------------------------------------------------------------------===//

/// Runs f(T()) with T = double for f64 state and float for f32.
template <typename F> amprt_status withState(amprt_dtype dtype, F f) {
  return dtype == AMPRT_F64 ? f(double()) : f(float());
}

template <typename Exec>
amprt_status sgd(Exec &e, const amprt_tensor *param, const amprt_tensor *grad,
                 const amprt_tensor *lr, amprt_tensor *newParam) {
  return withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(SgdKernel<T>{static_cast<const T *>(param->data),
                                 static_cast<const T *>(grad->data),
                                 static_cast<const float *>(lr->data),
                                 static_cast<T *>(newParam->data)},
                    param->numel);
  });
}

template <typename Exec>
amprt_status momentum(Exec &e, const amprt_tensor *param,
                      const amprt_tensor *grad, const amprt_tensor *velocity,
                      const amprt_tensor *lr, double momentum,
                      double weightDecay, bool nesterov, amprt_tensor *newParam,
                      amprt_tensor *newVelocity) {
  return withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(MomentumKernel<T>{static_cast<const T *>(param->data),
                                      static_cast<const T *>(grad->data),
                                      static_cast<const T *>(velocity->data),
                                      static_cast<const float *>(lr->data),
                                      momentum, weightDecay, nesterov,
                                      static_cast<T *>(newParam->data),
                                      static_cast<T *>(newVelocity->data)},
                    param->numel);
  });
}

template <typename Exec>
amprt_status adam(Exec &e, const amprt_tensor *param, const amprt_tensor *grad,
                  const amprt_tensor *m, const amprt_tensor *v,
                  const amprt_tensor *step, const amprt_tensor *lr,
                  double beta1, double beta2, double epsilon,
                  double weightDecay, amprt_tensor *newParam,
                  amprt_tensor *newM, amprt_tensor *newV) {
  Scratch<Exec> corrections(e, 2 * sizeof(double));
  AMPRT_CHECK(corrections.status("amprt_adam_update"));
  double *c = corrections.template as<double>();
  AMPRT_CHECK(
      e.launch(AdamCorrectionKernel{static_cast<const int64_t *>(step->data),
                                    beta1, beta2, c},
               1));
  return withState(param->dtype, [&](auto tag) {
    using T = decltype(tag);
    return e.launch(
        AdamKernel<T>{
            static_cast<const T *>(param->data),
            static_cast<const T *>(grad->data), static_cast<const T *>(m->data),
            static_cast<const T *>(v->data), c,
            static_cast<const float *>(lr->data), beta1, beta2, epsilon,
            weightDecay, static_cast<T *>(newParam->data),
            static_cast<T *>(newM->data), static_cast<T *>(newV->data)},
        param->numel);
  });
}

template <typename Exec>
amprt_status clipByGlobalNorm(Exec &e, const amprt_tensor *const *grads,
                              int count, double maxNorm,
                              amprt_tensor *const *clipped) {
  const char *op = "amprt_clip_by_global_norm";
  Scratch<Exec> squares(e, (size_t)(count + 1) * sizeof(double));
  AMPRT_CHECK(squares.status(op));
  double *sq = squares.template as<double>(), *factor = sq + count;
  for (int i = 0; i < count; ++i) {
    Index outer, inner;
    inner.rank = 1;
    inner.shape[0] = grads[i]->numel;
    inner.stride[0] = 1;
    amprt_status status = AMPRT_OK;
    AMPRT_FLOAT_DISPATCH(grads[i]->dtype, T, {
      status = reduceInto(
          e, op, SquareValue<T>{static_cast<const T *>(grads[i]->data)}, outer,
          inner, 1, grads[i]->numel, false, KeepFinish{sq + i, 1.0});
    });
    AMPRT_CHECK(status);
  }
  AMPRT_CHECK(e.launch(ClipFactorKernel{sq, count, maxNorm, factor}, 1));
  for (int i = 0; i < count; ++i) {
    amprt_status status = AMPRT_OK;
    AMPRT_FLOAT_DISPATCH(grads[i]->dtype, T, {
      status =
          e.launch(ClipKernel<T>{static_cast<const T *>(grads[i]->data),
                                 static_cast<T *>(clipped[i]->data), factor},
                   grads[i]->numel);
    });
    AMPRT_CHECK(status);
  }
  return AMPRT_OK;
}

/// all_finite (scale and unscaled null) or the fused unscale + check.
template <typename Exec>
amprt_status finiteCheck(Exec &e, const amprt_tensor *const *gs, int count,
                         const amprt_tensor *scale,
                         amprt_tensor *const *unscaled, amprt_tensor *finite) {
  uint8_t *flag = static_cast<uint8_t *>(finite->data);
  AMPRT_CHECK(e.launch(FillKernel<uint8_t>{flag, 1}, 1));
  const float *s = scale ? static_cast<const float *>(scale->data) : nullptr;
  for (int i = 0; i < count; ++i) {
    amprt_status status = AMPRT_OK;
    AMPRT_FLOAT_DISPATCH(gs[i]->dtype, T, {
      const T *g = static_cast<const T *>(gs[i]->data);
      if (!unscaled)
        status = e.launch(FiniteCheckKernel<T, float>{g, nullptr, s, flag},
                          gs[i]->numel);
      else
        status = withState(unscaled[i]->dtype, [&](auto tag) {
          using U = decltype(tag);
          return e.launch(
              FiniteCheckKernel<T, U>{g, static_cast<U *>(unscaled[i]->data), s,
                                      flag},
              gs[i]->numel);
        });
    });
    AMPRT_CHECK(status);
  }
  return AMPRT_OK;
}

template <typename Exec>
amprt_status
updateScale(Exec &e, const amprt_tensor *scale, const amprt_tensor *goodSteps,
            const amprt_tensor *finite, double growth, double backoff,
            int64_t interval, double minScale, double maxScale,
            amprt_tensor *newScale, amprt_tensor *newGoodSteps) {
  return e.launch(
      UpdateScaleKernel{static_cast<const float *>(scale->data),
                        static_cast<const int64_t *>(goodSteps->data),
                        static_cast<const uint8_t *>(finite->data), growth,
                        backoff, interval, minScale, maxScale,
                        static_cast<float *>(newScale->data),
                        static_cast<int64_t *>(newGoodSteps->data)},
      1);
}

} // namespace amprt::device

#endif // AMPRT_DEVICE_DEVICEOPS_H
