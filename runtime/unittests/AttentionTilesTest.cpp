//===- AttentionTilesTest.cpp - The fused heads on every target ----------===//
//
// amprt_attention runs its f32 heads on the widest vectors the CPU has, so
// a machine's own runs test one target. Here each target this CPU can run
// (AVX-512, AVX2 + FMA, SSE2; bf16 pairs on AVX-512 BF16) runs the tiles'
// products and whole heads, compiled for it (a flattened function of that
// target, the runtime's floating-point options), against double
// references: the products at every tile edge (rows
// past a multiple of the tile's, a last 16-lane block alone, accumulating
// or not, nothing written past the columns), the heads forward and
// backward, causal or not, at sizes no tile divides.
//
//===----------------------------------------------------------------------===//

#pragma GCC diagnostic ignored "-Wpsabi"

#include "cpu/AttentionTiles.h"
#include "cpu/AttentionHeads.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <type_traits>
#include <vector>

using namespace amprt;
using namespace amprt::cpu::heads;

namespace {

// body() compiled for each target, everything it calls inlined into it.
template <typename Body>
__attribute__((target("avx512f"), flatten)) void onAvx512(const Body &body) {
  body();
}
template <typename Body>
__attribute__((target("avx2,fma"), flatten)) void onAvx2(const Body &body) {
  body();
}
template <typename Body>
__attribute__((flatten)) void onSse2(const Body &body) {
  body();
}
template <typename Body>
__attribute__((target(AMPRT_BF16_TARGET), flatten)) void
onBf16Pairs(const Body &body) {
  body();
}

bool hasAvx2Fma() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool hasBf16Pairs() {
  return __builtin_cpu_supports("avx512bf16") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

template <typename P> struct PolicyTag { using Policy = P; };

/// Runs test(PolicyTag<Policy>(), run, name) for each policy this CPU can
/// run, `run` calling its argument compiled for the policy's target.
template <typename Test> void forEachPolicy(Test test) {
  test(
      PolicyTag<F32Units<Sse2MulAdd>>(), [](const auto &body) { onSse2(body); },
      "sse2");
  if (hasAvx2Fma())
    test(
        PolicyTag<F32Units<Avx2Fma>>(), [](const auto &body) { onAvx2(body); },
        "avx2");
  if (cpu::hasAvx512F())
    test(
        PolicyTag<F32Units<Avx512Fma>>(),
        [](const auto &body) { onAvx512(body); }, "avx512");
  if (hasBf16Pairs())
    test(
        PolicyTag<Bf16Units>(), [](const auto &body) { onBf16Pairs(body); },
        "bf16 pairs");
}

/// Values exact in bf16, so the pairs' products see what f32's do.
std::vector<float> randomValues(int64_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> pick(-64, 64);
  std::vector<float> v(n);
  for (float &x : v)
    x = pick(rng) / 32.0f;
  return v;
}

/// A [rows][cols] f32 matrix as Policy's units along its rows (pairs of
/// columns for bf16; rows x unitCols units, zero past cols).
template <typename Policy>
std::vector<typename Policy::Elem> asUnits(const std::vector<float> &m,
                                           int64_t rows, int64_t cols,
                                           int64_t unitCols) {
  std::vector<typename Policy::Elem> out(rows * unitCols * Policy::kGroup);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[r * unitCols * Policy::kGroup + c] =
          Policy::fromFloat(m[r * cols + c]);
  return out;
}

/// The B operand: element [s][j] of a [sum][n] matrix at unit s / G, lane
/// s % G of column j (ldb units a unit row).
template <typename Policy>
std::vector<typename Policy::Elem> asGroupedUnits(const std::vector<float> &m,
                                                  int64_t sum, int64_t n,
                                                  int64_t ldb) {
  constexpr int G = Policy::kGroup;
  std::vector<typename Policy::Elem> out((sum + G - 1) / G * ldb * G);
  for (int64_t s = 0; s < sum; ++s)
    for (int64_t j = 0; j < n; ++j)
      out[(s / G * ldb + j) * G + s % G] = Policy::fromFloat(m[s * n + j]);
  return out;
}

TEST(AttentionTiles, ProductsAtEveryTileEdge) {
  std::mt19937 rng(3);
  forEachPolicy([&](auto tag, auto run, const char *target) {
    using Policy = typename decltype(tag)::Policy;
    constexpr int G = Policy::kGroup;
    using Unit = typename Policy::Unit;
    for (int64_t m : {1, 3, 8, 9, 13})
      for (int64_t n : {5, 16, 32, 48, 80})
        for (int64_t sum : {2, 10, 64})
          for (bool accumulate : {false, true}) {
            int64_t n16 = roundUp(n, 16), ldb = n16 + 16, ldc = n16 + 32;
            int64_t units = sum / G, lda = units + 3;
            std::vector<float> a = randomValues(m * sum, rng),
                               b = randomValues(sum * n, rng),
                               c0 = randomValues(m * ldc, rng);
            auto au = asUnits<Policy>(a, m, sum, lda);
            auto bu = asGroupedUnits<Policy>(b, sum, n, ldb);
            std::vector<float> c = c0;
            run([&] {
              Policy::gemm(reinterpret_cast<const Unit *>(au.data()), lda,
                           reinterpret_cast<const Unit *>(bu.data()), ldb,
                           c.data(), ldc, m, n, units, accumulate);
            });
            std::string at = std::string(target) + " m " + std::to_string(m) +
                             " n " + std::to_string(n) + " sum " +
                             std::to_string(sum) +
                             (accumulate ? " accumulating" : "");
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                double want = accumulate ? c0[i * ldc + j] : 0;
                for (int64_t s = 0; s < sum; ++s)
                  want += double(a[i * sum + s]) * b[s * n + j];
                // Small integers over 32: every sum is exact in f32.
                ASSERT_EQ(c[i * ldc + j], float(want))
                    << at << " (" << i << ", " << j << ")";
              }
              for (int64_t j = n16; j < ldc; ++j)
                ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j])
                    << at << ": column " << j << " written";
            }
          }
  });
}

