//===- Kernels.h - Per-element bodies of the device backend ----*- C++ -*-===//
//
// Every device kernel is a struct of plain pointers and sizes whose
// `operator()(i)` computes element (or row, or window) `i`. The CUDA
// backend runs it in a grid-stride loop; the unit tests run the same
// struct in a host loop (HostExec) against the CPU backend, so the GPU's
// indexing and arithmetic are tested on machines without a GPU. Formulas
// come from common/amprt_math.h, as on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_DEVICE_KERNELS_H
#define AMPRT_DEVICE_KERNELS_H

#include "../common/Geometry.h"
#include "../common/amprt_fp8.h"
#include "../common/amprt_math.h"

namespace amprt::device {

constexpr int kMaxRank = 8;

/// Linear index -> offset through a row-major shape and per-dimension
/// strides (0 for a broadcast dimension). `linear` lies below the shape's
/// element count, so what is left of it at the outermost dimension is its
/// coordinate there: no division (a GPU's 64-bit division is a long
/// software routine, and a rank-one index is most reductions' inner one).
struct Index {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
  AMPRT_HD int64_t offset(int64_t linear) const {
    int64_t off = 0;
    for (int d = rank - 1; d > 0; --d) {
      off += (linear % shape[d]) * stride[d];
      linear /= shape[d];
    }
    return rank > 0 ? off + linear * stride[0] : 0;
  }
};

/// Adds `v` to `*p` atomically on the device (plain add on the host, where
/// the loop is serial).
template <typename C> AMPRT_HD inline void accumulate(C *p, C v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

//===--------------------------------------------------------------------===//
// Index checks
//===--------------------------------------------------------------------===//

/// Which read of indices a fault came from. The strings are the host's
/// (string literals), carried through the device as plain pointers and
/// only read by the host that formats the message.
struct IndexSite {
  const char *op;       // "amprt_gather"
  const char *what;     // "index", "label"
  const char *position; // "element", "example"
  int64_t limit;        // indices must lie in [0, limit)
};

/// The first index out of range that a kernel met. A device backend keeps
/// one per context in device memory and reads it at the next synchronising
/// call (DeviceOps.h, takeIndexFault), so no op waits for the device to
/// check its indices.
struct IndexFault {
  unsigned int claimed; // 0 until a kernel records a fault
  IndexSite site;
  int64_t value;
  int64_t position;
};

/// Whether `value` (at `position`) lies in [0, site.limit); when it does
/// not, the first kernel thread to see a fault records it in `fault` (null
/// where the host checked the indices before the launch).
AMPRT_HD inline bool indexInRange(IndexFault *fault, const IndexSite &site,
                                  int64_t value, int64_t position) {
  if (value >= 0 && value < site.limit)
    return true;
  if (!fault)
    return false;
#if defined(__CUDA_ARCH__)
  bool first = atomicCAS(&fault->claimed, 0u, 1u) == 0u;
#else
  bool first = __atomic_exchange_n(&fault->claimed, 1u, __ATOMIC_RELAXED) == 0u;
#endif
  if (first) {
    fault->site = site;
    fault->value = value;
    fault->position = position;
  }
  return false;
}

/// Makes a fault word ready for the next fault (one index).
struct ClearIndexFaultKernel {
  IndexFault *fault;
  AMPRT_HD void operator()(int64_t) const { fault->claimed = 0; }
};

//===--------------------------------------------------------------------===//
// Elementwise
//===--------------------------------------------------------------------===//

template <typename T> struct UnaryKernel {
  using C = typename Compute<T>::type;
  const T *x;
  T *y;
  Unary op;
  C alpha;
  AMPRT_HD void operator()(int64_t i) const {
    store(y, i, applyUnary<C>(op, load(x, i), alpha));
  }
};

/// Every step of an elementwise chain per element, each value rounded to T
/// (the separate ops' stored results), only the last stored.
template <typename T> struct ChainKernel {
  using C = typename Compute<T>::type;
  const T *in[kMaxChainInputs];
  T *y;
  Chain chain;
  AMPRT_HD void operator()(int64_t i) const {
    C values[kMaxChainInputs + kMaxChainSteps];
    for (int k = 0; k < chain.inputs; ++k)
      values[k] = load(in[k], i);
    for (int s = 0; s < chain.steps; ++s) {
      T rounded;
      store(&rounded, 0, applyChainStep<C>(chain.step[s], values));
      values[chain.inputs + s] = load(&rounded, 0);
    }
    store(y, i, values[chain.inputs + chain.steps - 1]);
  }
};

/// c = a op b, of a float type (loaded to its compute type) or i32/i64.
/// Without `Broadcast` a, b and c have one shape and element i of each is
/// at i: the index arithmetic of a broadcast (a division per dimension)
/// made a GPU's same-shape add several times slower than its loads.
template <typename T, bool Broadcast = true> struct BinaryKernel {
  using C = typename Compute<T>::type;
  const T *a, *b;
  T *c;
  Index ia, ib; // c's shape with a's / b's broadcast strides
  Binary op;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t oa = Broadcast ? ia.offset(i) : i,
            ob = Broadcast ? ib.offset(i) : i;
    store(c, i, applyBinary<C>(op, load(a, oa), load(b, ob)));
  }
};

/// Compare on floats (loaded to the compute type) or integers (as is);
/// `Broadcast` as BinaryKernel's.
template <typename T, bool Broadcast = true> struct CompareKernel {
  const T *a, *b;
  uint8_t *c;
  Index ia, ib;
  Compare op;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t oa = Broadcast ? ia.offset(i) : i,
            ob = Broadcast ? ib.offset(i) : i;
    c[i] =
        applyCompare<typename Compute<T>::type>(op, load(a, oa), load(b, ob));
  }
};

/// select on raw elements of E bytes (any element type).
template <typename E> struct SelectKernel {
  const uint8_t *cond;
  const E *a, *b;
  E *c;
  Index ic, ia, ib;
  AMPRT_HD void operator()(int64_t i) const {
    c[i] = cond[ic.offset(i)] ? a[ia.offset(i)] : b[ib.offset(i)];
  }
};

template <typename T> struct IsFiniteKernel {
  const T *x;
  uint8_t *y;
  AMPRT_HD void operator()(int64_t i) const { y[i] = m_isfinite(load(x, i)); }
};

template <typename T> struct ActivationGradKernel {
  using C = typename Compute<T>::type;
  const T *dy, *saved;
  T *dx;
  ActivationGrad op;
  C alpha;
  AMPRT_HD void operator()(int64_t i) const {
    store(dx, i,
          applyActivationGrad<C>(op, load(dy, i), load(saved, i), alpha));
  }
};

