//===- NNOps.cpp - Bias, pooling, normalization, softmax and loss on the CPU //
//
// The CPU backend's entries (arguments checked by the C API). Statistics,
// reductions over rows and the loss accumulate in double (f32 data) so
// low-precision storage never costs accuracy inside an op. Softmax,
// cross-entropy and layer norm run the device backends' op code on the
// cores (CpuExec); bias, pooling and batch norm keep loops of their own
// because they are faster here (bench/CpuOpCodeBench.cpp: the shared code
// takes 1.4-7x as long; docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "Blocks.h"
#include "Common.h"
#include "CpuExec.h"
#include "CpuOps.h"
#include "Gemm.h"
#include "MaxPoolLanes.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

using namespace amprt;
using namespace amprt::cpu;

namespace {

/// Kernels that read each element several times (pooling windows, the
/// passes of batch norm) read f16 data through the vector conversions (F16C),
/// not a scalar conversion per read: from a whole f32 copy, or a block of
/// rows at a time (CNN f16 step 8.9 -> 4.2 ms with the select copy,
/// transformer f16 2.2 -> 1.8 ms). Not bf16: its load is a shift, and the
/// copy made the bf16 CNN step slower (4.24 -> 4.57 ms, medians of 7
/// alternated runs). Layer norm and softmax rows of both types go through
/// stagedRows.
template <typename T> constexpr bool kWidenOnce = std::is_same_v<T, half_t>;

bool isSixteenBit(const Tensor *t) {
  return t->dtype == AMPRT_F16 || t->dtype == AMPRT_BF16;
}

/// Calls f(data) with a 16-bit tensor's typed data pointer.
template <typename F> void withSixteenBitData(const Tensor *t, F f) {
  if (t->dtype == AMPRT_F16)
    f(static_cast<const half_t *>(t->data));
  else
    f(static_cast<const bf16_t *>(t->data));
}

template <typename T> T *mutableData(Tensor *t) {
  return static_cast<T *>(t->data);
}

/// Rows (of softmax, cross-entropy, layer norm) worth a thread.
constexpr int64_t kRowGrain = 16;

/// channelSums<true> whose f(c, v..., acc) takes each input's element value
/// (as double): f16 inputs are widened a block of rows at a time
/// (channelSumsWidened), other types read in place. The same sums in the
/// same order either way.
template <typename F, typename T, typename... More>
std::vector<double> channelValueSums(const Split &s, int64_t width, F f,
                                     const T *data, const More *...more) {
  if constexpr (kWidenOnce<T>)
    return channelSumsWidened<true>(s, width, f, data, more...);
  else
    return channelSums<true>(s, width, [&](int64_t c, int64_t k, double *acc) {
      f(c, load(data, k), load(more, k)..., acc);
    });
}

/// Visits every window: fn(outIndex, n, c, y0, x0), in the output's memory
/// order (channel innermost for NHWC, so reads stay in cache lines), one
/// image per thread: windows of different images never overlap, so the
/// gradients may accumulate without locks.
template <typename Fn> void forEachWindow(const Pool &p, Fn fn) {
  parallelFor(p.n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      auto visit = [&](int64_t c, int64_t oy, int64_t ox) {
        fn(p.at(n, oy, ox, c, p.oh, p.ow), n, c, oy * p.sh - p.pt,
           ox * p.sw - p.pl);
      };
      if (p.nchw) {
        for (int64_t c = 0; c < p.c; ++c)
          for (int64_t oy = 0; oy < p.oh; ++oy)
            for (int64_t ox = 0; ox < p.ow; ++ox)
              visit(c, oy, ox);
      } else {
        for (int64_t oy = 0; oy < p.oh; ++oy)
          for (int64_t ox = 0; ox < p.ow; ++ox)
            for (int64_t c = 0; c < p.c; ++c)
              visit(c, oy, ox);
      }
    }
  });
}

/// dx = acc, rounded to dx's type.
void storeAll(amprt_tensor *dx, const std::vector<double> &acc) {
  AMPRT_FLOAT_DISPATCH(dx->dtype, T, {
    T *out = static_cast<T *>(dx->data);
    parallelFor(dx->numel, 1 << 14, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        store(out, i, (typename Compute<T>::type)acc[i]);
    });
  });
}

/// The offsets in an NHWC image of the window of output (oy, ox), clipped
/// to the image, in (ky, kx) order; returns how many there are.
int64_t windowOffsets(const Pool &p, int64_t oy, int64_t ox, int64_t *offsets) {
  int64_t count = 0, y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
  for (int64_t iy = std::max<int64_t>(y0, 0), ey = std::min(y0 + p.kh, p.h);
       iy < ey; ++iy)
    for (int64_t ix = std::max<int64_t>(x0, 0), ex = std::min(x0 + p.kw, p.w);
         ix < ex; ++ix)
      offsets[count++] = (iy * p.w + ix) * p.c;
  return count;
}

/// Whether the windows tile the image: each input in exactly one window
/// (a 2x2 pool of stride 2 over even sizes).
bool tilesImage(const Pool &p) {
  return p.sh == p.kh && p.sw == p.kw && p.pt == 0 && p.pl == 0 &&
         p.oh * p.kh == p.h && p.ow * p.kw == p.w;
}

