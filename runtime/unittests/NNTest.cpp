//===- NNTest.cpp - Bias, pooling, norms, softmax and loss ---------------===//
//
// Forward ops against direct references; backward ops against central
// finite differences of the forward op in f64 (nonlinear ops) or against
// adjoint identities (linear ops).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "device/HostExec.h"
#include "device/Kernels.h"
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>

using namespace amprt_test;

namespace {

using Forward = std::function<std::vector<double>(const std::vector<double> &)>;

/// The forward function of fdCheck for an op of one f64 tensor of shape
/// `in` into one of shape `out`: `call(ctx, input, output)`.
template <typename Call>
Forward f64Forward(Runtime &rt, Shape in, Shape out, Call call) {
  return [&rt, in, out, call](const std::vector<double> &v) {
    Tensor t = rt.make(AMPRT_F64, in, v), result = rt.make(AMPRT_F64, out);
    call(rt.ctx, t.t, result.t);
    return rt.read(result);
  };
}

/// d<F(x), r>/dx at a few coordinates, by central differences, against
/// `analytic`.
void fdCheck(const Forward &f, std::vector<double> x,
             const std::vector<double> &r, const std::vector<double> &analytic,
             const char *what) {
  auto loss = [&](const std::vector<double> &v) {
    std::vector<double> y = f(v);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i)
      s += y[i] * r[i];
    return s;
  };
  std::mt19937 rng(99);
  for (int trial = 0; trial < 12; ++trial) {
    size_t i = rng() % x.size();
    double h = 1e-6, keep = x[i];
    x[i] = keep + h;
    double up = loss(x);
    x[i] = keep - h;
    double down = loss(x);
    x[i] = keep;
    double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric)))
        << what << " coordinate " << i;
  }
}

TEST(RuntimeNN, BiasAddAndItsGrad) {
  Runtime rt;
  for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW}) {
    Shape xs{2, 3, 4, 5};
    int64_t c = layout == AMPRT_NHWC ? 5 : 3;
    Tensor x = rt.make(AMPRT_F64, xs, randomValues(120, 1));
    Tensor b = rt.make(AMPRT_F64, {c}, randomValues(c, 2));
    Tensor y = rt.make(AMPRT_F64, xs), db = rt.make(AMPRT_F64, {c});
    ASSERT_EQ(amprt_bias_add(rt.ctx, x, b, layout, y), AMPRT_OK);
    std::vector<double> rx = rt.read(x), rb = rt.read(b), ry = rt.read(y);
    for (int64_t i = 0; i < 120; ++i) {
      int64_t ch = layout == AMPRT_NHWC ? i % 5 : (i / 20) % 3;
      EXPECT_DOUBLE_EQ(ry[i], rx[i] + rb[ch]);
    }
    ASSERT_EQ(amprt_bias_add_grad(rt.ctx, x, layout, db), AMPRT_OK);
    std::vector<double> want(c, 0);
    for (int64_t i = 0; i < 120; ++i)
      want[layout == AMPRT_NHWC ? i % 5 : (i / 20) % 3] += rx[i];
    expectNear(rt.read(db), want, 1e-12, "bias_add_grad");
  }
}

TEST(RuntimeNN, PoolingForwardAndGrads) {
  Runtime rt;
  int64_t window[2] = {2, 3}, strides[2] = {2, 2}, padding[4] = {0, 1, 1, 1};
  Shape xs{2, 5, 6, 3}, ys{2, 3, 3, 3};
  auto xv = randomValues(numel(xs), 3);
  Tensor x = rt.make(AMPRT_F64, xs, xv);
  Tensor ymax = rt.make(AMPRT_F64, ys), yavg = rt.make(AMPRT_F64, ys);
  ASSERT_EQ(
      amprt_max_pool2d(rt.ctx, x, window, strides, padding, AMPRT_NHWC, ymax),
      AMPRT_OK)
      << amprt_last_error();
  ASSERT_EQ(
      amprt_avg_pool2d(rt.ctx, x, window, strides, padding, AMPRT_NHWC, yavg),
      AMPRT_OK);
  // Direct reference for both.
  std::vector<double> wantMax(numel(ys)), wantAvg(numel(ys));
  for (int n = 0; n < 2; ++n)
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 3; ++ox)
        for (int c = 0; c < 3; ++c) {
          double m = -INFINITY, s = 0;
          for (int ky = 0; ky < 2; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = oy * 2 + ky, ix = ox * 2 - 1 + kx;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 6)
                continue;
              double v = xv[((n * 5 + iy) * 6 + ix) * 3 + c];
              m = std::max(m, v);
              s += v;
            }
          int64_t o = ((n * 3 + oy) * 3 + ox) * 3 + c;
          wantMax[o] = m;
          wantAvg[o] = s / 6;
        }
  expectNear(rt.read(ymax), wantMax, 1e-12, "max_pool2d");
  expectNear(rt.read(yavg), wantAvg, 1e-12, "avg_pool2d");
  // The same windows in the storage types and in NCHW (the general path).
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16})
    for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW}) {
      bool nchw = layout == AMPRT_NCHW;
      auto toLayout = [&](const std::vector<double> &v, int64_t h, int64_t w) {
        if (!nchw)
          return v;
        std::vector<double> out(v.size());
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t i = 0; i < h * w; ++i)
            for (int64_t c = 0; c < 3; ++c)
              out[(n * 3 + c) * h * w + i] = v[(n * h * w + i) * 3 + c];
        return out;
      };
      Shape xl = nchw ? Shape{2, 3, 5, 6} : xs,
            yl = nchw ? Shape{2, 3, 3, 3} : ys;
      Tensor xt = rt.make(dtype, xl, toLayout(rt.read(x), 5, 6));
      // The reference from the stored (rounded) inputs, in f64.
      Tensor x64 = rt.make(AMPRT_F64, xl, rt.read(xt));
      Tensor mt = rt.make(dtype, yl), at = rt.make(dtype, yl);
      Tensor m64 = rt.make(AMPRT_F64, yl), a64 = rt.make(AMPRT_F64, yl);
      for (auto [in, maxOut, avgOut] :
           {std::tuple{xt.t, mt.t, at.t}, std::tuple{x64.t, m64.t, a64.t}}) {
        ASSERT_EQ(amprt_max_pool2d(rt.ctx, in, window, strides, padding, layout,
                                   maxOut),
                  AMPRT_OK);
        ASSERT_EQ(amprt_avg_pool2d(rt.ctx, in, window, strides, padding, layout,
                                   avgOut),
                  AMPRT_OK);
      }
      expectNear(rt.read(mt), rt.read(m64), 0, "max_pool2d storage types");
      expectNear(rt.read(at), rt.read(a64), tolerance(dtype),
                 "avg_pool2d storage types");
    }

  auto r = randomValues(numel(ys), 4);
  Tensor dy = rt.make(AMPRT_F64, ys, r), dx = rt.make(AMPRT_F64, xs);
  ASSERT_EQ(amprt_max_pool2d_grad(rt.ctx, dy, x, ymax, window, strides, padding,
                                  AMPRT_NHWC, dx),
            AMPRT_OK)
      << amprt_last_error();
  Forward maxPool = f64Forward(rt, xs, ys, [&](auto *ctx, auto *t, auto *y) {
    amprt_max_pool2d(ctx, t, window, strides, padding, AMPRT_NHWC, y);
  });
  fdCheck(maxPool, xv, r, rt.read(dx), "max_pool2d_grad");
  ASSERT_EQ(amprt_avg_pool2d_grad(rt.ctx, dy, window, strides, padding,
                                  AMPRT_NHWC, dx),
            AMPRT_OK);
  Forward avgPool = f64Forward(rt, xs, ys, [&](auto *ctx, auto *t, auto *y) {
    amprt_avg_pool2d(ctx, t, window, strides, padding, AMPRT_NHWC, y);
  });
  fdCheck(avgPool, xv, r, rt.read(dx), "avg_pool2d_grad");
}