/// Widen exactly, round once (as the CPU cast).
template <typename T, typename U> struct CastKernel {
  const T *x;
  U *y;
  AMPRT_HD void operator()(int64_t i) const {
    store(y, i, (typename Compute<U>::type)(double)load(x, i));
  }
};

/// y = x * scale, or x * (1 / scale) in f32 (GradScaler's unscale); the
/// scale is read on the device.
template <typename T, typename U> struct ScaleKernel {
  const T *x;
  U *y;
  const float *scale;
  bool unscale;
  AMPRT_HD void operator()(int64_t i) const {
    float factor = unscale ? 1.0f / *scale : *scale;
    store(y, i, (typename Compute<U>::type)(load(x, i) * factor));
  }
};

template <typename E> struct FillKernel {
  E *p;
  E value;
  AMPRT_HD void operator()(int64_t i) const { p[i] = value; }
};

//===--------------------------------------------------------------------===//
// Data movement (strided copies: StridedCopy.h)
//===--------------------------------------------------------------------===//

/// Rows of `table` by index; a row whose index is out of range is zeros
/// (and the fault recorded).
template <typename E, typename I> struct GatherKernel {
  const E *table;
  const I *indices;
  E *y;
  int64_t row;
  IndexFault *fault;
  IndexSite site;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t r = (int64_t)indices[i / row];
    y[i] =
        indexInRange(fault, site, r, i / row) ? table[r * row + i % row] : E(0);
  }
};

/// Scatter-add of dy rows into an accumulator (f32, f64 for f64 data); a
/// row whose index is out of range is dropped (and the fault recorded).
template <typename T, typename I> struct GatherGradKernel {
  using C = typename Compute<T>::type;
  const T *dy;
  const I *indices;
  C *acc;
  int64_t row;
  IndexFault *fault;
  IndexSite site;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t r = (int64_t)indices[i / row];
    if (indexInRange(fault, site, r, i / row))
      accumulate(acc + r * row + i % row, (C)load(dy, i));
  }
};

//===--------------------------------------------------------------------===//
// Reductions: chunks of each output's elements sum into partials, then a
// second kernel folds the partials of each output in chunk order.
//===--------------------------------------------------------------------===//

/// Where a reduction starts: -inf for a maximum, 0 for a sum.
AMPRT_HD inline double foldStart(bool isMax) {
  return isMax ? -__builtin_huge_val() : 0.0;
}
/// One value folded into a running maximum (foldMax: NaN wins) or sum.
AMPRT_HD inline double foldIn(double acc, double v, bool isMax) {
  return isMax ? foldMax(acc, v) : acc + v;
}

/// Sums (or maxes) chunk `i % chunks` of output `i / chunks`: value(o, j,
/// off) gives element j of output o, at offset off in x (`outer` maps o and
/// `inner` j to x).
template <typename Value> struct PartialReduceKernel {
  Value value;
  Index outer, inner;
  int64_t count, chunk, chunks;
  bool isMax;
  double *partial;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t o = i / chunks, k = i % chunks;
    int64_t base = outer.offset(o);
    int64_t begin = k * chunk,
            end = begin + chunk < count ? begin + chunk : count;
    double acc = foldStart(isMax);
    for (int64_t j = begin; j < end; ++j) {
      double v = value(o, j, base + inner.offset(j));
      acc = foldIn(acc, v, isMax);
    }
    partial[i] = acc;
  }
  /// Chunk k of outputs o0 .. o1 - 1 (at most kBlock): the same folds in
  /// the same order, with the loops turned so that each reduced index is
  /// located once per block and, where the outputs sit side by side in x
  /// (a column fold: layer norm's dgamma), its values load as a vector.
  static constexpr int64_t kBlock = 64;
  AMPRT_HD void block(int64_t o0, int64_t o1, int64_t k) const {
    if (isMax)
      foldBlock<true>(o0, o1, k);
    else
      foldBlock<false>(o0, o1, k);
  }
  template <bool IsMax>
  AMPRT_HD void foldBlock(int64_t o0, int64_t o1, int64_t k) const {
    int64_t begin = k * chunk,
            end = begin + chunk < count ? begin + chunk : count;
    double acc[kBlock];
    int64_t n = o1 - o0;
    for (int64_t q = 0; q < n; ++q)
      acc[q] = IsMax ? -__builtin_huge_val() : 0.0;
    auto fold = [&](int64_t q, double v) {
      if constexpr (IsMax)
        acc[q] = foldMax(acc[q], v);
      else
        acc[q] += v;
    };
    if (outer.rank == 1) {
      int64_t stride = outer.stride[0];
      for (int64_t j = begin; j < end; ++j) {
        int64_t off = inner.offset(j) + o0 * stride;
        for (int64_t q = 0; q < n; ++q)
          fold(q, value(o0 + q, j, off + q * stride));
      }
    } else {
      int64_t base[kBlock];
      for (int64_t q = 0; q < n; ++q)
        base[q] = outer.offset(o0 + q);
      for (int64_t j = begin; j < end; ++j) {
        int64_t off = inner.offset(j);
        for (int64_t q = 0; q < n; ++q)
          fold(q, value(o0 + q, j, base[q] + off));
      }
    }
    for (int64_t q = 0; q < n; ++q)
      partial[(o0 + q) * chunks + k] = acc[q];
  }
};

/// Folds each output's partials, partial[o * outStride + k * chunkStride]
/// for k < chunks in order, into finish(o, acc).
template <typename Finish> struct FinishReduceKernel {
  Finish finish;
  const double *partial;
  int64_t chunks;
  bool isMax;
  int64_t outStride, chunkStride;
  AMPRT_HD void operator()(int64_t o) const {
    double acc = foldStart(isMax);
    for (int64_t k = 0; k < chunks; ++k) {
      double v = partial[o * outStride + k * chunkStride];
      acc = foldIn(acc, v, isMax);
    }
    finish(o, acc);
  }
};

/// The levels of a reduction on a GPU (DeviceOps.h, reduceInLevels): each
/// thread adds at most `fold` values, and thread i works on output
/// i % outputs, so neighbouring threads take neighbouring outputs, side by
/// side in memory in a column fold (bias and normalisation gradients).
/// Level one reads x: thread i sums values [k * fold, (k + 1) * fold) of
/// output o (k = i / outputs) into partial[i].
template <typename Value> struct FirstLevelKernel {
  Value value;
  Index outer, inner;
  int64_t count, outputs, fold;
  bool isMax;
  double *partial;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t o = i % outputs, k = i / outputs;
    int64_t base = outer.offset(o);
    int64_t begin = k * fold, end = begin + fold < count ? begin + fold : count;
    double acc = foldStart(isMax);
    for (int64_t j = begin; j < end; ++j) {
      double v = value(o, j, base + inner.offset(j));
      acc = foldIn(acc, v, isMax);
    }
    partial[i] = acc;
  }
};