/// NHWC max pooling on the lanes of MaxPoolLanes.h (E: float, bf16_t, or
/// uint16_t for f16 bits), one output row per task, each window's positions
/// in the order of the general code below.
template <typename E>
void maxPoolRowsLanes(const Pool &p, const void *xs, void *ys) {
  auto *x = static_cast<const E *>(xs);
  auto *y = static_cast<E *>(ys);
  parallelFor(p.n * p.oh, 1, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> offsets(p.kh * p.kw);
    for (int64_t row = begin; row < end; ++row) {
      int64_t n = row / p.oh, oy = row % p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox)
        maxPoolWindowLanes(x + n * p.h * p.w * p.c, offsets.data(),
                           windowOffsets(p, oy, ox, offsets.data()), p.c,
                           y + (row * p.ow + ox) * p.c);
    }
  });
}

/// The NHWC max-pool gradient of windows that tile the image, on the lanes
/// of MaxPoolLanes.h: every input is written once, by its window.
template <typename E>
void maxPoolGradTiledLanes(const Pool &p, const void *xs, const void *ys,
                           const void *dys, void *dxs) {
  auto *x = static_cast<const E *>(xs);
  auto *y = static_cast<const E *>(ys);
  auto *dy = static_cast<const E *>(dys);
  auto *dx = static_cast<E *>(dxs);
  parallelFor(p.n * p.oh, 1, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> offsets(p.kh * p.kw);
    for (int64_t row = begin; row < end; ++row) {
      int64_t n = row / p.oh, oy = row % p.oh, image = n * p.h * p.w * p.c;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        int64_t out = (row * p.ow + ox) * p.c;
        maxPoolGradTiledWindowLanes(x + image, offsets.data(),
                                    windowOffsets(p, oy, ox, offsets.data()),
                                    p.c, y + out, dy + out, dx + image);
      }
    }
  });
}

/// The lane element of T's data: f32, f16 (as its bits) and bf16 run on
/// MaxPoolLanes.h.
template <typename T>
using PoolLaneElement = std::conditional_t<
    std::is_same_v<T, float> || std::is_same_v<T, bf16_t>, T,
    std::conditional_t<std::is_same_v<T, half_t>, uint16_t, void>>;

/// NHWC pooling, one output row per task: each window position adds a
/// whole channel vector at once (contiguous, vectorisable), with the bounds
/// checked per position rather than per element. Max accumulates in the
/// compute type (exact); avg in double like the general path.
template <typename T, bool IsMax>
void poolRowsNHWC(const Pool &p, const T *xs, T *ys) {
  using C = typename Compute<T>::type;
  using Acc = std::conditional_t<IsMax, C, double>;
  parallelFor(p.n * p.oh, 1, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(p.c);
    std::vector<int64_t> offsets(p.kh * p.kw);
    for (int64_t row = begin; row < end; ++row) {
      int64_t n = row / p.oh, oy = row % p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        std::fill(acc.begin(), acc.end(),
                  IsMax ? -std::numeric_limits<Acc>::infinity() : Acc(0));
        int64_t count = windowOffsets(p, oy, ox, offsets.data());
        for (int64_t k = 0; k < count; ++k) {
          const T *in = xs + n * p.h * p.w * p.c + offsets[k];
          for (int64_t c = 0; c < p.c; ++c) {
            Acc v = (Acc)load(in, c);
            if constexpr (IsMax)
              acc[c] = foldMax(acc[c], v);
            else
              acc[c] += v;
          }
        }
        T *out = ys + ((n * p.oh + oy) * p.ow + ox) * p.c;
        for (int64_t c = 0; c < p.c; ++c)
          store(out, c, IsMax ? (C)acc[c] : (C)(acc[c] / double(p.kh * p.kw)));
      }
    }
  });
}

/// The max-pool gradient of one NHWC image in C (f32 or f64), into dx:
/// per window, a branch-free pass over its positions finds each channel's
/// first maximum (a vector of positions, so the channel loop vectorises).
/// Windows that tile the image (a 2x2 pool of stride 2) cover every input
/// once, so each writes its positions outright, 0 + dy at the first maximum
/// and 0 elsewhere (the values the sums give); otherwise dx must start
/// zeroed and one scalar add per channel routes the gradient. Not inlined:
/// gcc vectorised the inlined copy in the bf16 caller's context less well
/// (scalar compares, 3x slower than the f32 and f16 ones).
template <typename C>
__attribute__((noinline)) void
maxPoolGradImage(const Pool &p, bool tiled, const C *xn, const C *yn,
                 const C *dyn, C *dx, C *target, int32_t *first,
                 int64_t *offsets) {
  for (int64_t oy = 0; oy < p.oh; ++oy)
    for (int64_t ox = 0; ox < p.ow; ++ox) {
      int64_t out = (oy * p.ow + ox) * p.c;
      for (int64_t c = 0; c < p.c; ++c) {
        target[c] = yn[out + c];
        first[c] = -1;
      }
      int32_t count = (int32_t)windowOffsets(p, oy, ox, offsets);
      for (int32_t k = 0; k < count; ++k) {
        const C *in = xn + offsets[k];
        for (int64_t c = 0; c < p.c; ++c) {
          C v = in[c], t = target[c];
          bool equal = (v == t) | ((t != t) & (v != v));
          first[c] = ((first[c] < 0) & equal) ? k : first[c];
        }
      }
      if (tiled) {
        for (int32_t k = 0; k < count; ++k)
          for (int64_t c = 0; c < p.c; ++c) {
            C g = dyn[out + c]; // read unconditionally: a select
            dx[offsets[k] + c] = C(0) + (first[c] == k ? g : C(0));
          }
        continue;
      }
      for (int64_t c = 0; c < p.c; ++c)
        if (first[c] >= 0)
          dx[offsets[first[c]] + c] += dyn[out + c];
    }
}

