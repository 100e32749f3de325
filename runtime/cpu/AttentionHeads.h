//===- AttentionHeads.h - Attention a head at a time, in cache -*- C++ -*-===//
//
// softmax(q k^T) v and its gradients for one head at a time. A head's
// operands are copied once into per-thread buffers; the scores of a block
// of queries live only in f32 staging; the backward recomputes them rather
// than reading stored probabilities. Unfused, the GPT model wrote 4 MB of
// probabilities a layer and read them twice, each product a call of its
// own; here a head's work stays in L2 and a causal head multiplies only
// the keys its queries see.
//
// The products run on "units": one f32 (F32Units, FMA on any CPU) or a
// pair of bf16 along the sum (Bf16Units, AVX-512 BF16's vdpbf16ps). A
// product C[m][n] = sum_u A[m][u] . B[u][n] reads A by rows of units and B
// by rows of 16-lane blocks, so every operand is made into one of two
// forms: rows of units (a matrix as it lies) and units grouped across rows
// (groupRows: G rows interleaved), whose transposes give the rest.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_ATTENTIONHEADS_H
#define AMPRT_CPU_ATTENTIONHEADS_H

#include "../common/amprt_half.h"
#include "../common/amprt_math.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace amprt::cpu::heads {

inline int64_t roundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/// One head: tq queries and tk keys of d elements, values of e; a causal
/// head's query i sees keys 0..i (a top-left mask, as amprt_causal_softmax).
struct HeadShape {
  int64_t tq, tk, d, e;
  bool causal;
  int64_t seen(int64_t query) const {
    return causal ? std::min(query + 1, tk) : tk;
  }
};

/// A head's matrix in its tensor: element (r, c) at base[r * row + c * col].
template <typename T> struct HeadRows {
  T *base;
  int64_t row, col;
};

/// Query rows staged together: their scores, f32, are 16 KB at 128 keys.
constexpr int64_t kQueryBlock = 32;

/// A dense matrix of Elem in a thread's buffer: rows x ld (ld a multiple
/// of the unit, zero past the columns written).
template <typename Elem> struct Dense {
  std::vector<Elem> data;
  int64_t rows = 0, ld = 0;
  void resize(int64_t r, int64_t l) {
    rows = r;
    ld = l;
    data.assign(r * l, Elem());
  }
  Elem *row(int64_t r) { return data.data() + r * ld; }
  const Elem *row(int64_t r) const { return data.data() + r * ld; }
};

/// Rows [0, rows) x [0, cols) of `from`, read as Policy elements into `to`
/// (rows and the unit-padded ld it was sized for; the padding stays 0).
template <typename Policy, typename T>
void loadRows(const HeadRows<const T> &from, int64_t rows, int64_t cols,
              Dense<typename Policy::Elem> &to) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *src = from.base + r * from.row;
    typename Policy::Elem *dst = to.row(r);
    if (from.col == 1)
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = Policy::fromStorage(src[c]);
    else
      for (int64_t c = 0; c < cols; ++c)
        dst[c] = Policy::fromStorage(src[c * from.col]);
  }
}

/// Units grouped across rows: out[u][c] = the unit of rows uG..uG+G-1 in
/// column c (G = 1: the rows as they are). `in` has a multiple of G rows.
template <typename Policy>
void groupRows(const typename Policy::Elem *in, int64_t rows, int64_t ld,
               int64_t cols, typename Policy::Elem *out, int64_t outLd) {
  constexpr int G = Policy::kGroup;
  for (int64_t u = 0; u < rows / G; ++u)
    for (int g = 0; g < G; ++g) {
      const typename Policy::Elem *src = in + (u * G + g) * ld;
      typename Policy::Elem *dst = out + u * outLd * G + g;
      for (int64_t c = 0; c < cols; ++c)
        dst[c * G] = src[c];
    }
}

/// out[c][r] = in[r][c] for matrices of units (ld and outLd in units).
template <typename Unit>
void transposeUnits(const Unit *in, int64_t rows, int64_t ld, int64_t cols,
                    Unit *out, int64_t outLd) {
  constexpr int64_t kTile = 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile)
    for (int64_t c0 = 0; c0 < cols; c0 += kTile)
      for (int64_t c = c0; c < std::min(c0 + kTile, cols); ++c)
        for (int64_t r = r0; r < std::min(r0 + kTile, rows); ++r)
          out[c * outLd + r] = in[r * ld + c];
}

