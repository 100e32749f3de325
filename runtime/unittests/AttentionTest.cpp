//===- AttentionTest.cpp - softmax(q k^T) v and its gradients in one call -===//
//
// amprt_attention and amprt_attention_grad against the same arithmetic in
// f64 on the values the tensors hold: heads read where a fused q/k/v
// projection wrote them and results written [batch, tokens, heads, width],
// causal or not, 37 queries (past one block of 32, odd for bf16 pairs),
// head widths 16 and 5 (odd: a bf16 pair padded), scores scaled or not.
// f32, f16 and bf16 run the
// CPU's fused heads (bf16 in pairs on AVX-512 BF16 unless
// ONEDNN_MAX_CPU_ISA caps it); f64 runs the unfused ops.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace amprt_test;

namespace {

constexpr int64_t kB = 2, kH = 3;

struct Case {
  int64_t tq, tk, d;
  bool causal;
  double scale = 1;
};

/// Heads [kB, kH, t, d] of a [kB * t, columns] tensor from column `first`.
std::vector<int64_t> heads(int64_t t, int64_t d, int64_t columns,
                           int64_t first) {
  return view(first, {kB, kH, t, d}, {t * columns, d, columns, 1});
}

/// Element (b, h, i, c) of heads stored as `heads` says, from `values`.
struct HeadValues {
  const std::vector<double> &values;
  int64_t t, d, columns, first;
  double at(int64_t b, int64_t h, int64_t i, int64_t c) const {
    return values[(b * t + i) * columns + first + h * d + c];
  }
};

/// o, dq, dk, dv as f64 from q, k, v, do (all [kB, kH, t, d] indexable).
struct Reference {
  std::vector<double> o, dq, dk, dv; // [kB, kH, t, d] dense
};

Reference reference(const Case &c, const HeadValues &q, const HeadValues &k,
                    const HeadValues &v, const HeadValues &dO) {
  Reference r;
  double scale = float(c.scale); // as the runtime rounds it
  r.o.assign(kB * kH * c.tq * c.d, 0);
  r.dq = r.o;
  r.dk.assign(kB * kH * c.tk * c.d, 0);
  r.dv = r.dk;
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h) {
      int64_t hq = (b * kH + h) * c.tq * c.d, hk = (b * kH + h) * c.tk * c.d;
      for (int64_t i = 0; i < c.tq; ++i) {
        int64_t seen = c.causal ? std::min(i + 1, c.tk) : c.tk;
        std::vector<double> p(seen), dp(seen);
        double m = -INFINITY, sum = 0, dot = 0;
        for (int64_t j = 0; j < seen; ++j) {
          for (int64_t x = 0; x < c.d; ++x)
            p[j] += q.at(b, h, i, x) * k.at(b, h, j, x);
          p[j] *= scale;
          m = std::max(m, p[j]);
        }
        for (int64_t j = 0; j < seen; ++j)
          sum += p[j] = std::exp(p[j] - m);
        for (int64_t j = 0; j < seen; ++j) {
          p[j] /= sum;
          for (int64_t x = 0; x < c.d; ++x) {
            r.o[hq + i * c.d + x] += p[j] * v.at(b, h, j, x);
            dp[j] += dO.at(b, h, i, x) * v.at(b, h, j, x);
          }
          dot += p[j] * dp[j];
        }
        for (int64_t j = 0; j < seen; ++j) {
          double ds = scale * p[j] * (dp[j] - dot);
          for (int64_t x = 0; x < c.d; ++x) {
            r.dq[hq + i * c.d + x] += ds * k.at(b, h, j, x);
            r.dk[hk + j * c.d + x] += ds * q.at(b, h, i, x);
            r.dv[hk + j * c.d + x] += p[j] * dO.at(b, h, i, x);
          }
        }
      }
    }
  return r;
}

/// Tolerances against the largest reference element: the fused heads
/// round probabilities (and bf16 score gradients) to the operands' type.
double toleranceFor(amprt_dtype dtype) {
  switch (dtype) {
  case AMPRT_F64:
    return 1e-10;
  case AMPRT_F32:
    return 2e-5;
  case AMPRT_F16:
    return 4e-3;
  default:
    return 3e-2;
  }
}