/// NHWC max-pool gradient, one image per task (windows of one image may
/// overlap), in the compute type. 16-bit images are widened once per image
/// with the vector conversions (each input is compared once per window it
/// is in) and go through the f32 code: the same values.
template <typename T>
void maxPoolGradNHWC(const Pool &p, const T *xs, const T *ys, const T *dys,
                     T *dxs) {
  using C = typename Compute<T>::type;
  int64_t image = p.h * p.w * p.c, outImage = p.oh * p.ow * p.c;
  bool tiled = tilesImage(p);
  parallelFor(p.n, 1, [&](int64_t begin, int64_t end) {
    // f32 and f64 gradients of tiled images go straight to dx.
    std::vector<C> acc(kIs16Bit<T> || !tiled ? image : 0), target(p.c);
    std::vector<int32_t> first(p.c);
    std::vector<int64_t> offsets(p.kh * p.kw);
    std::vector<float> wide(kIs16Bit<T> ? image + 2 * outImage : 0);
    for (int64_t n = begin; n < end; ++n) {
      const T *xn = xs + n * image, *yn = ys + n * outImage,
              *dyn = dys + n * outImage;
      T *dxn = dxs + n * image;
      if (!tiled)
        std::fill(acc.begin(), acc.end(), C(0));
      if constexpr (kIs16Bit<T>) {
        float *wx = wide.data(), *wy = wx + image, *wdy = wy + outImage;
        convert(xn, wx, image);
        convert(yn, wy, outImage);
        convert(dyn, wdy, outImage);
        maxPoolGradImage<float>(p, tiled, wx, wy, wdy, acc.data(),
                                target.data(), first.data(), offsets.data());
        convert(acc.data(), dxn, image);
      } else if (tiled) {
        maxPoolGradImage<C>(p, tiled, xn, yn, dyn, dxn, target.data(),
                            first.data(), offsets.data());
      } else {
        maxPoolGradImage<C>(p, tiled, xn, yn, dyn, acc.data(), target.data(),
                            first.data(), offsets.data());
        std::copy(acc.begin(), acc.end(), dxn);
      }
    }
  });
}

} // namespace

namespace amprt::cpu {

amprt_status pool(Ctx *ctx, bool isMax, const Tensor *x, const Pool &p,
                  Tensor *y) {
  if (!p.nchw) {
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      auto run = [&](auto *xs, auto *ys) {
        using U = std::remove_const_t<std::remove_pointer_t<decltype(xs)>>;
        if (isMax)
          poolRowsNHWC<U, true>(p, xs, ys);
        else
          poolRowsNHWC<U, false>(p, xs, ys);
      };
      const T *xs = static_cast<const T *>(x->data);
      T *ys = static_cast<T *>(y->data);
      // Each input is read by several windows: widen f16 data once (see
      // kWidenOnce).
      // Max is exact either way; avg rounds double -> f32 -> 16 bits as the
      // per-element store does.
      using E = PoolLaneElement<T>;
      if constexpr (!std::is_void_v<E>)
        if (isMax && hasPoolLanes()) {
          maxPoolRowsLanes<E>(p, xs, ys);
          return ok();
        }
      if constexpr (kWidenOnce<T>) {
        Scratch<float> wide = widenAll(xs, x->numel), out(y->numel);
        run(static_cast<const float *>(wide.data()), out.data());
        narrowAll(out, ys);
      } else {
        run(xs, ys);
      }
    });
    return ok();
  }
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    T *ys = static_cast<T *>(y->data);
    forEachWindow(p, [&](int64_t out, int64_t n, int64_t c, int64_t y0,
                         int64_t x0) {
      double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t ky = 0; ky < p.kh; ++ky)
        for (int64_t kx = 0; kx < p.kw; ++kx) {
          int64_t iy = y0 + ky, ix = x0 + kx;
          // Padding is ignored by max and counts as zeros for avg.
          if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
            continue;
          double v = load(xs, p.at(n, iy, ix, c, p.h, p.w));
          if (isMax)
            acc = foldMax(acc, v);
          else
            acc += v;
        }
      store(
          ys, out,
          (typename Compute<T>::type)(isMax ? acc : acc / double(p.kh * p.kw)));
    });
  });
  return ok();
}

namespace {

/// y[r, c] = x[r, c] + bias[c] over f32 rows of `width` channels (x may be
/// y), on the bias tiled over whole rows: the loop per row of 16 channels
/// ran at a third of memory speed, which made the bias pass after oneDNN's
/// convolutions cost 7% of the f32 CNN step. The same f32 additions.
void addRowBiasF32(const float *x, const float *bias, int64_t rows,
                   int64_t width, float *y) {
  TiledBias<float> tiled(bias, width);
  int64_t grain =
      std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, width));
  parallelForWide(rows, grain, [&](int64_t begin, int64_t end) {
    tiled.sum(x + begin * width, y + begin * width, (end - begin) * width);
  });
}

} // namespace

amprt_status biasAdd(Ctx *ctx, const Tensor *x, const Tensor *b, const Split &s,
                     Tensor *y) {
  if (x->dtype == AMPRT_F32 && s.inner == 1) {
    addRowBiasF32(static_cast<const float *>(x->data),
                  static_cast<const float *>(b->data), s.outer, s.axis,
                  static_cast<float *>(y->data));
    return ok();
  }
  // Typed rows of `inner` elements sharing one bias: no per-element type
  // dispatch or division (this loop was 13% of the CNN step).
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using C = typename Compute<T>::type;
    const T *xs = static_cast<const T *>(x->data);
    const T *bs = static_cast<const T *>(b->data);
    T *ys = static_cast<T *>(y->data);
    if (s.inner == 1) { // channels last: each row meets the whole bias
      mapRows(
          s.outer, s.axis, ys, [](C v, C bias) { return v + bias; }, xs, bs);
      return ok();
    }
    int64_t grain = std::max<int64_t>(1, (1 << 14) / (s.axis * s.inner));
    parallelFor(s.outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o)
        for (int64_t c = 0; c < s.axis; ++c) {
          C bias = load(bs, c);
          int64_t row = (o * s.axis + c) * s.inner;
          mapSpan(
              row, row + s.inner, ys, [&](C v) { return v + bias; }, xs);
        }
    });
  });
  return ok();
}