/// A head's products and softmax over Policy's units, in one thread's
/// buffers (reused head after head).
template <typename Policy> class Head {
public:
  using Elem = typename Policy::Elem;
  using Unit = typename Policy::Unit;
  static constexpr int G = Policy::kGroup;

  explicit Head(const HeadShape &s)
      : s(s), tq2(roundUp(s.tq, 2)), tk2(roundUp(s.tk, 2)), dG(roundUp(s.d, G)),
        eG(roundUp(s.e, G)), tk16(roundUp(s.tk, 16)), d16(roundUp(s.d, 16)),
        e16(roundUp(s.e, 16)) {
    scores.assign(kQueryBlock * tk16, 0.f);
    grads.assign(kQueryBlock * tk16, 0.f);
    out.assign(kQueryBlock * std::max(d16, e16), 0.f);
    blockA.resize(kQueryBlock, roundUp(tk16, 2));
    blockB.assign(kQueryBlock * tk16, Elem());
  }

  /// o = softmax(q k^T) v for this head.
  template <typename T>
  void forward(HeadRows<const T> q, HeadRows<const T> k, HeadRows<const T> v,
               HeadRows<T> o) {
    loadOperands(q, k, v);
    vGrouped.assign(tk2 * e16, Elem());
    groupRows<Policy>(vRows.row(0), tk2, eG, s.e, vGrouped.data(), e16);
    for (int64_t i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
      int64_t rows = std::min(kQueryBlock, s.tq - i0), keys = keysOf(i0, rows);
      probabilities(i0, rows, keys);
      toUnitRows(scores.data(), rows, keys, blockA);
      Policy::gemm(units(blockA.row(0)), blockA.ld / G, units(vGrouped.data()),
                   e16, out.data(), e16, rows, s.e, roundUp(keys, G) / G,
                   false);
      storeRows(out.data(), e16, i0, rows, s.e, o);
    }
  }

  /// dq, dk, dv of o = softmax(q k^T) v given do.
  template <typename T>
  void backward(HeadRows<const T> q, HeadRows<const T> k, HeadRows<const T> v,
                HeadRows<const T> dO, HeadRows<T> dq, HeadRows<T> dk,
                HeadRows<T> dv) {
    loadOperands(q, k, v);
    loadGradientOperands(dO);
    dkT.assign(s.d * tk16, 0.f);
    dvT.assign(s.e * tk16, 0.f);
    for (int64_t i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
      int64_t rows = std::min(kQueryBlock, s.tq - i0), keys = keysOf(i0, rows);
      probabilities(i0, rows, keys);
      // dp = do v^T over the keys seen.
      Policy::gemm(units(dORows.row(i0)), dORows.ld / G, units(vT.data()), tk16,
                   grads.data(), tk16, rows, keys, eG / G, false);
      scoreGradients(rows, keys);
      // dv^T += do^T p and dk^T += q^T ds, over this block's queries.
      int64_t blockUnits = roundUp(rows, G) / G;
      accumulateTransposed(scores.data(), rows, keys, dOT, i0, blockUnits, dvT,
                           s.e);
      accumulateTransposed(grads.data(), rows, keys, qT, i0, blockUnits, dkT,
                           s.d);
      // dq = ds k, ds's rows as the last call left them in blockA.
      Policy::gemm(units(blockA.row(0)), blockA.ld / G, units(kGrouped.data()),
                   d16, out.data(), d16, rows, s.d, roundUp(keys, G) / G,
                   false);
      storeRows(out.data(), d16, i0, rows, s.d, dq);
    }
    storeTransposed(dkT.data(), s.d, dk);
    storeTransposed(dvT.data(), s.e, dv);
  }

private:
  static const Unit *units(const Elem *p) {
    return reinterpret_cast<const Unit *>(p);
  }

  /// Keys that queries [i0, i0 + rows) see between them.
  int64_t keysOf(int64_t i0, int64_t rows) const {
    return s.seen(i0 + rows - 1);
  }

  /// q's, k's and v's rows, and k^T as units along k's rows (for the
  /// scores).
  template <typename T>
  void loadOperands(HeadRows<const T> q, HeadRows<const T> k,
                    HeadRows<const T> v) {
    qRows.resize(tq2, dG);
    loadRows<Policy>(q, s.tq, s.d, qRows);
    kRows.resize(tk2, dG);
    loadRows<Policy>(k, s.tk, s.d, kRows);
    vRows.resize(tk2, eG);
    loadRows<Policy>(v, s.tk, s.e, vRows);
    kT.assign(dG * tk16, Elem());
    transposeUnits(units(kRows.row(0)), s.tk, dG / G, dG / G,
                   reinterpret_cast<Unit *>(kT.data()), tk16);
  }

  /// do's rows; v^T (for dp = do v^T); k grouped across rows (for
  /// dq = ds k); do^T and q^T as units across their rows (the A operands
  /// of dv^T = do^T p and dk^T = q^T ds).
  template <typename T> void loadGradientOperands(HeadRows<const T> dO) {
    dORows.resize(tq2, eG);
    loadRows<Policy>(dO, s.tq, s.e, dORows);
    vT.assign(eG * tk16, Elem());
    transposeUnits(units(vRows.row(0)), s.tk, eG / G, eG / G,
                   reinterpret_cast<Unit *>(vT.data()), tk16);
    kGrouped.assign(tk2 * d16, Elem());
    groupRows<Policy>(kRows.row(0), tk2, dG, s.d, kGrouped.data(), d16);
    dOT = unitsAcrossRows(dORows, s.e);
    qT = unitsAcrossRows(qRows, s.d);
  }

  /// m^T as rows of units along m's rows: [cols][tq2 / G] units.
  std::vector<Elem> unitsAcrossRows(const Dense<Elem> &m, int64_t cols) {
    int64_t c16 = roundUp(cols, 16);
    std::vector<Elem> grouped(tq2 * c16, Elem()), out(cols * tq2, Elem());
    groupRows<Policy>(m.row(0), tq2, m.ld, cols, grouped.data(), c16);
    transposeUnits(units(grouped.data()), tq2 / G, c16, cols,
                   reinterpret_cast<Unit *>(out.data()), tq2 / G);
    return out;
  }

  /// scores = softmax of q k^T for queries [i0, i0 + rows) over `keys`,
  /// f32 (a causal row's unseen keys 0).
  void probabilities(int64_t i0, int64_t rows, int64_t keys) {
    Policy::gemm(units(qRows.row(i0)), qRows.ld / G, units(kT.data()), tk16,
                 scores.data(), tk16, rows, keys, dG / G, false);
    for (int64_t r = 0; r < rows; ++r) {
      float *row = scores.data() + r * tk16;
      int64_t seen = s.seen(i0 + r);
      float m = row[0];
      for (int64_t j = 1; j < seen; ++j)
        m = std::max(m, row[j]);
      float sum = 0;
      for (int64_t j = 0; j < seen; ++j)
        sum += row[j] = m_expNonPositive(row[j] - m);
      float inv = 1.f / sum;
      for (int64_t j = 0; j < seen; ++j)
        row[j] *= inv;
      std::fill(row + seen, row + tk16, 0.f);
    }
  }

  /// grads: dp on entry, ds = p (dp - sum_j p dp) on return (the
  /// softmax gradient, in f32).
  void scoreGradients(int64_t rows, int64_t keys) {
    for (int64_t r = 0; r < rows; ++r) {
      const float *p = scores.data() + r * tk16;
      float *g = grads.data() + r * tk16;
      float dot = 0;
      for (int64_t j = 0; j < keys; ++j)
        dot += p[j] * g[j];
      for (int64_t j = 0; j < keys; ++j)
        g[j] = p[j] * (g[j] - dot);
      std::fill(g + keys, g + tk16, 0.f);
    }
  }

  /// f32 rows as Policy elements (rounded) into `to`, zero past `cols` to
  /// the 16-lane block (a product reads whole blocks), and zero rows up to
  /// the unit.
  void toUnitRows(const float *from, int64_t rows, int64_t cols,
                  Dense<Elem> &to) {
    int64_t blocks = roundUp(cols, 16);
    for (int64_t r = 0; r < roundUp(rows, G); ++r) {
      Elem *dst = to.row(r);
      const float *src = from + r * tk16;
      for (int64_t c = 0; c < blocks; ++c)
        dst[c] = r < rows && c < cols ? Policy::fromFloat(src[c]) : Elem();
    }
  }

  /// accT[c][j] += sum over this block's queries i of a^T[c][i] x[i][j],
  /// a^T being `aT` (units along queries, from i0) and x f32 rows.
  void accumulateTransposed(const float *x, int64_t rows, int64_t keys,
                            const std::vector<Elem> &aT, int64_t i0,
                            int64_t blockUnits, std::vector<float> &accT,
                            int64_t cols) {
    toUnitRows(x, rows, keys, blockA);
    groupRows<Policy>(blockA.row(0), roundUp(rows, G), blockA.ld,
                      roundUp(keys, 16), blockB.data(), tk16);
    Policy::gemm(units(aT.data()) + i0 / G, tq2 / G, units(blockB.data()), tk16,
                 accT.data(), tk16, cols, keys, blockUnits, true);
  }

  /// f32 block rows into queries [i0, i0 + rows) of `to`.
  template <typename T>
  void storeRows(const float *from, int64_t ld, int64_t i0, int64_t rows,
                 int64_t cols, HeadRows<T> to) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        store(to.base, (i0 + r) * to.row + c * to.col, from[r * ld + c]);
  }

  /// fromT[c][j] (ld tk16) as to[j][c] for the head's keys.
  template <typename T>
  void storeTransposed(const float *fromT, int64_t cols, HeadRows<T> to) {
    for (int64_t j = 0; j < s.tk; ++j)
      for (int64_t c = 0; c < cols; ++c)
        store(to.base, j * to.row + c * to.col, fromT[c * tk16 + j]);
  }

  HeadShape s;
  int64_t tq2, tk2, dG, eG, tk16, d16, e16;
  Dense<Elem> qRows, kRows, vRows, dORows, blockA;
  std::vector<Elem> kT, vT, vGrouped, kGrouped, dOT, qT, blockB;
  std::vector<float> scores, grads, out, dkT, dvT;
};

} // namespace amprt::cpu::heads

#endif // AMPRT_CPU_ATTENTIONHEADS_H