/// Level one of a row fold, where each output's values are contiguous
/// (inner stride 1: softmax and layer-norm rows): output o's `chunks`
/// threads are neighbours (i = o * chunks + k) and thread k adds values
/// k, k + chunks, k + 2 * chunks, ... in order, so a warp's loads sit side
/// by side in a row where FirstLevelKernel's would each touch a row of
/// their own. The partial goes where FirstLevelKernel puts it
/// (partial[k * outputs + o]), for the same further levels.
template <typename Value> struct RowFirstLevelKernel {
  Value value;
  Index outer;
  int64_t count, outputs, chunks;
  bool isMax;
  double *partial;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t o = i / chunks, k = i % chunks;
    int64_t base = outer.offset(o);
    double acc = foldStart(isMax);
    for (int64_t j = k; j < count; j += chunks) {
      double v = value(o, j, base + j);
      acc = foldIn(acc, v, isMax);
    }
    partial[k * outputs + o] = acc;
  }
};

/// A further level: partials [chunks][outputs] folded `fold` chunks at a
/// time, in order, into [ceil(chunks / fold)][outputs].
struct FoldLevelKernel {
  const double *in;
  double *out;
  int64_t chunks, outputs, fold;
  bool isMax;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t o = i % outputs, k = i / outputs;
    int64_t begin = k * fold,
            end = begin + fold < chunks ? begin + fold : chunks;
    double acc = foldStart(isMax);
    for (int64_t c = begin; c < end; ++c) {
      double v = in[c * outputs + o];
      acc = foldIn(acc, v, isMax);
    }
    out[i] = acc;
  }
};

/// Element values for the reductions.
template <typename T> struct LoadValue {
  const T *x;
  AMPRT_HD double operator()(int64_t, int64_t, int64_t off) const {
    return (double)load(x, off);
  }
};
template <typename T> struct SquareValue {
  const T *x;
  AMPRT_HD double operator()(int64_t, int64_t, int64_t off) const {
    double v = (double)load(x, off);
    return v * v;
  }
};
/// (x - mean[o])^2 for a channel `o`.
template <typename T> struct CenteredSquareValue {
  const T *x;
  const double *mean;
  AMPRT_HD double operator()(int64_t o, int64_t, int64_t off) const {
    double d = (double)load(x, off) - mean[o];
    return d * d;
  }
};
/// dy * xhat with per-channel statistics (batch norm).
template <typename T, typename S> struct DyXhatChannelValue {
  const T *dy, *x;
  const S *mean, *invStd;
  AMPRT_HD double operator()(int64_t c, int64_t, int64_t off) const {
    return (double)load(dy, off) *
           (((double)load(x, off) - (double)mean[c]) * (double)invStd[c]);
  }
};
/// dy * xhat with per-row statistics (layer norm, folding a column over
/// the rows: the reduced index is the row).
template <typename T, typename S> struct DyXhatRowValue {
  const T *dy, *x;
  const S *mean, *invStd;
  AMPRT_HD double operator()(int64_t, int64_t r, int64_t off) const {
    return (double)load(dy, off) *
           (((double)load(x, off) - (double)mean[r]) * (double)invStd[r]);
  }
};

/// Stores acc (or acc / count) rounded to T.
template <typename T> struct StoreFinish {
  T *y;
  double divisor;
  AMPRT_HD void operator()(int64_t o, double acc) const {
    store(y, o, (typename Compute<T>::type)(acc / divisor));
  }
};
/// Keeps acc / divisor in a double buffer.
struct KeepFinish {
  double *out;
  double divisor;
  AMPRT_HD void operator()(int64_t o, double acc) const {
    out[o] = acc / divisor;
  }
};

//===--------------------------------------------------------------------===//
// Bias and normalization
//===--------------------------------------------------------------------===//

template <typename T> struct BiasAddKernel {
  const T *x, *b;
  T *y;
  int64_t axis, inner;
  AMPRT_HD void operator()(int64_t i) const {
    store(y, i, load(x, i) + load(b, (i / inner) % axis));
  }
};

/// inv_std = 1 / sqrt(var + eps); writes the statistics tensors (S) too.
template <typename S> struct BatchNormStatsKernel {
  const double *mean, *var;
  double epsilon;
  double *invStd;
  S *meanOut, *invStdOut;
  AMPRT_HD void operator()(int64_t c) const {
    invStd[c] = 1.0 / sqrt(var[c] + epsilon);
    meanOut[c] = (S)mean[c];
    invStdOut[c] = (S)invStd[c];
  }
};

template <typename T, typename S> struct BatchNormApplyKernel {
  const T *x;
  const S *scale, *offset;
  const double *mean, *invStd;
  T *y;
  int64_t axis, inner;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t c = (i / inner) % axis;
    double v = ((double)load(x, i) - mean[c]) * invStd[c] * (double)scale[c] +
               (double)offset[c];
    store(y, i, (typename Compute<T>::type)v);
  }
};

template <typename T, typename S> struct BatchNormGradKernel {
  const T *dy, *x;
  const S *scale, *mean, *invStd;
  const double *sumDy, *sumDyXhat;
  T *dx;
  int64_t axis, inner;
  double count;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t c = (i / inner) % axis;
    double is = (double)invStd[c];
    double xhat = ((double)load(x, i) - (double)mean[c]) * is;
    double v = (double)scale[c] * is / count *
               (count * (double)load(dy, i) - sumDy[c] - xhat * sumDyXhat[c]);
    store(dx, i, (typename Compute<T>::type)v);
  }
};

/// Copies double sums into statistics tensors of type S.
template <typename S> struct StoreStatsKernel {
  const double *from;
  S *to;
  AMPRT_HD void operator()(int64_t i) const { to[i] = (S)from[i]; }
};

/// The sum of term(0) .. term(n - 1) in double, in kLanes interleaved
/// partial sums (term j goes to lane j % kLanes) added pairwise at the end.
/// Every backend adds in this order, so the rows ops agree bit for bit;
/// a host core adds the lanes as one vector instead of waiting on a serial
/// chain of adds (the layer norms and softmax were a quarter of the
/// transformer's f32 step).
constexpr int kLanes = 8;
template <typename Term, typename Combine>
AMPRT_HD inline double laneFold(int64_t n, double init, Term term,
                                Combine combine) {
  double lane[kLanes];
  for (int q = 0; q < kLanes; ++q)
    lane[q] = init;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int q = 0; q < kLanes; ++q)
      lane[q] = combine(lane[q], term(j + q));
  // A tail of half the lanes or more as one half-width step (scalar tails
  // were most of a softmax over 28 keys).
  int first = 0;
  if (j + kLanes / 2 <= n) {
    for (int q = 0; q < kLanes / 2; ++q)
      lane[q] = combine(lane[q], term(j + q));
    j += kLanes / 2;
    first = kLanes / 2;
  }
  for (int q = first; j < n; ++j, ++q)
    lane[q] = combine(lane[q], term(j));
  return combine(combine(combine(lane[0], lane[1]), combine(lane[2], lane[3])),
                 combine(combine(lane[4], lane[5]), combine(lane[6], lane[7])));
}
template <typename Term> AMPRT_HD inline double laneSum(int64_t n, Term term) {
  return laneFold(n, 0.0, term, [](double a, double b) { return a + b; });
}