amprt_status biasAddGrad(Ctx *ctx, const Tensor *dy, const Split &s,
                         Tensor *db) {
  // Typed passes in memory order (a channel-by-channel walk re-reads the
  // whole tensor per channel), in double. 16-bit rows of either type are
  // widened a block at a time (channelSumsWidened, the same sums): bf16
  // read in place, a load per element, took 1.4x as long (the GPT model's
  // 4096x1024 gradients 0.27 -> 0.19 ms, Zen 5).
  std::vector<double> sums;
  auto add = [](int64_t c, double v, double *acc) { acc[c] += v; };
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    const T *data = static_cast<const T *>(dy->data);
    if constexpr (kIs16Bit<T>)
      sums = channelSumsWidened<true>(s, 1, add, data);
    else
      sums = channelValueSums(s, 1, add, data);
  });
  for (int64_t c = 0; c < s.axis; ++c)
    set(db, c, sums[c]);
  return ok();
}

amprt_status poolGrad(Ctx *ctx, bool isMax, const Tensor *dy, const Tensor *x,
                      const Tensor *y, const Pool &p, Tensor *dx) {
  if (!isMax) {
    std::vector<double> acc(dx->numel, 0.0);
    double share = 1.0 / double(p.kh * p.kw);
    forEachWindow(
        p, [&](int64_t out, int64_t n, int64_t c, int64_t y0, int64_t x0) {
          double g = get(dy, out) * share;
          for (int64_t ky = 0; ky < p.kh; ++ky)
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              int64_t iy = y0 + ky, ix = x0 + kx;
              if (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w)
                acc[p.at(n, iy, ix, c, p.h, p.w)] += g;
            }
        });
    storeAll(dx, acc);
    return ok();
  }
  if (!p.nchw) {
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      const T *xs = static_cast<const T *>(x->data);
      const T *ys = static_cast<const T *>(y->data);
      const T *dys = static_cast<const T *>(dy->data);
      T *dxs = static_cast<T *>(dx->data);
      // The gradient accumulates in f32 for f16 data already; widening
      // the operands once makes every window's comparisons f32 loads.
      using E = PoolLaneElement<T>;
      if constexpr (!std::is_void_v<E>)
        if (tilesImage(p) && hasPoolLanes()) {
          maxPoolGradTiledLanes<E>(p, xs, ys, dys, dxs);
          return ok();
        }
      if constexpr (kWidenOnce<T>) {
        Scratch<float> xw = widenAll(xs, x->numel), yw = widenAll(ys, y->numel),
                       dyw = widenAll(dys, dy->numel), dxw(dx->numel);
        maxPoolGradNHWC<float>(p, xw.data(), yw.data(), dyw.data(), dxw.data());
        narrowAll(dxw, dxs);
      } else {
        maxPoolGradNHWC<T>(p, xs, ys, dys, dxs);
      }
    });
    return ok();
  }
  std::vector<double> acc(x->numel, 0.0);
  // Each (n, c) plane is written by one thread only.
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    const T *ys = static_cast<const T *>(y->data);
    const T *dys = static_cast<const T *>(dy->data);
    forEachWindow(
        p, [&](int64_t out, int64_t n, int64_t c, int64_t y0, int64_t x0) {
          double target = load(ys, out);
          for (int64_t ky = 0; ky < p.kh; ++ky)
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              int64_t iy = y0 + ky, ix = x0 + kx;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
                continue;
              int64_t in = p.at(n, iy, ix, c, p.h, p.w);
              double v = load(xs, in);
              // The first maximum of the window takes the gradient.
              if (v == target || (target != target && v != v)) {
                acc[in] += load(dys, out);
                return;
              }
            }
        });
  });
  storeAll(dx, acc);
  return ok();
}