TEST(RuntimeNN, BatchNormForwardAndGrad) {
  Runtime rt;
  Shape xs{4, 3, 2, 5}; // NHWC: 5 channels
  auto xv = randomValues(numel(xs), 5), sv = randomValues(5, 6),
       ov = randomValues(5, 7);
  Tensor x = rt.make(AMPRT_F64, xs, xv), s = rt.make(AMPRT_F64, {5}, sv),
         o = rt.make(AMPRT_F64, {5}, ov);
  Tensor y = rt.make(AMPRT_F64, xs), mean = rt.make(AMPRT_F64, {5}),
         inv = rt.make(AMPRT_F64, {5});
  ASSERT_EQ(amprt_batch_norm(rt.ctx, x, s, o, 1e-5, AMPRT_NHWC, y, mean, inv),
            AMPRT_OK)
      << amprt_last_error();
  // Normalized per channel: mean 0 and variance 1 before scale/offset.
  std::vector<double> ry = rt.read(y);
  for (int c = 0; c < 5; ++c) {
    double m = 0, v = 0;
    for (int i = c; i < 120; i += 5)
      m += (ry[i] - ov[c]) / sv[c];
    m /= 24;
    for (int i = c; i < 120; i += 5)
      v += std::pow((ry[i] - ov[c]) / sv[c] - m, 2);
    EXPECT_NEAR(m, 0, 1e-9);
    EXPECT_NEAR(v / 24, 1, 1e-3);
  }
  auto r = randomValues(120, 8);
  Tensor dy = rt.make(AMPRT_F64, xs, r), dx = rt.make(AMPRT_F64, xs),
         ds = rt.make(AMPRT_F64, {5}), dof = rt.make(AMPRT_F64, {5});
  ASSERT_EQ(amprt_batch_norm_grad(rt.ctx, dy, x, s, mean, inv, AMPRT_NHWC, dx,
                                  ds, dof),
            AMPRT_OK)
      << amprt_last_error();
  Forward bnX = [&](const std::vector<double> &v) {
    Tensor t = rt.make(AMPRT_F64, xs, v), out = rt.make(AMPRT_F64, xs),
           m = rt.make(AMPRT_F64, {5}), i = rt.make(AMPRT_F64, {5});
    amprt_batch_norm(rt.ctx, t, s, o, 1e-5, AMPRT_NHWC, out, m, i);
    return rt.read(out);
  };
  fdCheck(bnX, xv, r, rt.read(dx), "batch_norm_grad dx");
  Forward bnScale = [&](const std::vector<double> &v) {
    Tensor t = rt.make(AMPRT_F64, {5}, v), out = rt.make(AMPRT_F64, xs),
           m = rt.make(AMPRT_F64, {5}), i = rt.make(AMPRT_F64, {5});
    amprt_batch_norm(rt.ctx, x, t, o, 1e-5, AMPRT_NHWC, out, m, i);
    return rt.read(out);
  };
  fdCheck(bnScale, sv, r, rt.read(ds), "batch_norm_grad dscale");
  // Low-precision data keeps f32 statistics.
  Tensor xh = rt.make(AMPRT_F16, xs, xv), s32 = rt.make(AMPRT_F32, {5}, sv),
         o32 = rt.make(AMPRT_F32, {5}, ov), yh = rt.make(AMPRT_F16, xs),
         m32 = rt.make(AMPRT_F32, {5}), i32 = rt.make(AMPRT_F32, {5});
  ASSERT_EQ(
      amprt_batch_norm(rt.ctx, xh, s32, o32, 1e-5, AMPRT_NHWC, yh, m32, i32),
      AMPRT_OK);
  expectNear(rt.read(yh), ry, 2e-2, "batch_norm f16");
}