TEST(AttentionTiles, CausalProductsOverTheKeysEachRowSees) {
  std::mt19937 rng(4);
  forEachPolicy([&](auto tag, auto run, const char *target) {
    using Policy = typename decltype(tag)::Policy;
    using Unit = typename Policy::Unit;
    constexpr int G = Policy::kGroup;
    // Row i of a block that starts at query `first` sees keys [0, first +
    // i + 1): along Columns the product's columns are keys, along Sum its
    // sum (A zero past each row's keys, as the probabilities are).
    for (int64_t first : {0, 5, 32})
      for (int64_t m : {1, 9, 32})
        for (auto along : {SeenKeys::Columns, SeenKeys::Sum}) {
          bool columns = along == SeenKeys::Columns;
          int64_t keys = first + m, n = columns ? keys : 40,
                  sum = columns ? 24 : roundUp(keys, G);
          int64_t n16 = roundUp(n, 16), ldb = n16, ldc = n16 + 16;
          int64_t units = sum / G, lda = units;
          std::vector<float> a = randomValues(m * sum, rng),
                             b = randomValues(sum * n, rng);
          if (!columns)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t s = first + i + 1; s < sum; ++s)
                a[i * sum + s] = 0;
          auto au = asUnits<Policy>(a, m, sum, lda);
          auto bu = asGroupedUnits<Policy>(b, sum, n, ldb);
          std::vector<float> c(m * ldc, 7.0f);
          run([&] {
            Policy::gemm(reinterpret_cast<const Unit *>(au.data()), lda,
                         reinterpret_cast<const Unit *>(bu.data()), ldb,
                         c.data(), ldc, m, n, units, false,
                         SeenKeys{along, first});
          });
          std::string at = std::string(target) +
                           (columns ? " columns" : " sum") + " first " +
                           std::to_string(first) + " m " + std::to_string(m);
          for (int64_t i = 0; i < m; ++i) {
            int64_t seen = columns ? first + i + 1 : n;
            for (int64_t j = 0; j < seen; ++j) {
              double want = 0;
              for (int64_t s = 0; s < sum; ++s)
                want += double(a[i * sum + s]) * b[s * n + j];
              ASSERT_EQ(c[i * ldc + j], float(want))
                  << at << " (" << i << ", " << j << ")";
            }
            for (int64_t j = n16; j < ldc; ++j)
              ASSERT_EQ(c[i * ldc + j], 7.0f) << at << ": column " << j;
          }
        }
  });
}

/// softmax(scale q k^T) v and its gradients for one head, in double.
struct Reference {
  std::vector<double> o, dq, dk, dv;
};
Reference reference(const HeadShape &s, const std::vector<float> &q,
                    const std::vector<float> &k, const std::vector<float> &v,
                    const std::vector<float> &dO) {
  Reference r{std::vector<double>(s.tq * s.e), std::vector<double>(s.tq * s.d),
              std::vector<double>(s.tk * s.d), std::vector<double>(s.tk * s.e)};
  for (int64_t i = 0; i < s.tq; ++i) {
    int64_t seen = s.seen(i);
    std::vector<double> p(seen), dp(seen);
    double top = -INFINITY, total = 0, dot = 0;
    for (int64_t j = 0; j < seen; ++j) {
      double x = 0;
      for (int64_t c = 0; c < s.d; ++c)
        x += double(q[i * s.d + c]) * k[j * s.d + c];
      p[j] = x * s.scale;
      top = std::max(top, p[j]);
    }
    for (double &x : p)
      total += (x = std::exp(x - top));
    for (int64_t j = 0; j < seen; ++j) {
      p[j] /= total;
      for (int64_t c = 0; c < s.e; ++c) {
        r.o[i * s.e + c] += p[j] * v[j * s.e + c];
        dp[j] += double(dO[i * s.e + c]) * v[j * s.e + c];
        r.dv[j * s.e + c] += p[j] * dO[i * s.e + c];
      }
      dot += p[j] * dp[j];
    }
    for (int64_t j = 0; j < seen; ++j) {
      double ds = p[j] * (dp[j] - dot) * s.scale;
      for (int64_t c = 0; c < s.d; ++c) {
        r.dq[i * s.d + c] += ds * k[j * s.d + c];
        r.dk[j * s.d + c] += ds * q[i * s.d + c];
      }
    }
  }
  return r;
}