amprt_status batchNorm(Ctx *ctx, const Tensor *x, const Tensor *scale,
                       const Tensor *offset, double epsilon, const Split &s,
                       Tensor *y, Tensor *mean, Tensor *inv_std) {
  double count = double(s.outer * s.inner);
  // Statistics in double, visiting memory in order (channels-last data
  // strided per channel was 14% of the CNN step), on all cores.
  std::vector<double> mu(s.axis), is(s.axis);
  // Runs on the data's own type. x is read three times, so f16 goes through
  // the vector conversions, not three scalar ones: a block of rows at a time
  // when channels last (channelValueSums, mapChannelsLast: 401K-element CNN
  // batch norm's gradient 325 -> 240 us, the forward even), else from a
  // whole f32 copy. The values are the same: widening is exact, and the
  // result rounds f32 -> 16 bits as the per-element store does.
  auto run = [&](const auto *xs, auto *ys) {
    using C = typename Compute<
        std::remove_const_t<std::remove_pointer_t<decltype(xs)>>>::type;
    std::vector<double> sum = channelValueSums(
        s, 1, [](int64_t c, double x, double *acc) { acc[c] += x; }, xs);
    for (int64_t c = 0; c < s.axis; ++c)
      mu[c] = sum[c] / count;
    std::vector<double> sq = channelValueSums(
        s, 1,
        [&](int64_t c, double x, double *acc) {
          double d = x - mu[c];
          acc[c] += d * d;
        },
        xs);
    std::vector<double> g(s.axis), b(s.axis);
    for (int64_t c = 0; c < s.axis; ++c) {
      is[c] = 1.0 / std::sqrt(sq[c] / count + epsilon);
      g[c] = get(scale, c);
      b[c] = get(offset, c);
      set(mean, c, mu[c]);
      set(inv_std, c, is[c]);
    }
    if (s.inner == 1) {
      // Channels last over plain per-channel arrays (the generic visit
      // below did not vectorise: 10% of the CNN step). Same operations in
      // the same order.
      const double *m = mu.data(), *i = is.data(), *gc = g.data(),
                   *bc = b.data();
      mapChannelsLast(
          s.outer, s.axis, ys,
          [=](int64_t c, C x) { return (x - m[c]) * i[c] * gc[c] + bc[c]; },
          xs);
      return;
    }
    parallelForInOrder(s, [&](int64_t c, int64_t k) {
      store(ys, k, (C)((load(xs, k) - mu[c]) * is[c] * g[c] + b[c]));
    });
  };
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    T *ys = static_cast<T *>(y->data);
    // Channels last, f16 goes a block of rows at a time through the sums
    // and mapChannelsLast; other layouts read x per channel, from a copy.
    bool copy = kWidenOnce<T> && s.inner != 1;
    if constexpr (kWidenOnce<T>) {
      if (copy) {
        Scratch<float> xw = widenAll(xs, x->numel), yw(y->numel);
        run(static_cast<const float *>(xw.data()), yw.data());
        narrowAll(yw, ys);
      }
    }
    if (!copy)
      run(xs, ys);
  });
  return ok();
}

amprt_status batchNormGrad(Ctx *ctx, const Tensor *dy, const Tensor *x,
                           const Tensor *scale, const Tensor *mean,
                           const Tensor *inv_std, const Split &s, Tensor *dx,
                           Tensor *dscale, Tensor *doffset) {
  double count = double(s.outer * s.inner);
  std::vector<double> mu(s.axis), is(s.axis), g(s.axis), sumDy(s.axis, 0.0),
      sumDyXhat(s.axis, 0.0);
  for (int64_t c = 0; c < s.axis; ++c) {
    mu[c] = get(mean, c);
    is[c] = get(inv_std, c);
    g[c] = get(scale, c);
  }
  auto run = [&](const auto *xs, const auto *dys, auto *dxs) {
    using C = typename Compute<
        std::remove_const_t<std::remove_pointer_t<decltype(xs)>>>::type;
    std::vector<double> sums = channelValueSums(
        s, 2,
        [&](int64_t c, double d, double x, double *acc) {
          acc[c] += d;
          acc[s.axis + c] += d * (x - mu[c]) * is[c];
        },
        dys, xs);
    std::copy(sums.begin(), sums.begin() + s.axis, sumDy.begin());
    std::copy(sums.begin() + s.axis, sums.end(), sumDyXhat.begin());
    // g * is / count is the first factor of every element's product, so
    // it is the same number computed once per channel: no division per
    // element (divsd was the CNN step's hottest instruction).
    std::vector<double> factor(s.axis);
    for (int64_t c = 0; c < s.axis; ++c)
      factor[c] = g[c] * is[c] / count;
    if (s.inner == 1) {
      // Channels last over plain per-channel arrays, as in batchNorm.
      const double *m = mu.data(), *i = is.data(), *f = factor.data(),
                   *sd = sumDy.data(), *sx = sumDyXhat.data();
      mapChannelsLast(
          s.outer, s.axis, dxs,
          [=](int64_t c, C x, C dyv) {
            double xhat = (x - m[c]) * i[c];
            return f[c] * (count * (double)dyv - sd[c] - xhat * sx[c]);
          },
          xs, dys);
      return;
    }
    parallelForInOrder(s, [&](int64_t c, int64_t k) {
      double xhat = (load(xs, k) - mu[c]) * is[c];
      store(dxs, k,
            (C)(factor[c] * (count * (double)load(dys, k) - sumDy[c] -
                             xhat * sumDyXhat[c])));
    });
  };
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *xs = static_cast<const T *>(x->data);
    const T *dys = static_cast<const T *>(dy->data);
    T *dxs = static_cast<T *>(dx->data);
    // As batchNorm: only f16 in other layouts than channels last is copied.
    bool copy = kWidenOnce<T> && s.inner != 1;
    if constexpr (kWidenOnce<T>) {
      if (copy) {
        Scratch<float> xw = widenAll(xs, x->numel),
                       dyw = widenAll(dys, dy->numel), dxw(dx->numel);
        run(static_cast<const float *>(xw.data()),
            static_cast<const float *>(dyw.data()), dxw.data());
        narrowAll(dxw, dxs);
      }
    }
    if (!copy)
      run(xs, dys, dxs);
  });
  for (int64_t c = 0; c < s.axis; ++c) {
    set(dscale, c, sumDyXhat[c]);
    set(doffset, c, sumDy[c]);
  }
  return ok();
}