TEST(RuntimeNN, LayerNormForwardAndGrad) {
  Runtime rt;
  Shape xs{3, 4, 6};
  auto xv = randomValues(72, 9), gv = randomValues(6, 10),
       bv = randomValues(6, 11);
  Tensor x = rt.make(AMPRT_F64, xs, xv), g = rt.make(AMPRT_F64, {6}, gv),
         b = rt.make(AMPRT_F64, {6}, bv);
  Tensor y = rt.make(AMPRT_F64, xs), mean = rt.make(AMPRT_F64, {3, 4}),
         inv = rt.make(AMPRT_F64, {3, 4});
  ASSERT_EQ(amprt_layer_norm(rt.ctx, x, g, b, 1e-5, y, mean, inv), AMPRT_OK)
      << amprt_last_error();
  auto r = randomValues(72, 12);
  Tensor dy = rt.make(AMPRT_F64, xs, r), dx = rt.make(AMPRT_F64, xs),
         dg = rt.make(AMPRT_F64, {6}), db = rt.make(AMPRT_F64, {6});
  ASSERT_EQ(amprt_layer_norm_grad(rt.ctx, dy, x, g, mean, inv, dx, dg, db),
            AMPRT_OK)
      << amprt_last_error();
  Forward ln = [&](const std::vector<double> &v) {
    Tensor t = rt.make(AMPRT_F64, xs, v), out = rt.make(AMPRT_F64, xs),
           m = rt.make(AMPRT_F64, {3, 4}), i = rt.make(AMPRT_F64, {3, 4});
    amprt_layer_norm(rt.ctx, t, g, b, 1e-5, out, m, i);
    return rt.read(out);
  };
  fdCheck(ln, xv, r, rt.read(dx), "layer_norm_grad dx");
  Forward lnGamma = [&](const std::vector<double> &v) {
    Tensor t = rt.make(AMPRT_F64, {6}, v), out = rt.make(AMPRT_F64, xs),
           m = rt.make(AMPRT_F64, {3, 4}), i = rt.make(AMPRT_F64, {3, 4});
    amprt_layer_norm(rt.ctx, x, t, b, 1e-5, out, m, i);
    return rt.read(out);
  };
  fdCheck(lnGamma, gv, r, rt.read(dg), "layer_norm_grad dgamma");
  std::vector<double> wantDb(6, 0);
  for (int i = 0; i < 72; ++i)
    wantDb[i % 6] += r[i];
  expectNear(rt.read(db), wantDb, 1e-12, "layer_norm_grad dbeta");
}

/// The CPU runs layer norm's rows in groups, stage by stage
/// (device::kRowGroup); each row must get the bits of the one-row kernel
/// the device backends run, whatever the row count and width (groups cut
/// short, widths with lane tails).
template <typename T> std::vector<T> rawValues(const Tensor &t) {
  std::vector<T> v(amprt_tensor_numel(t));
  EXPECT_EQ(amprt_tensor_read(t, v.data(), v.size() * sizeof(T)), AMPRT_OK);
  return v;
}

template <typename T>
void expectSameBits(const std::vector<T> &got, const std::vector<T> &want,
                    const std::string &what) {
  ASSERT_EQ(got.size(), want.size());
  if (std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0)
    return;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T))) {
      ADD_FAILURE() << what << ", element " << i << ": " << got[i] << " vs "
                    << want[i];
      return;
    }
}

/// The order in which cores fold a reduction (device::reduceInChunks: a
/// block of outputs over a chunk at a time), run serially: the reference
/// for the CPU's own column sums. (A GPU, and HostExec, fold in levels.)
struct SerialChunkExec : amprt::device::HostExec {
  template <typename K>
  amprt_status launchBlocks(const K &kernel, int64_t outputs, int64_t chunks) {
    for (int64_t o0 = 0; o0 < outputs; o0 += K::kBlock)
      for (int64_t k = 0; k < chunks; ++k)
        kernel.block(o0, std::min(o0 + K::kBlock, outputs), k);
    return AMPRT_OK;
  }
};

template <typename T> void expectGroupedLayerNormRows(amprt_dtype dtype) {
  Runtime rt;
  auto raw = [](const Tensor &t) { return rawValues<T>(t); };
  auto expectSame = [](const std::vector<T> &got, const std::vector<T> &want,
                       const std::string &what) {
    expectSameBits(got, want, what);
  };
  // 2100 rows: three chunks of the column sums (device::kReduceChunk);
  // 4096: four, whole chunks a core on 1, 2 or 4 cores, where the CPU
  // makes dx and the column sums in one pass.
  for (int64_t rows : {1, 7, 8, 9, 23, 40, 301, 2100, 4096})
    for (int64_t d : {1, 5, 16, 28, 37}) {
      std::string at =
          " (rows " + std::to_string(rows) + ", d " + std::to_string(d) + ")";
      Shape xs{rows, d};
      Tensor x = rt.make(dtype, xs, randomValues(rows * d, 61, -3, 5)),
             dy = rt.make(dtype, xs, randomValues(rows * d, 62)),
             g = rt.make(dtype, {d}, randomValues(d, 63)),
             b = rt.make(dtype, {d}, randomValues(d, 64));
      Tensor y = rt.make(dtype, xs), mean = rt.make(dtype, {rows}),
             inv = rt.make(dtype, {rows}), dx = rt.make(dtype, xs),
             dg = rt.make(dtype, {d}), db = rt.make(dtype, {d});
      ASSERT_EQ(amprt_layer_norm(rt.ctx, x, g, b, 1e-5, y, mean, inv), AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_layer_norm_grad(rt.ctx, dy, x, g, mean, inv, dx, dg, db),
                AMPRT_OK)
          << amprt_last_error();
      std::vector<T> xv = raw(x), dyv = raw(dy), gv = raw(g), bv = raw(b);
      std::vector<T> wantY(rows * d), wantMean(rows), wantInv(rows),
          wantDx(rows * d);
      amprt::device::LayerNormKernel<T, T> forward{
          xv.data(),       gv.data(),      bv.data(), wantY.data(),
          wantMean.data(), wantInv.data(), d,         1e-5};
      for (int64_t r = 0; r < rows; ++r)
        forward(r);
      expectSame(raw(y), wantY, "layer_norm y" + at);
      expectSame(raw(mean), wantMean, "layer_norm mean" + at);
      expectSame(raw(inv), wantInv, "layer_norm inv_std" + at);
      amprt::device::LayerNormGradKernel<T, T> backward{
          dyv.data(),     xv.data(),     gv.data(), wantMean.data(),
          wantInv.data(), wantDx.data(), d};
      for (int64_t r = 0; r < rows; ++r)
        backward(r);
      expectSame(raw(dx), wantDx, "layer_norm_grad dx" + at);
      // dgamma and dbeta: the column folds in chunks, serially.
      Tensor wantDg = rt.make(dtype, {d}), wantDb = rt.make(dtype, {d});
      SerialChunkExec serial;
      ASSERT_EQ(amprt::device::layerNormGradSums(serial, dy, x, mean, inv,
                                                 wantDg, wantDb),
                AMPRT_OK);
      expectSame(raw(dg), raw(wantDg), "layer_norm_grad dgamma" + at);
      expectSame(raw(db), raw(wantDb), "layer_norm_grad dbeta" + at);
    }
}