/// Values (exact in bf16) as storage T, and back.
template <typename T> std::vector<T> stored(const std::vector<float> &v) {
  std::vector<T> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    store(out.data(), i, v[i]);
  return out;
}
template <typename T> std::vector<float> widened(const std::vector<T> &v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = load(v.data(), i);
  return out;
}

void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 double tol, const std::string &what) {
  double scale = 1e-30;
  for (double w : want)
    scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - want[i]), tol * scale)
        << what << " [" << i << "]: " << got[i] << " vs " << want[i];
}

/// A head's operands and results as storage T, and its reference.
template <typename T> struct HeadCase {
  std::vector<float> q, k, v, dO;
  std::vector<T> qs, ks, vs, dOs, os, dqs, dks, dvs;
  HeadCase(const HeadShape &s, std::mt19937 &rng, float magnitude)
      : q(randomValues(s.tq * s.d, rng)), k(randomValues(s.tk * s.d, rng)),
        v(randomValues(s.tk * s.e, rng)), dO(randomValues(s.tq * s.e, rng)) {
    for (auto *m : {&q, &k, &v, &dO})
      for (float &x : *m)
        x *= magnitude; // powers of two: still exact in bf16
    qs = stored<T>(q), ks = stored<T>(k), vs = stored<T>(v);
    dOs = stored<T>(dO);
    os.resize(s.tq * s.e), dqs.resize(s.tq * s.d), dks.resize(s.tk * s.d);
    dvs.resize(s.tk * s.e);
  }
  static HeadRows<T> out(std::vector<T> &m, int64_t cols) {
    return {m.data(), cols, 1};
  }
  static HeadRows<const T> in(const std::vector<T> &m, int64_t cols) {
    return {m.data(), cols, 1};
  }
  template <typename Policy> void forward(Head<Policy> &h, const HeadShape &s) {
    h.forward(in(qs, s.d), in(ks, s.d), in(vs, s.e), out(os, s.e));
  }
  template <typename Policy>
  void backward(Head<Policy> &h, const HeadShape &s) {
    h.backward(in(qs, s.d), in(ks, s.d), in(vs, s.e), in(dOs, s.e),
               out(dqs, s.d), out(dks, s.d), out(dvs, s.e));
  }
  void expectReference(const HeadShape &s, double tol, const std::string &at) {
    Reference want = reference(s, q, k, v, dO);
    expectClose(widened(os), want.o, tol, "o " + at);
    expectClose(widened(dqs), want.dq, tol, "dq " + at);
    expectClose(widened(dks), want.dk, tol, "dk " + at);
    expectClose(widened(dvs), want.dv, tol, "dv " + at);
  }
};

// Heads against double arithmetic at sizes no tile divides, causal with
// as many, more and fewer keys than queries (70 keys: three column blocks
// of a causal row tile), each Head's buffers reused for a second head of
// other magnitudes, as a thread's heads reuse them.
TEST(AttentionTiles, HeadsOnEveryTarget) {
  std::mt19937 rng(5);
  forEachPolicy([&](auto tag, auto run, const char *target) {
    using Policy = typename decltype(tag)::Policy;
    // bf16 pairs read bf16 storage and round the probabilities and score
    // gradients to bf16.
    using T = std::conditional_t<Policy::kGroup == 2, bf16_t, float>;
    double tol = Policy::kGroup == 2 ? 2e-2 : 2e-5;
    for (bool causal : {false, true})
      for (auto [tq, tk] :
           {std::pair<int64_t, int64_t>{37, 37}, {33, 20}, {20, 70}}) {
        HeadShape s{tq, tk, 24, 19, causal, 0.3f};
        HeadCase<T> first(s, rng, 1), second(s, rng, 4);
        run([&] {
          Head<Policy> fwd(s, false), bwd(s, true);
          for (HeadCase<T> *c : {&first, &second}) {
            c->forward(fwd, s);
            c->backward(bwd, s);
          }
        });
        std::string at = std::string(target) + (causal ? " causal" : "") +
                         " tq " + std::to_string(tq) + " tk " +
                         std::to_string(tk);
        first.expectReference(s, tol, at);
        second.expectReference(s, tol, at + " (second head)");
      }
  });
}

} // namespace