#ifndef __CUDA_ARCH__
/// A float type's bits as an integer of its width: all but the sign bit,
/// and an infinity's.
template <typename F> struct FloatKeys;
template <> struct FloatKeys<double> {
  using Bits = int64_t;
  static constexpr Bits kMagnitude = INT64_MAX, kInfinity = 0x7FF0000000000000;
};
template <> struct FloatKeys<float> {
  using Bits = int32_t;
  static constexpr Bits kMagnitude = INT32_MAX, kInfinity = 0x7F800000;
};

/// The maximum of term(0) .. term(n - 1), values of the float type F,
/// through order-preserving integer keys of F's width: a loop the compiler
/// vectorises. The lanes' floating-point maximum compiled to branches on
/// the data, mispredicted on fresh inputs (softmax over rows of 28 took
/// 2.5x as long in a training step as on one repeated input). False, m
/// untouched, for no values or a NaN among them (whose payload depends on
/// the order). A +0 beats a -0 here; no caller's result depends on the
/// sign of a zero maximum (x - m, m + c).
template <typename F, typename Term>
inline bool maxByKeys(int64_t n, Term term, F &m) {
  using Bits = typename FloatKeys<F>::Bits;
  constexpr int kSign = 8 * sizeof(F) - 1;
  constexpr Bits kMagnitude = FloatKeys<F>::kMagnitude;
  Bits best = -kMagnitude - 1, nan = 0;
  for (int64_t j = 0; j < n; ++j) {
    F v = term(j);
    Bits bits;
    memcpy(&bits, &v, sizeof bits);
    Bits key = bits ^ ((bits >> kSign) & kMagnitude);
    best = key > best ? key : best;
    nan |= (Bits)((bits & kMagnitude) > FloatKeys<F>::kInfinity);
  }
  if (n == 0 || nan)
    return false;
  Bits bits = best ^ ((best >> kSign) & kMagnitude);
  memcpy(&m, &bits, sizeof m);
  return true;
}
#endif

/// The maximum, NaN winning as in a serial scan: on the host by integer
/// keys where the row holds no NaN.
template <typename Term> AMPRT_HD inline double laneMax(int64_t n, Term term) {
#ifndef __CUDA_ARCH__
  double m;
  if (maxByKeys<double>(n, term, m))
    return m;
#endif
  return laneFold(n, -__builtin_huge_val(), term,
                  [](double a, double b) { return foldMax(a, b); });
}

#ifndef __CUDA_ARCH__
/// The maximum of a row whose values `term` gives in the compute type C:
/// laneMax's. Rows of floats (a float, f16 or bf16 row) take 32-bit keys,
/// twice the lanes of laneMax's 64-bit ones, the same maximum (a float
/// converts to double exactly); rows holding a NaN go to laneMax for its
/// payload. Causal softmax's rows of 1-128 keys spent a fifth of their
/// time on 64-bit keys.
template <typename C, typename Term>
inline double rowMax(int64_t n, Term term) {
  if constexpr (std::is_same_v<C, float>) {
    float m;
    if (maxByKeys<float>(n, term, m))
      return m;
  }
  return laneMax(n, [&](int64_t j) { return (double)term(j); });
}
#endif

/// The rows of a host launch in groups of kRowGroup, each stage of a row
/// kernel over the group before the next: a row's stages are a chain of
/// dependent lane sums, divisions and a square root (100 cycles for a row
/// of 32 in layer norm) that one row at a time left the cores waiting on;
/// across a group the chains overlap and the per-row divisions and roots
/// run as vector operations. Each row sees the same operations in the same
/// order, so the same bits.
constexpr int kRowGroup = 8;

/// One row of d elements per index, as the CPU's layer norm.
template <typename T, typename S> struct LayerNormKernel {
  const T *x;
  const S *gamma, *beta;
  T *y;
  S *mean, *invStd;
  int64_t d;
  double epsilon;
  AMPRT_HD double sum(int64_t r) const {
    const T *xr = x + r * d;
    return laneSum(d, [&](int64_t j) { return (double)load(xr, j); });
  }
  AMPRT_HD double squares(int64_t r, double mu) const {
    const T *xr = x + r * d;
    return laneSum(d, [&](int64_t j) {
      double v = (double)load(xr, j) - mu;
      return v * v;
    });
  }
  AMPRT_HD double inverseStd(double sq) const {
    return 1.0 / sqrt(sq / d + epsilon);
  }
  AMPRT_HD void write(int64_t r, double mu, double is) const {
    const T *xr = x + r * d;
    T *yr = y + r * d;
    for (int64_t j = 0; j < d; ++j)
      store(yr, j,
            (typename Compute<T>::type)(((double)load(xr, j) - mu) * is *
                                            (double)gamma[j] +
                                        (double)beta[j]));
    mean[r] = (S)mu;
    invStd[r] = (S)is;
  }
  AMPRT_HD void operator()(int64_t r) const {
    double mu = sum(r) / d;
    write(r, mu, inverseStd(squares(r, mu)));
  }
#ifndef __CUDA_ARCH__
  /// Rows [first, last) by groups (kRowGroup).
  void rows(int64_t first, int64_t last) const {
    for (; first < last; first += kRowGroup) {
      int n = (int)(last - first < kRowGroup ? last - first : kRowGroup);
      double mu[kRowGroup] = {}, is[kRowGroup] = {};
      for (int i = 0; i < n; ++i)
        mu[i] = sum(first + i);
      for (int i = 0; i < kRowGroup; ++i)
        mu[i] /= d;
      for (int i = 0; i < n; ++i)
        is[i] = squares(first + i, mu[i]);
      for (int i = 0; i < kRowGroup; ++i)
        is[i] = inverseStd(is[i]);
      for (int i = 0; i < n; ++i)
        write(first + i, mu[i], is[i]);
    }
  }
#endif
};

/// Layer norm on a GPU (DeviceOps.h): each element of y from its row's
/// statistics (reduced in levels), the one-row kernel's formula.
template <typename T, typename S> struct LayerNormApplyKernel {
  const T *x;
  const S *gamma, *beta;
  const double *mu, *is;
  T *y;
  int64_t d;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t r = i / d, j = i % d;
    store(y, i,
          (typename Compute<T>::type)(((double)load(x, i) - mu[r]) * is[r] *
                                          (double)gamma[j] +
                                      (double)beta[j]));
  }
};