TEST(RuntimeNN, LayerNormGroupedRowsGiveTheDeviceBits) {
  expectGroupedLayerNormRows<float>(AMPRT_F32);
  expectGroupedLayerNormRows<double>(AMPRT_F64);
}

/// A contiguous softmax on the CPU (rows by groups, SoftmaxKernel::rows)
/// against the kernel one row at a time, bit for bit: groups cut short,
/// rows with lane tails, the kept-exponentials limit (64) and past it.
template <typename T> void expectGroupedSoftmaxRows(amprt_dtype dtype) {
  Runtime rt;
  for (int64_t rows : {1, 7, 8, 9, 23, 40, 301})
    for (int64_t d : {1, 5, 16, 28, 37, 64, 65}) {
      Shape xs{rows, d};
      Tensor x = rt.make(dtype, xs, randomValues(rows * d, 65, -6, 4)),
             y = rt.make(dtype, xs);
      ASSERT_EQ(amprt_softmax(rt.ctx, x, -1, y), AMPRT_OK)
          << amprt_last_error();
      std::vector<T> xv = rawValues<T>(x), want(rows * d);
      amprt::Split split;
      split.outer = rows;
      split.axis = d;
      amprt::device::SoftmaxKernel<T, amprt::device::SoftmaxKind::Softmax, true>
          kernel{xv.data(), nullptr, want.data(), split};
      for (int64_t r = 0; r < rows; ++r)
        kernel(r);
      expectSameBits(rawValues<T>(y), want,
                     "softmax (rows " + std::to_string(rows) + ", d " +
                         std::to_string(d) + ")");
    }
}

TEST(RuntimeNN, SoftmaxGroupedRowsGiveTheOneRowBits) {
  expectGroupedSoftmaxRows<float>(AMPRT_F32);
  expectGroupedSoftmaxRows<double>(AMPRT_F64);
}

TEST(RuntimeNN, SoftmaxFamilyAndCrossEntropy) {
  Runtime rt;
  Shape xs{3, 5, 4};
  auto xv = randomValues(60, 13, -3, 3), r = randomValues(60, 14);
  for (int64_t axis : {1, -1}) {
    Tensor x = rt.make(AMPRT_F64, xs, xv), y = rt.make(AMPRT_F64, xs),
           ly = rt.make(AMPRT_F64, xs), dy = rt.make(AMPRT_F64, xs, r),
           dx = rt.make(AMPRT_F64, xs);
    ASSERT_EQ(amprt_softmax(rt.ctx, x, axis, y), AMPRT_OK);
    ASSERT_EQ(amprt_log_softmax(rt.ctx, x, axis, ly), AMPRT_OK);
    std::vector<double> ry = rt.read(y), rly = rt.read(ly);
    for (size_t i = 0; i < ry.size(); ++i)
      EXPECT_NEAR(std::log(ry[i]), rly[i], 1e-12);
    ASSERT_EQ(amprt_softmax_grad(rt.ctx, dy, y, axis, dx), AMPRT_OK);
    Forward sm = f64Forward(rt, xs, xs, [&](auto *ctx, auto *t, auto *y) {
      amprt_softmax(ctx, t, axis, y);
    });
    fdCheck(sm, xv, r, rt.read(dx), "softmax_grad");
    ASSERT_EQ(amprt_log_softmax_grad(rt.ctx, dy, ly, axis, dx), AMPRT_OK);
    Forward lsm = f64Forward(rt, xs, xs, [&](auto *ctx, auto *t, auto *y) {
      amprt_log_softmax(ctx, t, axis, y);
    });
    fdCheck(lsm, xv, r, rt.read(dx), "log_softmax_grad");
  }

  // Cross-entropy with class indices and with a distribution.
  auto logits = randomValues(12, 15, -2, 2);
  Tensor z = rt.make(AMPRT_F64, {4, 3}, logits);
  Tensor labels = rt.make(AMPRT_I32, {4}, {0, 2, 1, 2});
  Tensor loss = rt.make(AMPRT_F64, {4});
  ASSERT_EQ(amprt_softmax_cross_entropy(rt.ctx, z, labels, loss), AMPRT_OK);
  std::vector<double> rl = rt.read(loss);
  int lab[4] = {0, 2, 1, 2};
  for (int n = 0; n < 4; ++n) {
    double m = std::max({logits[n * 3], logits[n * 3 + 1], logits[n * 3 + 2]});
    double s = 0;
    for (int j = 0; j < 3; ++j)
      s += std::exp(logits[n * 3 + j] - m);
    EXPECT_NEAR(rl[n], m + std::log(s) - logits[n * 3 + lab[n]], 1e-12);
  }
  auto dl = randomValues(4, 16);
  Tensor dloss = rt.make(AMPRT_F64, {4}, dl), dz = rt.make(AMPRT_F64, {4, 3});
  ASSERT_EQ(amprt_softmax_cross_entropy_grad(rt.ctx, dloss, z, labels, dz),
            AMPRT_OK);
  // The loss of `logits` against `target` (indices or probabilities).
  auto lossAgainst = [&](const amprt_tensor *target) {
    return f64Forward(rt, {4, 3}, {4}, [target](auto *ctx, auto *t, auto *y) {
      amprt_softmax_cross_entropy(ctx, t, target, y);
    });
  };
  fdCheck(lossAgainst(labels), logits, dl, rt.read(dz),
          "softmax_cross_entropy_grad");
  Tensor soft = rt.make(AMPRT_F64, {4, 3},
                        {0.2, 0.3, 0.5, 1, 0, 0, 0, 1, 0, 0.1, 0.1, 0.8});
  ASSERT_EQ(amprt_softmax_cross_entropy_grad(rt.ctx, dloss, z, soft, dz),
            AMPRT_OK);
  fdCheck(lossAgainst(soft), logits, dl, rt.read(dz),
          "soft-label cross-entropy grad");
}