namespace {
/// f32 stand-ins for f16 and bf16 tensors, so that the shared row kernels
/// run on f32 arrays where their rows are strided (softmax over an axis
/// other than the last; rows in memory go through stagedRows): inputs are
/// widened once with the vector conversions and outputs narrowed back
/// (nearest-even, as the kernels' own 16-bit stores round: they compute in
/// f32 for both). Other tensors pass through.
class F32StandIns {
public:
  explicit F32StandIns(Ctx *ctx) : ctx(ctx) {}
  ~F32StandIns() {
    for (Tensor *t : owned)
      amprt_tensor_release(t);
  }
  const Tensor *in(const Tensor *t) {
    Tensor *wide = standIn(t);
    if (wide != t)
      withSixteenBitData(t, [&](auto *data) {
        parallelFor(t->numel, kConvertGrain, [&](int64_t b, int64_t e) {
          convert(data + b, static_cast<float *>(wide->data) + b, e - b);
        });
      });
    return wide;
  }
  Tensor *out(Tensor *t) {
    Tensor *wide = standIn(t);
    if (wide != t)
      outputs.push_back({wide, t});
    return wide;
  }
  bool ok() const { return allocated; }
  /// Narrows the outputs into their tensors when `status` is success.
  amprt_status finish(amprt_status status) {
    if (status != AMPRT_OK)
      return status;
    for (const std::pair<Tensor *, Tensor *> &output : outputs) {
      // Named copies: clang 14 cannot capture structured bindings.
      Tensor *wide = output.first, *t = output.second;
      withSixteenBitData(t, [&](auto *data) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
        parallelFor(t->numel, kConvertGrain, [&](int64_t b, int64_t e) {
          convert(static_cast<const float *>(wide->data) + b,
                  const_cast<T *>(data) + b, e - b);
        });
      });
    }
    return status;
  }

private:
  Tensor *standIn(const Tensor *t) {
    if (!t || !isSixteenBit(t))
      return const_cast<Tensor *>(t);
    Tensor *wide = nullptr;
    if (amprt_tensor_create(ctx, AMPRT_F32, (int)t->shape.size(),
                            t->shape.data(), &wide) != AMPRT_OK) {
      allocated = false;
      return const_cast<Tensor *>(t);
    }
    owned.push_back(wide);
    return wide;
  }

  Ctx *ctx;
  bool allocated = true;
  std::vector<Tensor *> owned;
  std::vector<std::pair<Tensor *, Tensor *>> outputs;
};
} // namespace

amprt_status layerNorm(Ctx *ctx, const Tensor *x, const Tensor *gamma,
                       const Tensor *beta, double epsilon, Tensor *y,
                       Tensor *mean, Tensor *inv_std) {
  CpuExec exec(kRowGrain);
  if (!isSixteenBit(x))
    return device::layerNorm(exec, x, gamma, beta, epsilon, y, mean, inv_std);
  // 16-bit rows go through the f32 kernel a block at a time (stagedRows).
  int64_t d = x->shape.back(), rows = d ? x->numel / d : 0;
  const float *g = static_cast<const float *>(gamma->data),
              *b = static_cast<const float *>(beta->data);
  float *mu = static_cast<float *>(mean->data),
        *is = static_cast<float *>(inv_std->data);
  withSixteenBitData(x, [&](const auto *xs) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(xs)>>;
    stagedRows<T, 1, 1>(
        rows, d, kRowGrain, {xs}, {mutableData<T>(y)},
        [&](int64_t first, int64_t count, const auto &in, const auto &out) {
          CpuExec::runRange(
              device::LayerNormKernel<float, float>{
                  in[0], g, b, out[0], mu + first, is + first, d, epsilon},
              0, count);
        });
  });
  return ok();
}

/// Layer norm's dgamma and dbeta: the folds of device::layerNormGradSums
/// (each column's rows in order from zero within chunks of
/// device::kReduceChunk, the chunks' sums in order), so the same sums, as
/// tasks of a block of columns over one chunk of rows. A block's rows are
/// read in place (f32) or widened a block at a time (16-bit: read in
/// place, their loads made f16's column sums slower than the whole
/// gradient on f32 copies).
template <typename T> class LayerNormColumnSums {
public:
  /// Columns per task, at most: a row of 64 keeps 16 double sums in flight
  /// (the GPT model's 4096x256 gradients spent half their time in 16-wide
  /// tasks, waiting on 4 sums' adds). Blocks narrow to 16 where wide ones
  /// would leave a core idle (the transformer's rows of 32). A column's
  /// sums do not depend on its block: the same bits at every width.
  static constexpr int64_t kMaxColumns = 64;

  LayerNormColumnSums(const T *dy, const T *x, const float *mean,
                      const float *invStd, int64_t rows, int64_t d,
                      int64_t cores)
      : dy(dy), x(x), mean(mean), invStd(invStd), rows(rows), d(d),
        chunk(std::max<int64_t>(1, std::min(rows, device::kReduceChunk))),
        chunks(std::max<int64_t>(1, (rows + chunk - 1) / chunk)),
        columns(blockWidth(d, chunks, cores)),
        blocks((d + columns - 1) / columns), partial(2 * d * chunks) {}

  int64_t tasks() const { return blocks * chunks; }
  int64_t chunkCount() const { return chunks; }
  int64_t chunkRows() const { return chunk; }

  /// Chunk k's partial sums of every column, added elsewhere in run()'s
  /// order (the chunk's rows in order from its first).
  void store(int64_t k, const double *g, const double *b) {
    for (int64_t o = 0; o < d; ++o) {
      partial[o * chunks + k] = g[o];
      partial[(d + o) * chunks + k] = b[o];
    }
  }

  /// Task i's partial sums: columns [o0, o0 + columns) over chunk k.
  void run(int64_t i) {
    int64_t o0 = i / chunks * columns, k = i % chunks;
    int64_t n = std::min(columns, d - o0);
    float wideDy[kMaxColumns], wideX[kMaxColumns];
    double sumG[kMaxColumns] = {}, sumB[kMaxColumns] = {};
    for (int64_t r = k * chunk; r < std::min(rows, (k + 1) * chunk); ++r) {
      const float *dyr = wideDy, *xr = wideX;
      if constexpr (std::is_same_v<T, float>) {
        dyr = dy + r * d + o0;
        xr = x + r * d + o0;
      } else if constexpr (std::is_same_v<T, bf16_t>) {
        // Widened in line (a shift), not by a call per 16 values.
        bf16ToFloatLoop(dy + r * d + o0, wideDy, n);
        bf16ToFloatLoop(x + r * d + o0, wideX, n);
      } else {
        convert(dy + r * d + o0, wideDy, n);
        convert(x + r * d + o0, wideX, n);
      }
      double mu = mean[r], is = invStd[r];
      for (int64_t q = 0; q < n; ++q) {
        double g = dyr[q];
        sumG[q] += g * (((double)xr[q] - mu) * is);
        sumB[q] += g;
      }
    }
    for (int64_t q = 0; q < n; ++q) {
      partial[(o0 + q) * chunks + k] = sumG[q];
      partial[(d + o0 + q) * chunks + k] = sumB[q];
    }
  }

  /// The chunks' sums in order, rounded once.
  void finish(float *dgamma, float *dbeta) const {
    for (int64_t o = 0; o < d; ++o) {
      double g = 0, b = 0;
      for (int64_t k = 0; k < chunks; ++k) {
        g += partial[o * chunks + k];
        b += partial[(d + o) * chunks + k];
      }
      dgamma[o] = (float)g;
      dbeta[o] = (float)b;
    }
  }

private:
  /// The widest block of 16, 32 or 64 columns that gives every core two
  /// tasks.
  static int64_t blockWidth(int64_t d, int64_t chunks, int64_t cores) {
    int64_t width = kMaxColumns;
    while (width > 16 && (d + width - 1) / width * chunks < 2 * cores)
      width /= 2;
    return width;
  }

  const T *dy, *x;
  const float *mean, *invStd;
  int64_t rows, d, chunk, chunks, columns, blocks;
  // dgamma's then dbeta's partials, [column][chunk]: each written by one
  // task before finish() reads it, so reused scratch needs no zero fill.
  Scratch<double> partial;
};