/// dy * gamma, and dy * gamma * xhat, at element j of row r (a row fold's
/// values for layer norm's gradient on a GPU).
template <typename T, typename S> struct DyGammaValue {
  const T *dy;
  const S *gamma;
  AMPRT_HD double operator()(int64_t, int64_t j, int64_t off) const {
    return (double)load(dy, off) * (double)gamma[j];
  }
};
template <typename T, typename S> struct DyGammaXhatValue {
  const T *dy, *x;
  const S *gamma, *mean, *invStd;
  AMPRT_HD double operator()(int64_t r, int64_t j, int64_t off) const {
    return (double)load(dy, off) * (double)gamma[j] *
           (((double)load(x, off) - (double)mean[r]) * (double)invStd[r]);
  }
};

/// Layer norm's dx on a GPU: each element from its row's sums of dy * gamma
/// and dy * gamma * xhat, the one-row kernel's formula.
template <typename T, typename S> struct LayerNormGradApplyKernel {
  const T *dy, *x;
  const S *gamma, *mean, *invStd;
  const double *sumG, *sumGXhat;
  T *dx;
  int64_t d;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t r = i / d, j = i % d;
    double is = invStd[r];
    double g = (double)load(dy, i) * (double)gamma[j];
    double xhat = ((double)load(x, i) - (double)mean[r]) * is;
    store(dx, i,
          (typename Compute<T>::type)(is / d *
                                      (d * g - sumG[r] - xhat * sumGXhat[r])));
  }
};

template <typename T, typename S> struct LayerNormGradKernel {
  const T *dy, *x;
  const S *gamma, *mean, *invStd;
  T *dx;
  int64_t d;
  AMPRT_HD double g(const T *dyr, int64_t j) const {
    return (double)load(dyr, j) * (double)gamma[j];
  }
  AMPRT_HD void operator()(int64_t r) const {
    const T *xr = x + r * d, *dyr = dy + r * d;
    double mu = mean[r], is = invStd[r];
    auto xhat = [&](int64_t j) { return ((double)load(xr, j) - mu) * is; };
    double sumG = laneSum(d, [&](int64_t j) { return g(dyr, j); });
    double sumGXhat =
        laneSum(d, [&](int64_t j) { return g(dyr, j) * xhat(j); });
    T *dxr = dx + r * d;
    for (int64_t j = 0; j < d; ++j)
      store(dxr, j,
            (typename Compute<T>::type)(
                is / d * (d * g(dyr, j) - sumG - xhat(j) * sumGXhat)));
  }
#ifndef __CUDA_ARCH__
  /// Rows [first, last); a row of up to kKept computes its terms dy *
  /// gamma and xhat once into arrays (one row at a time read them three
  /// and two times), the same values, in 16 KiB of stack: recomputing
  /// them, the GPT model's 4096x256 gradients took 1.3x (bf16) to 1.4x
  /// (f32) as long (Zen 4, 2 cores).
  static constexpr int64_t kKept = 1024;
  void rows(int64_t first, int64_t last) const {
    if (d > kKept) {
      for (int64_t r = first; r < last; ++r)
        (*this)(r);
      return;
    }
    rowsKept(first, last, [](int64_t, const double *) {});
  }
  /// rows() for d <= kKept, handing each row's xhat to seen(r, xhat)
  /// before its dx is written (the CPU adds layer norm's column sums from
  /// it in the same pass).
  template <typename Seen>
  void rowsKept(int64_t first, int64_t last, Seen &&seen) const {
    double gs[kKept], xhat[kKept];
    for (int64_t r = first; r < last; ++r) {
      const T *xr = x + r * d, *dyr = dy + r * d;
      double mu = mean[r], is = invStd[r];
      for (int64_t j = 0; j < d; ++j) {
        gs[j] = g(dyr, j);
        xhat[j] = ((double)load(xr, j) - mu) * is;
      }
      seen(r, static_cast<const double *>(xhat));
      double sumG = laneSum(d, [&](int64_t j) { return gs[j]; });
      double sumGXhat = laneSum(d, [&](int64_t j) { return gs[j] * xhat[j]; });
      T *dxr = dx + r * d;
      for (int64_t j = 0; j < d; ++j)
        store(dxr, j,
              (typename Compute<T>::type)(
                  is / d * (d * gs[j] - sumG - xhat[j] * sumGXhat)));
    }
  }
#endif
};

//===--------------------------------------------------------------------===//
// Softmax and cross-entropy: one row per index
//===--------------------------------------------------------------------===//

enum class SoftmaxKind { Softmax, LogSoftmax, SoftmaxGrad, LogSoftmaxGrad };

/// f(std::integral_constant<SoftmaxKind, kind>()): a kind known at run time
/// as a template argument.
template <typename F> auto withSoftmaxKind(SoftmaxKind kind, F f) {
  using SK = SoftmaxKind;
  switch (kind) {
  case SK::LogSoftmax:
    return f(std::integral_constant<SK, SK::LogSoftmax>());
  case SK::SoftmaxGrad:
    return f(std::integral_constant<SK, SK::SoftmaxGrad>());
  case SK::LogSoftmaxGrad:
    return f(std::integral_constant<SK, SK::LogSoftmaxGrad>());
  case SK::Softmax:
    break;
  }
  return f(std::integral_constant<SK, SK::Softmax>());
}

/// Whether a softmax kind reads y (b) besides its first operand.
constexpr bool isSoftmaxGrad(SoftmaxKind kind) {
  return kind == SoftmaxKind::SoftmaxGrad ||
         kind == SoftmaxKind::LogSoftmaxGrad;
}

#ifndef __CUDA_ARCH__
/// Rows of a softmax on the host that keep their exponentials for the
/// second pass take them in vectors of kExpVector.
constexpr int64_t kExpVector = 16;

/// kept[0, padded) = the exponentials, in the compute type C, of the n
/// values at `row` (stride `step`) shifted by their maximum m, where
/// padded is n rounded up to kExpVector, zeros' exponentials past the row
/// (kept holds padded values). A loop of its own over whole vectors: fused
/// into the sum's lanes the exponentials did not vectorise, and a row's
/// 12-element tail took as long as its first 16.
template <typename C, typename T>
inline void shiftedExponentials(const T *row, int64_t step, int64_t n, double m,
                                C *kept) {
  int64_t padded = (n + kExpVector - 1) / kExpVector * kExpVector;
  // m is one of the row's values, so exact in C; x - m in C is the double
  // difference rounded to C (double has more than twice a float's
  // precision, so rounding twice cannot differ), in twice the lanes.
  C shift = (C)m;
  for (int64_t j = 0; j < n; ++j)
    kept[j] = (C)load(row, j * step) - shift;
  for (int64_t j = n; j < padded; ++j)
    kept[j] = 0;
  for (int64_t v = 0; v < padded; v += kExpVector)
    for (int64_t q = 0; q < kExpVector; ++q)
      kept[v + q] = m_expNonPositive(kept[v + q]);
}
#endif