// In f32 (as in the 16-bit types, which compute in it) cross-entropy's
// exponentials are f32's and their sum a double: the loss and its gradient
// stay within a few f32 ulps of the exact ones (computed here in double),
// among them logits far below their row's maximum (past the f32
// exponential's floor at -87), for class indices and a distribution.
TEST(RuntimeNN, CrossEntropyInF32MatchesDouble) {
  Runtime rt;
  const int64_t n = 64, c = 256;
  std::vector<double> logits = randomValues(n * c, 41, -8, 8);
  for (int64_t i = 0; i < n; ++i)
    logits[i * c + (i * 7) % c] = -120;
  for (double &v : logits)
    v = (float)v; // what the f32 tensor holds
  std::vector<double> classes(n), soft(n * c, 0.0), dl = randomValues(n, 42);
  for (int64_t i = 0; i < n; ++i) {
    classes[i] = (double)((i * 37) % c);
    soft[i * c + (i * 5) % c] = 0.75;
    soft[i * c + (i * 11 + 1) % c] = 0.25;
  }
  Tensor z = rt.make(AMPRT_F32, {n, c}, logits), loss = rt.make(AMPRT_F32, {n});
  Tensor dloss = rt.make(AMPRT_F32, {n}, dl), dz = rt.make(AMPRT_F32, {n, c});
  Tensor labels = rt.make(AMPRT_I32, {n}, classes);
  Tensor distribution = rt.make(AMPRT_F32, {n, c}, soft);
  for (bool indices : {true, false}) {
    const amprt_tensor *target = indices ? labels : distribution;
    auto t = [&](int64_t i, int64_t j) {
      return indices ? (classes[i] == j ? 1.0 : 0.0) : soft[i * c + j];
    };
    ASSERT_EQ(amprt_softmax_cross_entropy(rt.ctx, z, target, loss), AMPRT_OK);
    ASSERT_EQ(amprt_softmax_cross_entropy_grad(rt.ctx, dloss, z, target, dz),
              AMPRT_OK);
    std::vector<double> gotLoss = rt.read(loss), gotGrad = rt.read(dz);
    for (int64_t i = 0; i < n; ++i) {
      const double *row = logits.data() + i * c;
      double m = *std::max_element(row, row + c), sum = 0;
      for (int64_t j = 0; j < c; ++j)
        sum += std::exp(row[j] - m);
      double lse = m + std::log(sum), want = 0;
      for (int64_t j = 0; j < c; ++j)
        want -= t(i, j) * (row[j] - lse);
      EXPECT_NEAR(gotLoss[i], want, 4e-6 * std::abs(want)) << "example " << i;
      for (int64_t j = 0; j < c; ++j) {
        double grad = dl[i] * (std::exp(row[j] - lse) - t(i, j));
        EXPECT_NEAR(gotGrad[i * c + j], grad, 1e-6 * std::abs(grad) + 1e-30)
            << "example " << i << ", class " << j;
      }
    }
  }
}

} // namespace

// The causal softmax of scores [batch, queries, keys]: query i's row is the
// softmax of its first i + 1 keys, bit for bit (the row cut to them
// through amprt_softmax), and 0 past them, in every float type; queries
// beyond the keys see them all. Rows of 100 keys make 16-bit rows go
// through f32 in blocks of 20 that start inside a batch's queries. Its
// gradient is amprt_softmax_grad's: 0 at the masked keys whatever dy
// holds there.
TEST(RuntimeNN, CausalSoftmaxSeesEachQuerysPrefix) {
  Runtime rt;
  for (amprt_dtype t : {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64})
    for (auto [queries, keys] :
         {std::pair<int64_t, int64_t>{5, 5}, {7, 4}, {100, 100}}) {
      int64_t batch = 3, n = batch * queries * keys;
      Tensor x = rt.make(t, {batch, queries, keys}, randomValues(n, 91, -6, 6)),
             y = rt.make(t, {batch, queries, keys});
      ASSERT_EQ(amprt_causal_softmax(rt.ctx, x, y), AMPRT_OK)
          << amprt_last_error();
      std::vector<double> xv = rt.read(x), yv = rt.read(y);
      for (int64_t row = 0; row < batch * queries; ++row) {
        int64_t seen = std::min(row % queries + 1, keys);
        std::vector<double> prefix(xv.begin() + row * keys,
                                   xv.begin() + row * keys + seen);
        Tensor px = rt.make(t, {1, seen}, prefix), py = rt.make(t, {1, seen});
        ASSERT_EQ(amprt_softmax(rt.ctx, px, -1, py), AMPRT_OK);
        std::vector<double> want = rt.read(py);
        for (int64_t j = 0; j < keys; ++j) {
          double got = yv[row * keys + j];
          std::string where = "dtype " + std::to_string((int)t) + " row " +
                              std::to_string(row) + " key " + std::to_string(j);
          if (j < seen)
            EXPECT_EQ(got, want[j]) << where;
          else
            EXPECT_EQ(got, 0.0) << where;
        }
      }
      Tensor dy =
                 rt.make(t, {batch, queries, keys}, randomValues(n, 92, -1, 1)),
             dx = rt.make(t, {batch, queries, keys});
      ASSERT_EQ(amprt_softmax_grad(rt.ctx, dy, y, -1, dx), AMPRT_OK);
      std::vector<double> dxv = rt.read(dx);
      for (int64_t row = 0; row < batch * queries; ++row)
        for (int64_t j = std::min(row % queries + 1, keys); j < keys; ++j)
          EXPECT_EQ(dxv[row * keys + j], 0.0) << "grad row " << row;
    }
  Tensor flat = rt.make(AMPRT_F32, {4}), out = rt.make(AMPRT_F32, {4});
  EXPECT_EQ(amprt_causal_softmax(rt.ctx, flat, out), AMPRT_ERROR_SHAPE);
  EXPECT_NE(std::string(amprt_last_error()).find("[..., queries, keys]"),
            std::string::npos);
}