/// got (heads stored as `layout` says) against want ([kB, kH, t, d]).
void expectNear(const std::vector<double> &got, const HeadValues &layout,
                const std::vector<double> &want, double tol,
                const std::string &what) {
  double scale = 0;
  for (double w : want)
    scale = std::max(scale, std::fabs(w));
  HeadValues g{got, layout.t, layout.d, layout.columns, layout.first};
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t i = 0; i < layout.t; ++i)
        for (int64_t x = 0; x < layout.d; ++x) {
          double w = want[((b * kH + h) * layout.t + i) * layout.d + x];
          if (!(std::fabs(g.at(b, h, i, x) - w) <= tol * scale)) {
            ADD_FAILURE() << what << " (" << b << ", " << h << ", " << i << ", "
                          << x << "): " << g.at(b, h, i, x) << " vs " << w
                          << " (scale " << scale << ")";
            return;
          }
        }
}

void runCase(amprt_dtype dtype, const Case &c) {
  Runtime rt;
  std::string at = std::string(" ") + amprt::dtypeName(dtype) + " tq " +
                   std::to_string(c.tq) + " tk " + std::to_string(c.tk) +
                   " d " + std::to_string(c.d) + (c.causal ? " causal" : "") +
                   " scale " + std::to_string(c.scale);
  int64_t hd = kH * c.d;
  // q from a [kB * tq, hd] tensor; k and v side by side in [kB * tk, 2hd].
  Tensor q = rt.make(dtype, {kB * c.tq, hd}, randomValues(kB * c.tq * hd, 41));
  Tensor kv =
      rt.make(dtype, {kB * c.tk, 2 * hd}, randomValues(kB * c.tk * 2 * hd, 42));
  Tensor dO = rt.make(dtype, {kB, kH, c.tq, c.d},
                      randomValues(kB * kH * c.tq * c.d, 43));
  Tensor o = rt.make(dtype, {kB * c.tq, hd}),
         dq = rt.make(dtype, {kB * c.tq, hd}),
         dk = rt.make(dtype, {kB * c.tk, hd}),
         dv = rt.make(dtype, {kB * c.tk, hd});
  auto qv = heads(c.tq, c.d, hd, 0), kvw = heads(c.tk, c.d, 2 * hd, 0),
       vv = heads(c.tk, c.d, 2 * hd, hd), ov = heads(c.tq, c.d, hd, 0),
       kOut = heads(c.tk, c.d, hd, 0),
       dOv =
           view(0, {kB, kH, c.tq, c.d}, {kH * c.tq * c.d, c.tq * c.d, c.d, 1});
  ASSERT_EQ(amprt_attention(rt.ctx, 4, c.causal, c.scale, q, qv.data(), kv,
                            kvw.data(), kv, vv.data(), o, ov.data()),
            AMPRT_OK)
      << amprt_last_error() << at;
  ASSERT_EQ(amprt_attention_grad(rt.ctx, 4, c.causal, c.scale, q, qv.data(), kv,
                                 kvw.data(), kv, vv.data(), dO, dOv.data(), dq,
                                 qv.data(), dk, kOut.data(), dv, kOut.data()),
            AMPRT_OK)
      << amprt_last_error() << at;
  std::vector<double> qs = rt.read(q), kvs = rt.read(kv), dOs = rt.read(dO);
  HeadValues hq{qs, c.tq, c.d, hd, 0}, hk{kvs, c.tk, c.d, 2 * hd, 0},
      hv{kvs, c.tk, c.d, 2 * hd, hd};
  // do is dense [kB, kH, tq, d]: laid out as the other heads for reference.
  struct DenseAt {
    const std::vector<double> &v;
    int64_t t, d;
    double at(int64_t b, int64_t h, int64_t i, int64_t x) const {
      return v[((b * kH + h) * t + i) * d + x];
    }
  };
  std::vector<double> dORows(kB * c.tq * hd);
  DenseAt dense{dOs, c.tq, c.d};
  for (int64_t b = 0; b < kB; ++b)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t i = 0; i < c.tq; ++i)
        for (int64_t x = 0; x < c.d; ++x)
          dORows[(b * c.tq + i) * hd + h * c.d + x] = dense.at(b, h, i, x);
  HeadValues hdoRows{dORows, c.tq, c.d, hd, 0};
  Reference want = reference(c, hq, hk, hv, hdoRows);
  double tol = toleranceFor(dtype);
  HeadValues qLayout{qs, c.tq, c.d, hd, 0}, kLayout{qs, c.tk, c.d, hd, 0};
  expectNear(rt.read(o), qLayout, want.o, tol, "o" + at);
  expectNear(rt.read(dq), qLayout, want.dq, tol, "dq" + at);
  expectNear(rt.read(dk), kLayout, want.dk, tol, "dk" + at);
  expectNear(rt.read(dv), kLayout, want.dv, tol, "dv" + at);
}