/// Softmax of each contiguous row of a [..., queries, keys] tensor under a
/// top-left causal mask: row r is query i = r % queries, which sees keys
/// 0..i; their softmax is SoftmaxKernel's (exponentials of x - max in the
/// compute type, sums in double, the same bits for an unmasked row) and
/// the masked keys get 0. No -inf enters the data, so the mask is the same
/// in f16 and bf16 as in f32, and softmax's gradient needs no mask of its
/// own (y is 0 there).
template <typename T> struct CausalSoftmaxKernel {
  const T *x;
  T *y;
  int64_t keys, queries;
  /// The row of the whole tensor that x's and y's row 0 is (a block of
  /// rows staged on the CPU): row r is query (firstRow + r) % queries.
  int64_t firstRow = 0;
  AMPRT_HD int64_t seenKeys(int64_t r) const {
    int64_t query = (firstRow + r) % queries;
    return query + 1 < keys ? query + 1 : keys;
  }
  AMPRT_HD void operator()(int64_t r) const {
    using C = typename Compute<T>::type;
    int64_t seen = seenKeys(r);
    const T *xr = x + r * keys;
    T *yr = y + r * keys;
    double m = laneMax(seen, [&](int64_t j) { return (double)load(xr, j); });
    auto e = [&](int64_t j) {
      return m_expNonPositive((C)((double)load(xr, j) - m));
    };
    double inv = 1.0 / laneSum(seen, [&](int64_t j) { return (double)e(j); });
    for (int64_t j = 0; j < seen; ++j)
      store(yr, j, (C)((double)e(j) * inv));
    for (int64_t j = seen; j < keys; ++j)
      store(yr, j, (C)0);
  }
#ifndef __CUDA_ARCH__
  /// Rows [first, last). On the host a row that sees up to kKept keys
  /// keeps its exponentials for the second pass instead of computing each
  /// twice (2-2.5x the GPT model's rows of 128 on Zen 4). The same values,
  /// so the same bits.
  static constexpr int64_t kKept = 1024;
  void rows(int64_t first, int64_t last) const {
    using C = typename Compute<T>::type;
    C kept[kKept];
    for (int64_t r = first; r < last; ++r) {
      int64_t seen = seenKeys(r);
      if (seen > kKept) {
        (*this)(r);
        continue;
      }
      const T *xr = x + r * keys;
      T *yr = y + r * keys;
      double m = rowMax<C>(seen, [&](int64_t j) { return load(xr, j); });
      shiftedExponentials(xr, 1, seen, m, kept);
      double inv =
          1.0 / laneSum(seen, [&](int64_t j) { return (double)kept[j]; });
      for (int64_t j = 0; j < seen; ++j)
        store(yr, j, (C)((double)kept[j] * inv));
      for (int64_t j = seen; j < keys; ++j)
        store(yr, j, (C)0);
    }
  }
#endif
};

/// Row r = (outer o, inner i): elements first + j * inner, j < axis.
/// Forward kinds read `a` = x; gradients read `a` = dy and `b` = y. Sums
/// are laneSums in double; the exponentials are in the compute type (for
/// f32 and 16-bit data m_expNonPositive of x - max rounded to f32, within
/// 1 ulp, where double exp was most of the softmax, as PyTorch's f32
/// softmax computes them; exp for f64). The kind and whether rows are
/// contiguous are template parameters, so that each instance is one
/// straight row of passes with a known stride (5-10% of the time of the
/// kernel that branched on both per row).
template <typename T, SoftmaxKind K, bool Contiguous> struct SoftmaxKernel {
  const T *a, *b;
  T *out;
  Split s;
  AMPRT_HD void operator()(int64_t r) const {
    using C = typename Compute<T>::type;
    const int64_t step = Contiguous ? 1 : s.inner;
    int64_t first =
        Contiguous ? r * s.axis : r / s.inner * s.axis * s.inner + r % s.inner;
    const T *ar = a + first, *br = b ? b + first : nullptr;
    T *outr = out + first;
    if constexpr (K == SoftmaxKind::SoftmaxGrad ||
                  K == SoftmaxKind::LogSoftmaxGrad) {
      double acc = K == SoftmaxKind::SoftmaxGrad
                       ? laneSum(s.axis,
                                 [&](int64_t j) {
                                   return (double)load(ar, j * step) *
                                          (double)load(br, j * step);
                                 })
                       : laneSum(s.axis, [&](int64_t j) {
                           return (double)load(ar, j * step);
                         });
      for (int64_t j = 0; j < s.axis; ++j) {
        double dy = load(ar, j * step), y = load(br, j * step);
        store(outr, j * step,
              (C)(K == SoftmaxKind::SoftmaxGrad ? y * (dy - acc)
                                                : dy - exp(y) * acc));
      }
      return;
    }
    double m =
        laneMax(s.axis, [&](int64_t j) { return (double)load(ar, j * step); });
    auto shifted = [&](int64_t j) {
      return (C)((double)load(ar, j * step) - m);
    };
    auto e = [&](int64_t j) { return m_expNonPositive(shifted(j)); };
    if constexpr (K == SoftmaxKind::LogSoftmax) {
      double sum = laneSum(s.axis, [&](int64_t j) { return (double)e(j); });
      double lse = m + log(sum);
      for (int64_t j = 0; j < s.axis; ++j)
        store(outr, j * step, (C)((double)load(ar, j * step) - lse));
      return;
    }
    // One division per row: a double division per element was a third
    // of the forward.
    auto normalise = [&](auto value) {
      double inv =
          1.0 / laneSum(s.axis, [&](int64_t j) { return (double)value(j); });
      for (int64_t j = 0; j < s.axis; ++j)
        store(outr, j * step, (C)((double)value(j) * inv));
    };
#ifndef __CUDA_ARCH__
    if (s.axis <= kKept) {
      C kept[kKept];
      exponentials(ar, step, m, kept);
      normalise([&](int64_t j) { return kept[j]; });
      return;
    }
#endif
    normalise(e);
  }
#ifndef __CUDA_ARCH__
  // On the host a short row keeps its exponentials for the second pass
  // instead of computing each twice (device threads recompute: a
  // per-thread array would sit in local memory), shiftedExponentials'
  // vectors. The same values.
  static constexpr int64_t kKept = 64;
  using C = typename Compute<T>::type;
  void exponentials(const T *ar, int64_t step, double m, C *kept) const {
    shiftedExponentials(ar, step, s.axis, m, kept);
  }
  /// Rows [first, last). A contiguous softmax of short rows goes by groups
  /// of kRowGroup rows, each stage over the group before the next (as
  /// layer norm's rows()): a row's maximum, exponentials, sum, division and
  /// scaling are a chain of dependent steps the cores waited on one row at
  /// a time. Each row sees the same operations: the same bits.
  void rows(int64_t first, int64_t last) const {
    if constexpr (K == SoftmaxKind::Softmax && Contiguous) {
      if (s.axis <= kKept) {
        for (; first < last; first += kRowGroup) {
          int n = (int)(last - first < kRowGroup ? last - first : kRowGroup);
          double m[kRowGroup] = {}, inv[kRowGroup] = {};
          C kept[kRowGroup][kKept];
          for (int i = 0; i < n; ++i) {
            const T *ar = a + (first + i) * s.axis;
            m[i] = rowMax<C>(s.axis, [&](int64_t j) { return load(ar, j); });
          }
          for (int i = 0; i < n; ++i)
            exponentials(a + (first + i) * s.axis, 1, m[i], kept[i]);
          for (int i = 0; i < n; ++i)
            inv[i] =
                laneSum(s.axis, [&](int64_t j) { return (double)kept[i][j]; });
          for (int i = 0; i < kRowGroup; ++i)
            inv[i] = 1.0 / inv[i];
          for (int i = 0; i < n; ++i) {
            T *outr = out + (first + i) * s.axis;
            for (int64_t j = 0; j < s.axis; ++j)
              store(outr, j, (C)((double)kept[i][j] * inv[i]));
          }
        }
        return;
      }
    }
    for (int64_t r = first; r < last; ++r)
      (*this)(r);
  }
#endif
};

