//===- AttentionEdgesTest.cpp - Attention at the edges of its input -------===//
//
// amprt_attention and amprt_attention_grad on what a caller may hand them
// besides ordinary heads, on the CPU's fused heads (f32, bf16) and the
// unfused ops (f64): dimensions of size 0 (heads 0 wide give the mean of
// the values seen; no values or no queries leave zero gradients), results
// with no element over however many heads, views that repeat one element
// into sizes no buffer can hold (refused as out of memory, not an abort),
// and a non-finite query, which must stay in its own row.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace amprt_test;

namespace {

const amprt_dtype kTypes[] = {AMPRT_F32, AMPRT_BF16, AMPRT_F64};

double toleranceOf(amprt_dtype dtype) {
  return dtype == AMPRT_BF16 ? 2e-2 : 1e-6;
}

/// A view of one repeated element (stride 0 everywhere) of `shape`.
std::vector<int64_t> repeated(Shape shape) {
  return view(0, shape, Shape(shape.size(), 0));
}

/// The keys query i sees among tk.
int64_t seenBy(int64_t i, int64_t tk, bool causal) {
  return causal ? std::min(i + 1, tk) : tk;
}

// Heads 0 wide score every key 0: each query's probabilities are uniform
// over the keys it sees, o its mean of their values, dv the gradient
// spread back over them; dq and dk have no elements.
TEST(RuntimeAttentionEdges, ZeroWidthHeadsAverageTheValuesSeen) {
  Runtime rt;
  const int64_t tq = 4, tk = 5, e = 2;
  std::vector<double> values(tk * e), grads(tq * e);
  for (int64_t i = 0; i < tk * e; ++i)
    values[i] = double(i + 1);
  for (int64_t i = 0; i < tq * e; ++i)
    grads[i] = i % e ? 2.0 : 1.0;
  for (amprt_dtype dtype : kTypes)
    for (bool causal : {false, true}) {
      std::string what = std::string(amprt::dtypeName(dtype)) +
                         (causal ? " causal" : " not causal");
      // dq and dk name no element of q's and k's tensor (one tensor for
      // all four): nothing is read or written there, so nothing is shared.
      Tensor one = rt.make(dtype, {1}, {1.0}),
             v = rt.make(dtype, {tk, e}, values),
             dO = rt.make(dtype, {tq, e}, grads), o = rt.make(dtype, {tq, e}),
             dv = rt.make(dtype, {tk, e});
      auto qv = repeated({1, tq, 0}), kv = repeated({1, tk, 0});
      auto vv = view(0, {1, tk, e}, {0, e, 1}),
           ov = view(0, {1, tq, e}, {0, e, 1});
      ASSERT_EQ(amprt_attention(rt.ctx, 3, causal, 1.0, one, qv.data(), one,
                                kv.data(), v, vv.data(), o, ov.data()),
                AMPRT_OK)
          << what << ": " << amprt_last_error();
      ASSERT_EQ(amprt_attention_grad(rt.ctx, 3, causal, 1.0, one, qv.data(),
                                     one, kv.data(), v, vv.data(), dO,
                                     ov.data(), one, qv.data(), one, kv.data(),
                                     dv, vv.data()),
                AMPRT_OK)
          << what << ": " << amprt_last_error();
      std::vector<double> wantO(tq * e, 0), wantDv(tk * e, 0);
      for (int64_t i = 0; i < tq; ++i) {
        int64_t seen = seenBy(i, tk, causal);
        for (int64_t j = 0; j < seen; ++j)
          for (int64_t c = 0; c < e; ++c) {
            wantO[i * e + c] += values[j * e + c] / seen;
            wantDv[j * e + c] += grads[i * e + c] / seen;
          }
      }
      expectNear(rt.read(o), wantO, toleranceOf(dtype), ("o " + what).c_str());
      expectNear(rt.read(dv), wantDv, toleranceOf(dtype),
                 ("dv " + what).c_str());
    }
}

// No values (e = 0) leave o nothing to hold and the scores no gradient,
// exactly 0 even where a key is infinite; no queries (tq = 0) leave k and
// v none. The zeros are written; the results with no elements are not
// touched.
TEST(RuntimeAttentionEdges, NoValuesOrNoQueriesGiveZeroGradients) {
  Runtime rt;
  std::vector<double> keys = randomValues(15, 2);
  keys[4] = INFINITY;
  for (amprt_dtype dtype : kTypes) {
    std::string what = amprt::dtypeName(dtype);
    Tensor q = rt.make(dtype, {4, 3}, randomValues(12, 1)),
           k = rt.make(dtype, {5, 3}, keys), one = rt.make(dtype, {1}, {1.0});
    auto qv = view(0, {1, 4, 3}, {0, 3, 1}), kv = view(0, {1, 5, 3}, {0, 3, 1});
    auto noValues = repeated({1, 5, 0}), noOutput = repeated({1, 4, 0});
    // v, grad_o and grad_v are one tensor none of their views reaches.
    Tensor o = rt.make(dtype, {1}, {7.0}), dq = rt.make(dtype, {4, 3}),
           dk = rt.make(dtype, {5, 3});
    rt.write(dq, std::vector<double>(12, 7.0));
    rt.write(dk, std::vector<double>(15, 7.0));
    ASSERT_EQ(amprt_attention(rt.ctx, 3, 1, 0.5, q, qv.data(), k, kv.data(),
                              one, noValues.data(), o, noOutput.data()),
              AMPRT_OK)
        << what << ": " << amprt_last_error();
    ASSERT_EQ(amprt_attention_grad(rt.ctx, 3, 1, 0.5, q, qv.data(), k,
                                   kv.data(), one, noValues.data(), one,
                                   noOutput.data(), dq, qv.data(), dk,
                                   kv.data(), one, noValues.data()),
              AMPRT_OK)
        << what << ": " << amprt_last_error();
    EXPECT_EQ(rt.read(o), std::vector<double>{7.0}) << what;
    EXPECT_EQ(rt.read(dq), std::vector<double>(12, 0.0)) << what;
    EXPECT_EQ(rt.read(dk), std::vector<double>(15, 0.0)) << what;
    EXPECT_EQ(rt.read(one), std::vector<double>{1.0}) << what;

    rt.write(k, randomValues(15, 2));
    Tensor v = rt.make(dtype, {5, 2}, randomValues(10, 3)),
           dv2 = rt.make(dtype, {5, 2});
    rt.write(dk, std::vector<double>(15, 7.0));
    rt.write(dv2, std::vector<double>(10, 7.0));
    auto noQueries = repeated({1, 0, 3}), noGrads = repeated({1, 0, 2}),
         vv = view(0, {1, 5, 2}, {0, 2, 1});
    ASSERT_EQ(amprt_attention_grad(rt.ctx, 3, 0, 1.0, one, noQueries.data(), k,
                                   kv.data(), v, vv.data(), one, noGrads.data(),
                                   one, noQueries.data(), dk, kv.data(), dv2,
                                   vv.data()),
              AMPRT_OK)
        << what << ": " << amprt_last_error();
    EXPECT_EQ(rt.read(dk), std::vector<double>(15, 0.0)) << what;
    EXPECT_EQ(rt.read(dv2), std::vector<double>(10, 0.0)) << what;
  }
}

// 2^40 heads of one repeated element: with nothing to write the calls
// return at once (they ran through every head before).
TEST(RuntimeAttentionEdges, EmptyResultsAreNoWorkOverAnyHeads) {
  Runtime rt;
  const int64_t heads = int64_t(1) << 40;
  for (amprt_dtype dtype : kTypes) {
    Tensor x = rt.make(dtype, {1}, {1.0}), y = rt.make(dtype, {1}, {7.0});
    auto q = repeated({heads, 1, 1}), k = repeated({heads, 64, 1}),
         v = repeated({heads, 64, 0}), o = repeated({heads, 1, 0});
    EXPECT_EQ(amprt_attention(rt.ctx, 3, 0, 1.0, x, q.data(), x, k.data(), x,
                              v.data(), y, o.data()),
              AMPRT_OK)
        << amprt_last_error();
    auto q0 = repeated({heads, 1, 0}), k0 = repeated({heads, 64, 0});
    EXPECT_EQ(amprt_attention_grad(rt.ctx, 3, 1, 1.0, x, q0.data(), x,
                                   k0.data(), x, v.data(), x, o.data(), y,
                                   q0.data(), y, k0.data(), y, v.data()),
              AMPRT_OK)
        << amprt_last_error();
    EXPECT_EQ(rt.read(y), std::vector<double>{7.0});
  }
}

// A repeated element makes keys and widths as large as int64 holds: the
// heads' buffers (or the unfused scores) cannot be allocated, which is a
// status, never an exception through the C API.
TEST(RuntimeAttentionEdges, ViewsNoBufferCanHoldAreRefused) {
  Runtime rt;
  const int64_t many = int64_t(1) << 40, wide = INT64_MAX - 5;
  for (amprt_dtype dtype : kTypes) {
    Tensor x = rt.make(dtype, {1}, {1.0}), o = rt.make(dtype, {1});
    auto one = repeated({1, 1, 1}), keys = repeated({1, many, 1}),
         wideRow = repeated({1, 1, wide}),
         dense = view(0, {1, 1, 1}, {1, 1, 1});
    EXPECT_EQ(amprt_attention(rt.ctx, 3, 0, 1.0, x, one.data(), x, keys.data(),
                              x, keys.data(), o, dense.data()),
              AMPRT_ERROR_OUT_OF_MEMORY)
        << amprt::dtypeName(dtype) << ": " << amprt_last_error();
    EXPECT_EQ(amprt_attention(rt.ctx, 3, 0, 1.0, x, wideRow.data(), x,
                              wideRow.data(), x, one.data(), o, dense.data()),
              AMPRT_ERROR_OUT_OF_MEMORY)
        << amprt::dtypeName(dtype) << ": " << amprt_last_error();
  }
}

// A NaN query makes its own row of o and dq NaN and no other, and reaches
// no key it does not see through dv (its probabilities past them are 0).
// dk is NaN on every path: each key's gradient sums over every row's
// score gradient, the NaN row's included.
TEST(RuntimeAttentionEdges, ANaNQueryStaysInItsRow) {
  Runtime rt;
  const int64_t t = 4, d = 4;
  std::vector<double> qs = randomValues(t * d, 5),
                      rest = randomValues(t * d, 6);
  for (int64_t c = 0; c < d; ++c)
    qs[1 * d + c] = NAN;
  for (amprt_dtype dtype : kTypes) {
    std::string what = amprt::dtypeName(dtype);
    Tensor q = rt.make(dtype, {t, d}, qs), k = rt.make(dtype, {t, d}, rest),
           v = rt.make(dtype, {t, d}, rest), dO = rt.make(dtype, {t, d}, rest),
           o = rt.make(dtype, {t, d}), dq = rt.make(dtype, {t, d}),
           dk = rt.make(dtype, {t, d}), dv = rt.make(dtype, {t, d});
    auto w = view(0, {1, t, d}, {0, d, 1});
    ASSERT_EQ(amprt_attention(rt.ctx, 3, 1, 0.5, q, w.data(), k, w.data(), v,
                              w.data(), o, w.data()),
              AMPRT_OK);
    ASSERT_EQ(amprt_attention_grad(rt.ctx, 3, 1, 0.5, q, w.data(), k, w.data(),
                                   v, w.data(), dO, w.data(), dq, w.data(), dk,
                                   w.data(), dv, w.data()),
              AMPRT_OK);
    std::vector<double> os = rt.read(o), dqs = rt.read(dq), dvs = rt.read(dv);
    for (int64_t i = 0; i < t; ++i)
      for (int64_t c = 0; c < d; ++c) {
        EXPECT_EQ(std::isnan(os[i * d + c]), i == 1) << what << " o " << i;
        EXPECT_EQ(std::isnan(dqs[i * d + c]), i == 1) << what << " dq " << i;
        // Query 1 sees keys 0 and 1.
        EXPECT_EQ(std::isnan(dvs[i * d + c]), i <= 1) << what << " dv " << i;
      }
  }
}

} // namespace