// f32 softmax rows of every length through the lane sums' tails (half
// width, scalar), the kept-exponentials limit (64) and beyond, against
// double. Gaps past the f32 exponential's range give
// 0 (the true value is under 2^-125), -inf gives 0, NaN stays NaN.
TEST(RuntimeNN, F32SoftmaxRowsAgainstDouble) {
  Runtime rt;
  // Softmax of `rows` rows of `len` against double; NaN where the double
  // reference is NaN.
  auto check = [&](const std::vector<double> &xv, int64_t rows, int64_t len) {
    Tensor x = rt.make(AMPRT_F32, {rows, len}, xv),
           y = rt.make(AMPRT_F32, {rows, len});
    ASSERT_EQ(amprt_softmax(rt.ctx, x, -1, y), AMPRT_OK);
    std::vector<double> got = rt.read(y), xf = rt.read(x);
    for (int64_t r = 0; r < rows; ++r) {
      double m = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j < len; ++j)
        m = std::max(m, xf[r * len + j]);
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(xf[r * len + j] - m);
      for (int64_t j = 0; j < len; ++j) {
        // x - max is rounded to f32 before its exponential, as in
        // PyTorch: a relative error of up to |x - max| 2^-24 on top of
        // the exponential's ulp and the final rounding.
        double gap = m - xf[r * len + j];
        double want = std::exp(-gap) / sum, value = got[r * len + j];
        std::string where = "length " + std::to_string(len) + " row " +
                            std::to_string(r) + " element " + std::to_string(j);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(value)) << where;
          continue;
        }
        if (std::isinf(gap)) {
          EXPECT_EQ(value, 0.0) << where;
          continue;
        }
        EXPECT_NEAR(value, want, (4e-7 + gap * 0x1p-23) * want + 1e-37)
            << where;
      }
    }
  };
  for (int64_t len : {1, 3, 4, 5, 7, 8, 12, 13, 28, 63, 64, 65, 70}) {
    auto xv = randomValues(3 * len, 40 + len, -12, 12);
    xv[len] = -100; // a gap past -87 in row 1
    if (len > 1) {
      xv[2 * len + 1] = -std::numeric_limits<double>::infinity();
      xv[len + 1] = 40; // row 1's maximum, far above its -100
    }
    check(xv, 3, len);
  }
  // Rows whose maximum the host finds through integer keys: negative
  // maxima, zeros of both signs, infinities, extreme and subnormal values,
  // and a NaN anywhere in the row.
  const double inf = std::numeric_limits<double>::infinity();
  check({-5,    -3,     -9,    -1.5,   -7,    -2,    -8,    -4,    -6, //
         -0.0,  0.0,    -0.0,  -1,     -2,    0.0,   -3,    -0.0,  -4,
         -0.0,  -0.0,   -1,    -0.0,   -5,    -6,    -7,    -8,    -9,
         1,     2,      inf,   3,      4,     5,     6,     7,     8,
         -inf,  -inf,   -inf,  -inf,   -inf,  -inf,  -inf,  -inf,  -inf,
         -1e30, 3e38,   -3e38, 1e30,   0,     1,     -1,    2,     -2,
         1e-40, -1e-40, 0,     -1e-45, 1e-45, 0,     0,     -0.0,  1e-39,
         -3e38, -3e38,  -3e38, -3e38,  -3e38, -3e38, -3e38, -3e38, -2e38},
        8, 9);
  for (int64_t at = 0; at < 9; ++at) {
    std::vector<double> xv = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    xv[at] = NAN;
    check(xv, 1, 9);
  }
}

// Layer norm's dgamma and dbeta fold each column over the rows in chunks of
// 1024 rows (each in row order, in double), the chunks then added in
// order: the CPU turns the loops (blocks of 64 columns) but must keep that
// order, which the device kernels also use. Exact against that order, with
// more than one chunk and more than one block.
TEST(RuntimeNN, LayerNormGradColumnFoldOrder) {
  Runtime rt;
  const int64_t rows = 2100, d = 70;
  auto xv = randomValues(rows * d, 51, -3, 3), dyv = randomValues(rows * d, 52);
  auto gv = randomValues(d, 53, 0.5, 1.5);
  Tensor x = rt.make(AMPRT_F32, {rows, d}, xv),
         dy = rt.make(AMPRT_F32, {rows, d}, dyv),
         g = rt.make(AMPRT_F32, {d}, gv), b = rt.make(AMPRT_F32, {d}),
         y = rt.make(AMPRT_F32, {rows, d}), mean = rt.make(AMPRT_F32, {rows}),
         is = rt.make(AMPRT_F32, {rows}), dx = rt.make(AMPRT_F32, {rows, d}),
         dg = rt.make(AMPRT_F32, {d}), db = rt.make(AMPRT_F32, {d});
  ASSERT_EQ(amprt_layer_norm(rt.ctx, x, g, b, 1e-5, y, mean, is), AMPRT_OK);
  ASSERT_EQ(amprt_layer_norm_grad(rt.ctx, dy, x, g, mean, is, dx, dg, db),
            AMPRT_OK);
  std::vector<double> xs = rt.read(x), dys = rt.read(dy), mu = rt.read(mean),
                      inv = rt.read(is), gotG = rt.read(dg), gotB = rt.read(db);
  for (int64_t j = 0; j < d; ++j) {
    double wantG = 0, wantB = 0;
    for (int64_t c0 = 0; c0 < rows; c0 += 1024) {
      double partG = 0, partB = 0;
      for (int64_t r = c0; r < std::min(rows, c0 + 1024); ++r) {
        double off = r * d + j;
        partG += dys[off] * ((xs[off] - mu[r]) * inv[r]);
        partB += dys[off];
      }
      wantG += partG;
      wantB += partB;
    }
    EXPECT_EQ(gotG[j], (double)(float)wantG) << "dgamma column " << j;
    EXPECT_EQ(gotB[j], (double)(float)wantB) << "dbeta column " << j;
  }
}