/// [begin, end) of [0, n) for share `i` of `shares`.
std::pair<int64_t, int64_t> share(int64_t n, int64_t i, int64_t shares) {
  int64_t size = (n + shares - 1) / shares;
  return {std::min(n, i * size), std::min(n, (i + 1) * size)};
}

using LayerNormGradRows = device::LayerNormGradKernel<float, float>;

/// dx of rows [r0, r1) and chunk k of the column sums in one pass: each
/// row's dy and xhat join the chunk's sums as its dx is made, in the
/// sums' order (the chunk's rows in order), where apart every element was
/// read, widened and normalised twice (a 4096x256 gradient 0.33 -> 0.23
/// ms in bf16, 0.24 -> 0.19 in f32, Zen 5). 16-bit rows are staged in
/// f32.
template <typename T>
void layerNormChunk(LayerNormColumnSums<T> &sums, int64_t k, const T *dy,
                    const T *x, T *dx, const float *gamma, const float *mean,
                    const float *invStd, int64_t d, int64_t r0, int64_t r1) {
  double sumG[LayerNormGradRows::kKept] = {},
         sumB[LayerNormGradRows::kKept] = {};
  auto add = [&](const float *dyr, const double *xhat) {
    for (int64_t j = 0; j < d; ++j) {
      double g = dyr[j];
      sumG[j] += g * xhat[j];
      sumB[j] += g;
    }
  };
  if constexpr (std::is_same_v<T, float>) {
    LayerNormGradRows{dy, x, gamma, mean, invStd, dx, d}.rowsKept(
        r0, r1, [&](int64_t r, const double *xhat) { add(dy + r * d, xhat); });
  } else {
    stagedRowRange<T, 2, 1>(
        r0, r1, d, {dy, x}, {dx},
        [&](int64_t s0, int64_t count, const auto &in, const auto &out) {
          LayerNormGradRows{in[0],       in[1],  gamma, mean + s0,
                            invStd + s0, out[0], d}
              .rowsKept(0, count, [&](int64_t q, const double *xhat) {
                add(in[0] + q * d, xhat);
              });
        });
  }
  sums.store(k, sumG, sumB);
}

