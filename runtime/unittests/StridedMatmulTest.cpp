//===- StridedMatmulTest.cpp - Batched products of strided views ----------===//
//
// amprt_batch_matmul_strided reads attention's heads where a projection
// wrote them ([batch, tokens, heads, width], or a column block of the
// fused q/k/v result) and writes its result where the next projection
// reads it. Each product must be that of transposing (slicing) first,
// amprt_batch_matmul, and transposing back: bit for bit where the views
// are copied (f16, f64), within the product's rounding where oneDNN takes
// the views (f32, bf16: its kernel for the strides may split the sum
// otherwise than the one for dense operands). Heads 4 and 16 wide: the
// copies of a 16-bit head's rows of 32 bytes go row by row; a transposed
// operand is read transposed, not copied.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace amprt_test;

namespace {

constexpr int64_t kB = 2, kT = 5, kH = 3;

/// The heads of a [kB * kT, columns] tensor whose columns from `first`
/// hold kH heads of kD: [kB, kH, kT, kD] (or [kB, kH, kD, kT] transposed).
std::vector<int64_t> heads(int64_t kD, int64_t columns, int64_t first,
                           bool transposed) {
  Shape shape{kB, kH, kT, kD}, strides{kT * columns, kD, columns, 1};
  if (transposed) {
    std::swap(shape[2], shape[3]);
    std::swap(strides[2], strides[3]);
  }
  return view(first, shape, strides);
}

void expectSame(Runtime &rt, amprt_tensor *got, amprt_tensor *want,
                const std::string &what) {
  amprt_dtype dtype = got->dtype;
  bool copied = dtype == AMPRT_F16 || dtype == AMPRT_F64;
  double tol = copied ? 0 : tolerance(dtype);
  std::vector<double> g = rt.read(got), w = rt.read(want);
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i)
    if (!(std::fabs(g[i] - w[i]) <= tol * std::max(1.0, std::fabs(w[i])))) {
      ADD_FAILURE() << what << " element " << i << ": " << g[i] << " vs "
                    << w[i];
      return;
    }
}

/// [kB * kT, columns] -> the heads from column `first`: [kB, kH, kT, kD].
Tensor headsCopied(Runtime &rt, amprt_dtype dtype, amprt_tensor *x, int64_t kD,
                   int64_t columns, int64_t first) {
  Tensor block = rt.make(dtype, {kB * kT, kH * kD});
  int64_t offsets[] = {0, first}, strides[] = {1, 1};
  EXPECT_EQ(amprt_slice(rt.ctx, x, offsets, strides, block), AMPRT_OK);
  Tensor split = rt.make(dtype, {kB, kT, kH, kD});
  EXPECT_EQ(amprt_reshape(rt.ctx, block, split), AMPRT_OK);
  Tensor out = rt.make(dtype, {kB, kH, kT, kD});
  int64_t perm[] = {0, 2, 1, 3};
  EXPECT_EQ(amprt_transpose(rt.ctx, split, perm, out), AMPRT_OK);
  return out;
}

TEST(RuntimeStridedMatmul, AttentionHeadsGiveTheCopiedProducts) {
  for (int64_t kD : {4, 16})
    for (amprt_dtype dtype : {AMPRT_F32, AMPRT_BF16, AMPRT_F16, AMPRT_F64}) {
      Runtime rt;
      std::string at = std::string(" ") + amprt::dtypeName(dtype) +
                       " heads of " + std::to_string(kD);
      const int64_t columns = 3 * kH * kD; // q, k, v side by side
      Tensor qkv = rt.make(dtype, {kB * kT, columns},
                           randomValues(kB * kT * columns, 41));
      Tensor q = headsCopied(rt, dtype, qkv, kD, columns, 0),
             k = headsCopied(rt, dtype, qkv, kD, columns, kH * kD),
             v = headsCopied(rt, dtype, qkv, kD, columns, 2 * kH * kD);
      // Scores q k^T, written densely.
      Tensor scores = rt.make(dtype, {kB, kH, kT, kT}),
             want = rt.make(dtype, {kB, kH, kT, kT});
      std::vector<int64_t> qv = heads(kD, columns, 0, false),
                           kv = heads(kD, columns, kH * kD, true),
                           sv = view(0, {kB, kH, kT, kT},
                                     {kH * kT * kT, kT * kT, kT, 1});
      ASSERT_EQ(amprt_batch_matmul_strided(rt.ctx, 4, qkv, qv.data(), qkv,
                                           kv.data(), scores, sv.data()),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_batch_matmul(rt.ctx, q, k, 0, 1, want), AMPRT_OK);
      expectSame(rt, scores, want, "scores" + at);
      // Scores times v, written as [kB, kT, kH, kD] (the heads merged).
      Tensor merged = rt.make(dtype, {kB, kT, kH, kD}),
             product = rt.make(dtype, {kB, kH, kT, kD}),
             wantMerged = rt.make(dtype, {kB, kT, kH, kD});
      std::vector<int64_t> vv = heads(kD, columns, 2 * kH * kD, false),
                           pv = view(0, {kB, kH, kT, kT},
                                     {kH * kT * kT, kT * kT, kT, 1}),
                           mv = view(0, {kB, kH, kT, kD},
                                     {kT * kH * kD, kD, kH * kD, 1});
      ASSERT_EQ(amprt_batch_matmul_strided(rt.ctx, 4, want, pv.data(), qkv,
                                           vv.data(), merged, mv.data()),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_batch_matmul(rt.ctx, want, v, 0, 0, product), AMPRT_OK);
      int64_t perm[] = {0, 2, 1, 3};
      ASSERT_EQ(amprt_transpose(rt.ctx, product, perm, wantMerged), AMPRT_OK);
      expectSame(rt, merged, wantMerged, "merged heads" + at);
      // The scores transposed times v (attention's v gradient): the scores'
      // dense tensor read transposed, the result written merged.
      std::vector<int64_t> pt =
          view(0, {kB, kH, kT, kT}, {kH * kT * kT, kT * kT, 1, kT});
      ASSERT_EQ(amprt_batch_matmul_strided(rt.ctx, 4, want, pt.data(), qkv,
                                           vv.data(), merged, mv.data()),
                AMPRT_OK)
          << amprt_last_error();
      ASSERT_EQ(amprt_batch_matmul(rt.ctx, want, v, 1, 0, product), AMPRT_OK);
      ASSERT_EQ(amprt_transpose(rt.ctx, product, perm, wantMerged), AMPRT_OK);
      expectSame(rt, merged, wantMerged, "transposed scores by v" + at);
    }
}