// amprt_bias_add_grad sums a 16-bit dy into an f32 db (the lowering folds
// the widening cast of a gradient into its bias gradient): the bits of the
// bias gradient of the widened dy, over both layouts and tensors large
// enough for several blocks of partial sums.
TEST(RuntimeNN, BiasAddGradSumsSixteenBitDataIntoF32) {
  Runtime rt;
  // 16 and 32 channels last take the sums' register path (sumChannelsLast);
  // 768 is a transformer's rows, several widened a block at a time.
  for (amprt_dtype dtype : {AMPRT_F16, AMPRT_BF16})
    for (amprt_layout layout : {AMPRT_NHWC, AMPRT_NCHW})
      for (int64_t c : {21, 16, 32, 768}) {
        int64_t n = c > 32 ? 3 : 64;
        Shape xs =
            layout == AMPRT_NHWC ? Shape{n, 29, 17, c} : Shape{n, c, 29, 17};
        Tensor dy = rt.make(dtype, xs, randomValues(numel(xs), 81, -3, 3));
        Tensor wide = rt.make(AMPRT_F32, xs), db = rt.make(AMPRT_F32, {c}),
               want = rt.make(AMPRT_F32, {c});
        ASSERT_EQ(amprt_cast(rt.ctx, dy, wide), AMPRT_OK);
        ASSERT_EQ(amprt_bias_add_grad(rt.ctx, dy, layout, db), AMPRT_OK)
            << amprt_last_error();
        ASSERT_EQ(amprt_bias_add_grad(rt.ctx, wide, layout, want), AMPRT_OK);
        EXPECT_EQ(rt.read(db), rt.read(want))
            << "dtype " << dtype << " layout " << layout << " channels " << c;
      }
}

// f32, f16 and bf16 max pooling run on 16-channel vectors
// (cpu/MaxPoolLanes.h), 16-bit data converted in registers instead of on an
// f32 copy of the tensors. f32 must give the values of the scalar f64 code,
// and 16-bit data the bits of the f32 pool of the widened input, narrowed
// (likewise the gradients). Over channel counts below, at and past a
// vector, tiled and overlapping windows, and bits that stress the
// comparisons: ties, zeros of both signs, NaNs of several payloads
// (signalling ones too), infinities and subnormals. NaNs match in sign
// only: the runtime's scalar conversions (the tails of its bulk casts)
// drop payloads.
void expectPoolLanesGiveTheScalarBits(amprt_dtype dtype) {
  Runtime rt;
  bool bf16 = dtype == AMPRT_BF16;
  auto toBits = [&](double v) { return bf16 ? toBf16(v) : toHalf(v); };
  auto halves = [&](const Tensor &t) {
    std::vector<uint16_t> bits(amprt_tensor_numel(t));
    EXPECT_EQ(amprt_tensor_read(t, bits.data(), bits.size() * 2), AMPRT_OK);
    return bits;
  };
  auto expectSameHalves = [&](const std::vector<uint16_t> &got,
                              const std::vector<uint16_t> &want,
                              const std::string &what) {
    auto isNaN = [&](uint16_t h) {
      return (h & 0x7FFF) > (bf16 ? 0x7F80 : 0x7C00);
    };
    for (size_t i = 0; i < got.size(); ++i)
      if (isNaN(got[i]) && isNaN(want[i]) ? (got[i] ^ want[i]) & 0x8000
                                          : got[i] != want[i]) {
        ADD_FAILURE() << what << ", element " << i << ": 0x" << std::hex
                      << got[i] << " vs 0x" << want[i];
        return;
      }
  };
  auto expectSameValues = [&](const Tensor &got, const Tensor &want,
                              const std::string &what) {
    std::vector<double> g = rt.read(got), w = rt.read(want);
    for (size_t i = 0; i < g.size(); ++i)
      if (std::isnan(g[i]) && std::isnan(w[i])
              ? std::signbit(g[i]) != std::signbit(w[i])
              : g[i] != w[i] || std::signbit(g[i]) != std::signbit(w[i])) {
        ADD_FAILURE() << what << ", element " << i << ": " << g[i] << " vs "
                      << w[i];
        return;
      }
  };
  auto narrowed = [&](const Tensor &wide, const Shape &shape) {
    Tensor t = rt.make(dtype, shape);
    EXPECT_EQ(amprt_cast(rt.ctx, wide, t), AMPRT_OK);
    return halves(t);
  };
  // Zeros, infinities, quiet and signalling NaNs with payloads, the
  // smallest subnormals and the largest finite values.
  const std::vector<uint16_t> kSpecial =
      bf16 ? std::vector<uint16_t>{0x0000, 0x8000, 0x7F80, 0xFF80,
                                   0x7FC0, 0xFFC1, 0x7FA3, 0x7F81,
                                   0x0001, 0x807F, 0x7F7F, 0xFF7F}
           : std::vector<uint16_t>{0x0000, 0x8000, 0x7C00, 0xFC00,
                                   0x7E00, 0xFE01, 0x7D23, 0x7C01,
                                   0x0001, 0x83FF, 0x7BFF, 0xFBFF};
  struct Window {
    int64_t size, stride, pad;
  };
  std::mt19937 rng(71);
  for (int64_t c : {3, 16, 37})
    for (Window win : {Window{2, 2, 0}, Window{3, 2, 1}})
      for (int64_t side : {8, 9}) {
        int64_t window[2] = {win.size, win.size},
                strides[2] = {win.stride, win.stride},
                padding[4] = {win.pad, win.pad, win.pad, win.pad};
        int64_t o = (side + 2 * win.pad - win.size) / win.stride + 1;
        Shape xs{3, side, side, c}, ys{3, o, o, c};
        std::vector<uint16_t> xbits(numel(xs));
        for (uint16_t &b : xbits) {
          unsigned r = rng() % 16;
          b = r < 4 ? kSpecial[rng() % kSpecial.size()]
                    : toBits(std::round(std::ldexp(int(rng() % 9) - 4.0,
                                                   int(rng() % 3) - 1)));
        }
        Tensor x16 = rt.make(dtype, xs), y16 = rt.make(dtype, ys),
               x32 = rt.make(AMPRT_F32, xs), y32 = rt.make(AMPRT_F32, ys);
        ASSERT_EQ(amprt_tensor_write(x16, xbits.data(), xbits.size() * 2),
                  AMPRT_OK);
        ASSERT_EQ(amprt_cast(rt.ctx, x16, x32), AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d(rt.ctx, x16, window, strides, padding,
                                   AMPRT_NHWC, y16),
                  AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d(rt.ctx, x32, window, strides, padding,
                                   AMPRT_NHWC, y32),
                  AMPRT_OK);
        std::string where = "c " + std::to_string(c) + " window " +
                            std::to_string(win.size) + " side " +
                            std::to_string(side);
        Tensor x64 = rt.make(AMPRT_F64, xs), y64 = rt.make(AMPRT_F64, ys);
        ASSERT_EQ(amprt_cast(rt.ctx, x32, x64), AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d(rt.ctx, x64, window, strides, padding,
                                   AMPRT_NHWC, y64),
                  AMPRT_OK);
        expectSameValues(y32, y64, "f32 max_pool2d " + where);
        expectSameHalves(halves(y16), narrowed(y32, ys), "max_pool2d " + where);

        std::vector<uint16_t> dybits(numel(ys));
        for (uint16_t &b : dybits)
          b = rng() % 8 == 0 ? kSpecial[rng() % kSpecial.size()]
                             : toBits(std::ldexp(int(rng() % 64) - 32.0, -4));
        Tensor dy16 = rt.make(dtype, ys), dy32 = rt.make(AMPRT_F32, ys),
               dx16 = rt.make(dtype, xs), dx32 = rt.make(AMPRT_F32, xs);
        ASSERT_EQ(amprt_tensor_write(dy16, dybits.data(), dybits.size() * 2),
                  AMPRT_OK);
        ASSERT_EQ(amprt_cast(rt.ctx, dy16, dy32), AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d_grad(rt.ctx, dy16, x16, y16, window, strides,
                                        padding, AMPRT_NHWC, dx16),
                  AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d_grad(rt.ctx, dy32, x32, y32, window, strides,
                                        padding, AMPRT_NHWC, dx32),
                  AMPRT_OK);
        Tensor dy64 = rt.make(AMPRT_F64, ys), dx64 = rt.make(AMPRT_F64, xs);
        ASSERT_EQ(amprt_cast(rt.ctx, dy32, dy64), AMPRT_OK);
        ASSERT_EQ(amprt_max_pool2d_grad(rt.ctx, dy64, x64, y64, window, strides,
                                        padding, AMPRT_NHWC, dx64),
                  AMPRT_OK);
        // Overlapping windows sum gradients, in f32 and f64 respectively.
        if (win.size == win.stride)
          expectSameValues(dx32, dx64, "f32 max_pool2d_grad " + where);
        expectSameHalves(halves(dx16), narrowed(dx32, xs),
                         "max_pool2d_grad " + where);
      }
}