/// Labels are class indices (I = int32_t / int64_t, checked in range on
/// the host) or, with I = void, a distribution of T.
template <typename T, typename I> struct CrossEntropyKernel {
  const T *logits;
  const void *labels;
  const T *dloss; // null for the forward
  T *out;         // loss [N] or dlogits [N, C]
  int64_t classes;
  IndexFault *fault; // index labels: where a label out of range is recorded
  IndexSite site;
  /// A label out of range makes its example's loss (or gradient row) NaN,
  /// besides recording the fault.
  AMPRT_HD bool labelInRange(int64_t n) const {
    if constexpr (sizeof(I) > 1) {
      if (indexInRange(fault, site, (int64_t) static_cast<const I *>(labels)[n],
                       n))
        return true;
      using C = typename Compute<T>::type;
      C nan = (C)__builtin_nan("");
      for (int64_t j = 0, width = dloss ? classes : 1; j < width; ++j)
        store(out, n * width + j, nan);
      return false;
    } else {
      return true;
    }
  }
  AMPRT_HD double target(int64_t n, int64_t j) const {
    if constexpr (sizeof(I) > 1)
      return (int64_t) static_cast<const I *>(labels)[n] == j ? 1.0 : 0.0;
    else
      return (double)load(static_cast<const T *>(labels), n * classes + j);
  }
  AMPRT_HD void operator()(int64_t n) const {
    using C = typename Compute<T>::type;
    if (!labelInRange(n))
      return;
    const T *row = logits + n * classes;
    double m = laneMax(classes, [&](int64_t j) { return (double)load(row, j); });
    // As the softmax's: exponentials of x - max in the compute type, their
    // sum in double (double exp was most of the kernel's time).
    auto e = [&](int64_t j) {
      return m_expNonPositive((C)((double)load(row, j) - m));
    };
    double sum = laneSum(classes, [&](int64_t j) { return (double)e(j); });
    double lse = m + log(sum);
    if (!dloss) {
      double l = 0;
      for (int64_t j = 0; j < classes; ++j) {
        double p = target(n, j);
        if (p != 0)
          l -= p * ((double)load(row, j) - lse);
      }
      store(out, n, (C)l);
      return;
    }
    double g = load(dloss, n), mass = 0;
    for (int64_t j = 0; j < classes; ++j)
      mass += target(n, j);
    double inv = 1.0 / sum;
    for (int64_t j = 0; j < classes; ++j) {
      double p = (double)e(j) * inv;
      store(out, n * classes + j, (C)(g * (p * mass - target(n, j))));
    }
  }
};

//===--------------------------------------------------------------------===//
// Pooling
//===--------------------------------------------------------------------===//

/// One output element per index (output memory order).
template <typename T> struct PoolKernel {
  const T *x;
  T *y;
  Pool p;
  bool isMax;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t ox, oy, c, n;
    p.coordinates(i, p.oh, p.ow, n, oy, ox, c);
    int64_t y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
    double acc = foldStart(isMax);
    for (int64_t ky = 0; ky < p.kh; ++ky)
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        int64_t iy = y0 + ky, ix = x0 + kx;
        if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
          continue; // ignored by max, zeros for avg
        acc = foldIn(acc, load(x, p.at(n, iy, ix, c, p.h, p.w)), isMax);
      }
    store(y, i,
          (typename Compute<T>::type)(isMax ? acc : acc / double(p.kh * p.kw)));
  }
};

/// One input element per index: sums the gradient of every window that
/// covers it (avg), or of every window whose first maximum it is (max),
/// so no two threads write one element.
template <typename T> struct PoolGradKernel {
  const T *dy, *x, *y; // x, y only for max
  T *dx;
  Pool p;
  bool isMax;
  AMPRT_HD void operator()(int64_t i) const {
    int64_t ix, iy, c, n;
    p.coordinates(i, p.h, p.w, n, iy, ix, c);
    // Windows oy with oy * sh - pt <= iy < oy * sh - pt + kh.
    int64_t yl = iy + p.pt - p.kh + 1, xl = ix + p.pl - p.kw + 1;
    int64_t oyBegin = yl <= 0 ? 0 : (yl + p.sh - 1) / p.sh;
    int64_t oxBegin = xl <= 0 ? 0 : (xl + p.sw - 1) / p.sw;
    int64_t oyEnd = (iy + p.pt) / p.sh + 1, oxEnd = (ix + p.pl) / p.sw + 1;
    oyEnd = oyEnd < p.oh ? oyEnd : p.oh;
    oxEnd = oxEnd < p.ow ? oxEnd : p.ow;
    using C = typename Compute<T>::type;
    C mine = isMax ? load(x, i) : C(0);
    double acc = 0;
    for (int64_t oy = oyBegin; oy < oyEnd; ++oy)
      for (int64_t ox = oxBegin; ox < oxEnd; ++ox) {
        int64_t out = p.at(n, oy, ox, c, p.oh, p.ow);
        if (!isMax) {
          acc += (double)load(dy, out) / double(p.kh * p.kw);
          continue;
        }
        C target = load(y, out);
        if (!(mine == target || (target != target && mine != mine)))
          continue;
        // Only the window's first maximum (in ky, kx order) takes it.
        bool first = true;
        int64_t y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
        for (int64_t ky = 0; ky < p.kh && first; ++ky)
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            int64_t yy = y0 + ky, xx = x0 + kx;
            if (yy == iy && xx == ix) {
              ky = p.kh; // reached this element: it is the first
              break;
            }
            if (yy < 0 || yy >= p.h || xx < 0 || xx >= p.w)
              continue;
            C v = load(x, p.at(n, yy, xx, c, p.h, p.w));
            if (v == target || (target != target && v != v)) {
              first = false;
              break;
            }
          }
        if (first)
          acc += (double)load(dy, out);
      }
    store(dx, i, (C)acc);
  }
};