TEST(RuntimeStridedMatmul, RefusesViewsItCannotTake) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F32, {2, 3, 4}, randomValues(24, 1)),
         b = rt.make(AMPRT_F32, {2, 4, 5}, randomValues(40, 2)),
         c = rt.make(AMPRT_F32, {2, 3, 5}), h = rt.make(AMPRT_F16, {2, 4, 5});
  std::vector<int64_t> av = view(0, {2, 3, 4}, {12, 4, 1}),
                       bv = view(0, {2, 4, 5}, {20, 5, 1}),
                       cv = view(0, {2, 3, 5}, {15, 5, 1});
  auto run = [&](const std::vector<int64_t> &x, const std::vector<int64_t> &y,
                 const std::vector<int64_t> &z, amprt_tensor *bt = nullptr,
                 amprt_tensor *ct = nullptr) {
    return amprt_batch_matmul_strided(rt.ctx, 3, a, x.data(), bt ? bt : b,
                                      y.data(), ct ? ct : c, z.data());
  };
  ASSERT_EQ(run(av, bv, cv), AMPRT_OK) << amprt_last_error();
  // Past the end of a's 24 elements.
  EXPECT_EQ(run(view(1, {2, 3, 4}, {12, 4, 1}), bv, cv), AMPRT_ERROR_SHAPE);
  // k of 4 against 3.
  EXPECT_EQ(run(view(0, {2, 3, 3}, {12, 4, 1}), bv, cv), AMPRT_ERROR_SHAPE);
  // c's rows written over each other.
  EXPECT_EQ(run(av, bv, view(0, {2, 3, 5}, {15, 1, 1})),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(run(av, view(0, {2, 4, 5}, {20, -5, 1}), cv),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(run(av, bv, cv, h), AMPRT_ERROR_DTYPE);
  // c is b's storage.
  EXPECT_EQ(run(av, bv, cv, nullptr, b), AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amprt_batch_matmul_strided(rt.ctx, 3, a, nullptr, b, bv.data(), c,
                                       cv.data()),
            AMPRT_ERROR_INVALID_ARGUMENT);
  std::vector<int64_t> flat = view(0, {3, 4}, {4, 1});
  EXPECT_EQ(amprt_batch_matmul_strided(rt.ctx, 2, a, flat.data(), b,
                                       flat.data(), c, flat.data()),
            AMPRT_ERROR_INVALID_ARGUMENT);
}

// A sum of no terms (k = 0) writes zeros into c's view and nothing else;
// an empty c is no work. Both on the CPU's products and the copied ones
// (f64).
TEST(RuntimeStridedMatmul, EmptySumsAreZerosAndEmptyResultsNoWork) {
  Runtime rt;
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_BF16, AMPRT_F64}) {
    Tensor a = rt.make(dtype, {1}, {1.0}), b = rt.make(dtype, {1}, {1.0});
    Tensor c = rt.make(dtype, {2, 3, 6}, std::vector<double>(36, 7.0));
    // c's even columns: [2, 3, 3] over a [2, 3, 6] tensor.
    std::vector<int64_t> noTerms = view(0, {2, 3, 0}, {0, 0, 0}),
                         rows = view(0, {2, 0, 3}, {0, 0, 0}),
                         even = view(0, {2, 3, 3}, {18, 6, 2});
    ASSERT_EQ(amprt_batch_matmul_strided(rt.ctx, 3, a, noTerms.data(), b,
                                         rows.data(), c, even.data()),
              AMPRT_OK)
        << amprt_last_error();
    std::vector<double> got = rt.read(c);
    for (int64_t i = 0; i < 36; ++i)
      ASSERT_EQ(got[i], i % 2 ? 7.0 : 0.0) << dtype << " element " << i;
    std::vector<int64_t> emptyC = view(0, {2, 0, 3}, {18, 6, 2}),
                         emptyA = view(0, {2, 0, 4}, {0, 0, 0}),
                         b4 = view(0, {2, 4, 3}, {0, 0, 0});
    EXPECT_EQ(amprt_batch_matmul_strided(rt.ctx, 3, a, emptyA.data(), b,
                                         b4.data(), c, emptyC.data()),
              AMPRT_OK)
        << amprt_last_error();
    EXPECT_EQ(rt.read(c), got);
  }
}

} // namespace