TEST(RuntimeNN, MaxPoolLanesGiveTheScalarBits) {
  expectPoolLanesGiveTheScalarBits(AMPRT_F16);
  expectPoolLanesGiveTheScalarBits(AMPRT_BF16);
}

// Max-pool gradients over windows that tile the image (2x2, stride 2, no
// padding) write each window's positions outright: dy at the window's first
// maximum in (ky, kx) order, 0 elsewhere. Exact against that rule in every
// storage type, with ties, a NaN window and -0.0 gradients; the same rule
// as the general path, which an image one row and column larger takes.
TEST(RuntimeNN, TiledMaxPoolGradRoutesToTheFirstMaximum) {
  Runtime rt;
  int64_t window[2] = {2, 2}, strides[2] = {2, 2}, padding[4] = {0, 0, 0, 0};
  for (int64_t side : {4, 5})
    for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16, AMPRT_BF16, AMPRT_F64}) {
      const int64_t n = 2, c = 3, o = side / 2;
      Shape xs{n, side, side, c}, ys{n, o, o, c};
      auto xv = randomValues(numel(xs), 61, -4, 4);
      for (double &v : xv) // coarse values: many ties
        v = std::round(v);
      xv[0] = NAN; // image 0, channel 0: window (0, 0) holds a NaN
      auto dyv = randomValues(numel(ys), 62);
      dyv[1] = -0.0;
      Tensor x = rt.make(dtype, xs, xv), y = rt.make(dtype, ys),
             dy = rt.make(dtype, ys, dyv), dx = rt.make(dtype, xs);
      ASSERT_EQ(
          amprt_max_pool2d(rt.ctx, x, window, strides, padding, AMPRT_NHWC, y),
          AMPRT_OK);
      ASSERT_EQ(amprt_max_pool2d_grad(rt.ctx, dy, x, y, window, strides,
                                      padding, AMPRT_NHWC, dx),
                AMPRT_OK)
          << amprt_last_error();
      std::vector<double> xr = rt.read(x), yr = rt.read(y), dyr = rt.read(dy),
                          got = rt.read(dx), want(xr.size(), 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t oy = 0; oy < o; ++oy)
          for (int64_t ox = 0; ox < o; ++ox)
            for (int64_t ch = 0; ch < c; ++ch) {
              int64_t out = ((i * o + oy) * o + ox) * c + ch;
              double t = yr[out];
              for (int64_t k = 0; k < 4; ++k) {
                int64_t at =
                    ((i * side + 2 * oy + k / 2) * side + 2 * ox + k % 2) * c +
                    ch;
                if (xr[at] == t || (std::isnan(t) && std::isnan(xr[at]))) {
                  want[at] = 0.0 + dyr[out];
                  break;
                }
              }
            }
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i], want[i])
            << "side " << side << " dtype " << dtype << " element " << i;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i;
      }
    }
}