TEST(RuntimeAttention, MatchesSoftmaxOfScoresTimesValuesAndItsGradients) {
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_BF16, AMPRT_F16, AMPRT_F64})
    for (Case c :
         {Case{37, 37, 16, true}, Case{37, 37, 5, true},
          Case{37, 37, 16, false}, Case{3, 40, 16, false}, Case{40, 3, 5, true},
          Case{37, 37, 16, true, 0.25}, Case{37, 37, 5, false, 2.7},
          Case{40, 3, 5, true, -0.6}, Case{37, 37, 16, false, 0}})
      runCase(dtype, c);
}

TEST(RuntimeAttention, RefusesMismatchedOrOverlappingViews) {
  Runtime rt;
  Tensor x = rt.make(AMPRT_F32, {2, 3, 4, 8}, randomValues(192, 7));
  Tensor o = rt.make(AMPRT_F32, {2, 3, 4, 8});
  auto dense = view(0, {2, 3, 4, 8}, {96, 32, 8, 1});
  auto narrow = view(0, {2, 3, 4, 6}, {96, 32, 8, 1});
  auto noKeys = view(0, {2, 3, 0, 8}, {96, 32, 8, 1});
  EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, 1.0, x, dense.data(), x,
                            narrow.data(), x, dense.data(), o, dense.data()),
            AMPRT_ERROR_SHAPE);
  EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, 1.0, x, dense.data(), x,
                            noKeys.data(), x, noKeys.data(), o, dense.data()),
            AMPRT_ERROR_SHAPE);
  EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, 1.0, x, dense.data(), x, dense.data(),
                            x, dense.data(), x, dense.data()),
            AMPRT_ERROR_INVALID_ARGUMENT);
  auto repeated = view(0, {2, 3, 4, 8}, {96, 32, 0, 1});
  EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, 1.0, x, dense.data(), x, dense.data(),
                            x, dense.data(), o, repeated.data()),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_attention(rt.ctx, 2, 1, 1.0, x, dense.data(), x, dense.data(),
                            x, dense.data(), o, dense.data()),
            AMPRT_ERROR_INVALID_ARGUMENT);
  // A scale that is not finite in f32 would make every probability NaN.
  for (double scale : {(double)NAN, (double)INFINITY, 1e300}) {
    EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, scale, x, dense.data(), x,
                              dense.data(), x, dense.data(), o, dense.data()),
              AMPRT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(amprt_attention_grad(rt.ctx, 4, 0, scale, x, dense.data(), x,
                                   dense.data(), x, dense.data(), x,
                                   dense.data(), o, dense.data(), o,
                                   dense.data(), o, dense.data()),
              AMPRT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(amprt_last_error()).find("scale must be finite"),
              std::string::npos)
        << amprt_last_error();
  }
  Tensor o16 = rt.make(AMPRT_F16, {2, 3, 4, 8});
  EXPECT_EQ(amprt_attention(rt.ctx, 4, 1, 1.0, x, dense.data(), x, dense.data(),
                            x, dense.data(), o16, dense.data()),
            AMPRT_ERROR_DTYPE);
}

} // namespace