amprt_status layerNormGrad(Ctx *ctx, const Tensor *dy, const Tensor *x,
                           const Tensor *gamma, const Tensor *mean,
                           const Tensor *inv_std, Tensor *dx, Tensor *dgamma,
                           Tensor *dbeta) {
  CpuExec exec(kRowGrain);
  if (x->dtype == AMPRT_F64)
    return device::layerNormGrad(exec, dy, x, gamma, mean, inv_std, dx, dgamma,
                                 dbeta);
  // One parallel region: each core takes a share of dx's rows and a share
  // of the column sums' tasks, then the calling thread adds the chunks.
  // Apart (dx, then each sum's partials and its finish) they were five
  // regions, a third of the transformer's 896x32 gradient spent waiting in
  // libgomp. dx's rows run the device kernel (16-bit rows staged in f32).
  int64_t d = x->shape.back(), rows = d ? x->numel / d : 0;
  const float *g = static_cast<const float *>(gamma->data),
              *mu = static_cast<const float *>(mean->data),
              *is = static_cast<const float *>(inv_std->data);
  auto run = [&](const auto *dys, const auto *xs, auto *dxs) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(xs)>>;
    LayerNormColumnSums<T> sums(dys, xs, mu, is, rows, d,
                                omp_get_max_threads());
    auto dxRows = [&](int64_t first, int64_t last) {
      if constexpr (std::is_same_v<T, float>) {
        CpuExec::runRange(device::LayerNormGradKernel<float, float>{dys, xs, g,
                                                                    mu, is, dxs,
                                                                    d},
                          first, last);
      } else {
        stagedRowRange<T, 2, 1>(
            first, last, d, {dys, xs}, {dxs},
            [&](int64_t r0, int64_t count, const auto &in, const auto &out) {
              CpuExec::runRange(
                  device::LayerNormGradKernel<float, float>{
                      in[0], in[1], g, mu + r0, is + r0, out[0], d},
                  0, count);
            });
      }
    };
    int64_t cores = omp_get_max_threads(), chunks = sums.chunkCount();
    if (d <= LayerNormGradRows::kKept && rows > kRowGrain &&
        chunks % cores == 0) {
      // Whole chunks a core: dx and the column sums in one pass.
      parallelForWide(chunks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
          int64_t r0 = k * sums.chunkRows();
          layerNormChunk(sums, k, dys, xs, dxs, g, mu, is, d, r0,
                         std::min(rows, r0 + sums.chunkRows()));
        }
      });
      sums.finish(static_cast<float *>(dgamma->data),
                  static_cast<float *>(dbeta->data));
      return;
    }
    int64_t shares = rows > kRowGrain ? cores : 1;
    parallelForWide(shares, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        auto [r0, r1] = share(rows, i, shares);
        dxRows(r0, r1);
        auto [t0, t1] = share(sums.tasks(), i, shares);
        for (int64_t t = t0; t < t1; ++t)
          sums.run(t);
      }
    });
    sums.finish(static_cast<float *>(dgamma->data),
                static_cast<float *>(dbeta->data));
  };
  if (x->dtype == AMPRT_F32)
    run(static_cast<const float *>(dy->data),
        static_cast<const float *>(x->data), mutableData<float>(dx));
  else
    withSixteenBitData(x, [&](const auto *xs) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(xs)>>;
      run(static_cast<const T *>(dy->data), xs, mutableData<T>(dx));
    });
  return ok();
}

/// The rows ops run the device backends' code on the cores.
amprt_status softmax(Ctx *ctx, int kind, const Tensor *a, const Tensor *b,
                     const Split &s, Tensor *out) {
  CpuExec exec(kRowGrain);
  auto softmaxKind = static_cast<device::SoftmaxKind>(kind);
  if (!isSixteenBit(a))
    return device::softmax(exec, softmaxKind, a, b, s, out);
  if (s.inner == 1) {
    // Rows in memory: through the f32 kernel a block at a time.
    withSixteenBitData(a, [&](const auto *as) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(as)>>;
      device::withSoftmaxKind(softmaxKind, [&](auto kindTag) {
        constexpr device::SoftmaxKind K = decltype(kindTag)::value;
        auto rows = [&](int64_t first, int64_t count, const auto &in,
                        const auto &outs) {
          Split block{count, s.axis, 1};
          CpuExec::runRange(
              device::SoftmaxKernel<float, K, true>{
                  in[0], device::isSoftmaxGrad(K) ? in.back() : nullptr,
                  outs[0], block},
              0, count);
        };
        T *o = mutableData<T>(out);
        if constexpr (device::isSoftmaxGrad(K))
          stagedRows<T, 2, 1>(s.outer, s.axis, kRowGrain,
                              {as, static_cast<const T *>(b->data)}, {o}, rows);
        else
          stagedRows<T, 1, 1>(s.outer, s.axis, kRowGrain, {as}, {o}, rows);
      });
    });
    return ok();
  }
  // Other layouts read strided rows: from whole f32 copies.
  F32StandIns f32(ctx);
  const Tensor *aw = f32.in(a), *bw = f32.in(b);
  Tensor *outw = f32.out(out);
  if (!f32.ok())
    return device::softmax(exec, softmaxKind, a, b, s, out);
  return f32.finish(device::softmax(exec, softmaxKind, aw, bw, s, outw));
}

amprt_status causalSoftmax(Ctx *, const Tensor *x, int64_t queries,
                           Tensor *y) {
  CpuExec exec(kRowGrain);
  if (!isSixteenBit(x))
    return device::causalSoftmax(exec, x, queries, y);
  // 16-bit rows through the f32 kernel a block at a time (stagedRows): a
  // load and a store converted one element at a time made the GPT model's
  // bf16 scores take 1.4x as long as f32 ones (0.68 against 0.49 ms for
  // 32x4x128x128, Zen 5). The same values: widening is exact and each
  // result is rounded once, f32 -> 16 bits, as the kernel's own stores.
  int64_t keys = x->shape.back(), rows = keys ? x->numel / keys : 0;
  withSixteenBitData(x, [&](const auto *xs) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(xs)>>;
    stagedRows<T, 1, 1>(
        rows, keys, kRowGrain, {xs}, {mutableData<T>(y)},
        [&](int64_t first, int64_t count, const auto &in, const auto &out) {
          CpuExec::runRange(device::CausalSoftmaxKernel<float>{in[0], out[0],
                                                               keys, queries,
                                                               first},
                            0, count);
        });
  });
  return ok();
}

amprt_status crossEntropy(Ctx *ctx, const char *op, const Tensor *logits,
                          const Tensor *labels, const Tensor *dloss,
                          Tensor *out) {
  CpuExec exec(kRowGrain);
  return device::crossEntropy(exec, op, logits, labels, dloss, out);
}

} // namespace amprt::cpu