//===--------------------------------------------------------------------===//
// Optimizer and loss scaling (state in f32, or f64 for reference runs)
//===--------------------------------------------------------------------===//

template <typename T> struct SgdKernel {
  const T *param, *grad;
  const float *lr;
  T *newParam;
  AMPRT_HD void operator()(int64_t i) const {
    double p = param[i];
    sgdStep(p, (double)grad[i], (double)*lr);
    newParam[i] = (T)p;
  }
};

template <typename T> struct MomentumKernel {
  const T *param, *grad, *velocity;
  const float *lr;
  double momentum, weightDecay;
  bool nesterov;
  T *newParam, *newVelocity;
  AMPRT_HD void operator()(int64_t i) const {
    double p = param[i], v = velocity[i];
    momentumStep(p, v, (double)grad[i], (double)*lr, momentum, weightDecay,
                 nesterov);
    newParam[i] = (T)p;
    newVelocity[i] = (T)v;
  }
};

/// Adam's bias corrections 1 - beta^step, once per update. The step is
/// read where it lives (nothing is read back from a device); a step below
/// 1 counts as 1.
struct AdamCorrectionKernel {
  const int64_t *step;
  double beta1, beta2;
  double *corrections; // [2]
  AMPRT_HD void operator()(int64_t) const {
    double t = *step < 1 ? 1.0 : (double)*step;
    corrections[0] = 1 - pow(beta1, t);
    corrections[1] = 1 - pow(beta2, t);
  }
};

template <typename T> struct AdamKernel {
  const T *param, *grad, *m, *v;
  const double *corrections;
  const float *lr;
  double beta1, beta2, epsilon, weightDecay;
  T *newParam, *newM, *newV;
  AMPRT_HD void operator()(int64_t i) const {
    // The scalars per element: a few double operations a thread, where
    // the host forms them once (cpu/OptimizerOps.cpp).
    AdamScalars<T> s =
        adamScalars<T>((double)*lr, beta1, beta2, epsilon, weightDecay,
                       corrections[0], corrections[1]);
    T p = param[i], mi = m[i], vi = v[i];
    adamStep(p, mi, vi, grad[i], s);
    newParam[i] = p;
    newM[i] = mi;
    newV[i] = vi;
  }
};

/// `*flag` becomes 0 when an element is not finite (every writer writes 0,
/// so the race is benign). With `out`, also stores the f32 unscaled value.
template <typename T, typename U> struct FiniteCheckKernel {
  const T *g;
  U *out; // null: check only
  const float *scale;
  uint8_t *flag;
  AMPRT_HD void operator()(int64_t i) const {
    double u = load(g, i);
    if (out) {
      u = (double)(float)(u * (1.0f / *scale));
      store(out, i, (typename Compute<U>::type)u);
    }
    if (!m_isfinite(u))
      *flag = 0;
  }
};

/// factor = min(1, max_norm / (sqrt(sum of the squares) + 1e-6)).
struct ClipFactorKernel {
  const double *squares;
  int count;
  double maxNorm;
  double *factor;
  AMPRT_HD void operator()(int64_t) const {
    double sq = 0;
    for (int k = 0; k < count; ++k)
      sq += squares[k];
    double f = maxNorm / (sqrt(sq) + 1e-6);
    *factor = f > 1 ? 1 : f;
  }
};

template <typename T> struct ClipKernel {
  const T *g;
  T *out;
  const double *factor;
  AMPRT_HD void operator()(int64_t i) const {
    store(out, i, (typename Compute<T>::type)((double)load(g, i) * *factor));
  }
};

struct UpdateScaleKernel {
  const float *scale;
  const int64_t *goodSteps;
  const uint8_t *finite;
  double growth, backoff;
  int64_t interval;
  double minScale, maxScale;
  float *newScale;
  int64_t *newGoodSteps;
  AMPRT_HD void operator()(int64_t) const {
    float s = *scale;
    int64_t n = *goodSteps;
    updateScale(s, n, *finite != 0, growth, backoff, interval, minScale,
                maxScale);
    *newScale = s;
    *newGoodSteps = n;
  }
};

//===--------------------------------------------------------------------===//
// FP8 (the CPU backend runs these too, on CpuExec)
//===--------------------------------------------------------------------===//

/// q = fp8(x * scale): the f32 product rounds once, to FP8, saturating.
template <typename T, typename Q> struct QuantizeKernel {
  const T *x;
  Q *q;
  const float *scale;
  AMPRT_HD void operator()(int64_t i) const {
    store(q, i, (float)load(x, i) * *scale);
  }
};

/// y = q * (1 / scale) in f32, rounded to y's type (exact for the
/// power-of-two scales amp.fp8_scale makes).
template <typename Q, typename U> struct DequantizeKernel {
  const Q *q;
  U *y;
  const float *scale;
  AMPRT_HD void operator()(int64_t i) const {
    store(y, i, (typename Compute<U>::type)(load(q, i) * (1.0f / *scale)));
  }
};

template <typename T> struct AbsValue {
  const T *x;
  AMPRT_HD double operator()(int64_t, int64_t, int64_t off) const {
    double v = (double)load(x, off);
    return v < 0 ? -v : v;
  }
};
/// amax: 0 for an empty tensor (the fold's -inf start), NaN kept.
struct AmaxFinish {
  float *y;
  AMPRT_HD void operator()(int64_t o, double acc) const {
    y[o] = acc < 0.0 ? 0.0f : (float)acc;
  }
};

/// One thread: the scale of a (short) amax history.
struct Fp8ScaleKernel {
  const float *history;
  int64_t length;
  float fp8Max;
  int margin;
  float *scale;
  AMPRT_HD void operator()(int64_t) const {
    *scale = fp8ScaleFor(historyMax(history, length), fp8Max, margin);
  }
};

struct RecordAmaxKernel {
  const float *history, *amax;
  float *newHistory;
  AMPRT_HD void operator()(int64_t i) const {
    newHistory[i] = recordedAmax(history, *amax, i);
  }
};

} // namespace amprt::device

#endif // AMPRT_DEVICE_KERNELS_H
