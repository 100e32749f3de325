//===- AttentionHeads.h - Attention a head at a time, in cache -*- C++ -*-===//
//
// softmax(q k^T) v and its gradients for one head at a time. A head's
// operands are copied once into per-thread buffers; the scores of a block
// of queries live only in f32 staging; the backward recomputes them rather
// than reading stored probabilities. Unfused, the GPT model wrote 4 MB of
// probabilities a layer and read them twice, each product a call of its
// own; here a head's work stays in L2 and a causal head multiplies only
// the keys its queries see: a block of queries the keys its last query
// sees, and each row tile of its products over keys (the scores, do v^T,
// p v, ds k) and each row's softmax the 16-lane blocks of keys its own
// rows see (SeenKeys); dv^T and dk^T sum over all of the block's keys.
//
// The products run on "units" (AttentionTiles.h): one f32 (F32Units, on
// each target's own vector width) or a pair of bf16 along the sum
// (Bf16Units, AVX-512 BF16's vdpbf16ps). A
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
#include "AttentionPacking.h"
#include "AttentionRows.h"
#include "AttentionTiles.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace amprt::cpu::heads {

/// One head: tq queries and tk keys of d elements, values of e, the
/// scores scale * q k^T; a causal head's query i sees keys 0..i (a
/// top-left mask, as amprt_causal_softmax).
struct HeadShape {
  int64_t tq, tk, d, e;
  bool causal;
  float scale;
  int64_t seen(int64_t query) const {
    return causal ? std::min(query + 1, tk) : tk;
  }
};

/// Query rows staged together: their scores, f32, are 16 KB at 128 keys.
constexpr int64_t kQueryBlock = 32;

/// At least the bytes of one thread's Head buffers for `s`: at most 18
/// buffers, none more than (max(tq, tk, kQueryBlock) + 16) x (max(d, e,
/// kQueryBlock) + 16) elements of at most 4 bytes. In double, so that the
/// sizes of any view (stride 0 repeats one element as often as it
/// likes) give a number to refuse rather than a product that wraps.
inline double headBufferBound(const HeadShape &s) {
  double rows = double(std::max({s.tq, s.tk, kQueryBlock})) + 16;
  double width = double(std::max({s.d, s.e, kQueryBlock})) + 16;
  return 18 * 4 * rows * width;
}

/// A head's products and softmax over Policy's units, in one thread's
/// buffers: sized once for the call's head shape and reused head after
/// head, each head writing the same parts (so the padding stays 0).
template <typename Policy> class Head {
public:
  using Elem = typename Policy::Elem;
  using Unit = typename Policy::Unit;
  static constexpr int G = Policy::kGroup;

  Head(const HeadShape &s, bool backward)
      : s(s), tq2(roundUp(s.tq, 2)), tk2(roundUp(s.tk, 2)), dG(roundUp(s.d, G)),
        eG(roundUp(s.e, G)), tk16(roundUp(s.tk, 16)), d16(roundUp(s.d, 16)),
        e16(roundUp(s.e, 16)) {
    scores.assign(kQueryBlock * tk16, 0.f);
    out.assign(std::max(kQueryBlock, tk16) * std::max(d16, e16), 0.f);
    blockA.resize(kQueryBlock, roundUp(tk16, 2));
    qRows.resize(tq2, dG);
    kRows.resize(tk2, dG);
    vRows.resize(tk2, eG);
    kT.assign(dG * tk16, Elem());
    if (!backward) {
      vGrouped.assign(tk2 * e16, Elem());
      return;
    }
    grads.assign(kQueryBlock * tk16, 0.f);
    blockB.assign(kQueryBlock * tk16, Elem());
    dORows.resize(tq2, eG);
    vT.assign(eG * tk16, Elem());
    kGrouped.assign(tk2 * d16, Elem());
    grouped.assign(tq2 * std::max(d16, e16), Elem());
    dOT.assign(s.e * tq2, Elem());
    qT.assign(s.d * tq2, Elem());
    dkT.assign(s.d * tk16, 0.f);
    dvT.assign(s.e * tk16, 0.f);
  }

  /// o = softmax(scale q k^T) v for this head.
  template <typename T>
  void forward(HeadRows<const T> q, HeadRows<const T> k, HeadRows<const T> v,
               HeadRows<T> o) {
    loadOperands(q, k, v);
    groupRows<Policy>(vRows.row(0), tk2, eG, s.e, vGrouped.data(), e16);
    for (int64_t i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
      int64_t rows = std::min(kQueryBlock, s.tq - i0), keys = keysOf(i0, rows);
      probabilities(i0, rows, keys);
      toUnitRows(scores.data(), rows, keys);
      Policy::gemm(units(blockA.row(0)), blockA.ld / G, units(vGrouped.data()),
                   e16, out.data(), e16, rows, s.e, roundUp(keys, G) / G, false,
                   seenBy(i0, SeenKeys::Sum));
      storeRows(out.data(), e16, i0, rows, s.e, o);
    }
  }

  /// dq, dk, dv of o = softmax(scale q k^T) v given do.
  template <typename T>
  void backward(HeadRows<const T> q, HeadRows<const T> k, HeadRows<const T> v,
                HeadRows<const T> dO, HeadRows<T> dq, HeadRows<T> dk,
                HeadRows<T> dv) {
    loadOperands(q, k, v);
    loadGradientOperands(dO);
    std::fill(dkT.begin(), dkT.end(), 0.f);
    std::fill(dvT.begin(), dvT.end(), 0.f);
    for (int64_t i0 = 0; i0 < s.tq; i0 += kQueryBlock) {
      int64_t rows = std::min(kQueryBlock, s.tq - i0), keys = keysOf(i0, rows);
      probabilities(i0, rows, keys);
      // dp = do v^T over the keys seen.
      Policy::gemm(units(dORows.row(i0)), dORows.ld / G, units(vT.data()), tk16,
                   grads.data(), tk16, rows, keys, eG / G, false,
                   seenBy(i0, SeenKeys::Columns));
      for (int64_t r = 0; r < rows; ++r) {
        int64_t width = roundUp(s.seen(i0 + r), 16);
        float *g = grads.data() + r * tk16;
        softmaxGradRow(scores.data() + r * tk16, g, width, s.scale);
        std::fill(g + width, g + roundUp(keys, 16), 0.f);
      }
      // dv^T += do^T p and dk^T += q^T ds, over this block's queries.
      int64_t blockUnits = roundUp(rows, G) / G;
      accumulateTransposed(scores.data(), rows, keys, dOT, i0, blockUnits, dvT,
                           s.e);
      accumulateTransposed(grads.data(), rows, keys, qT, i0, blockUnits, dkT,
                           s.d);
      // dq = ds k, ds's rows as the last call left them in blockA.
      Policy::gemm(units(blockA.row(0)), blockA.ld / G, units(kGrouped.data()),
                   d16, out.data(), d16, rows, s.d, roundUp(keys, G) / G, false,
                   seenBy(i0, SeenKeys::Sum));
      storeRows(out.data(), d16, i0, rows, s.d, dq);
    }
    storeTransposed(dkT.data(), s.d, dk);
    storeTransposed(dvT.data(), s.e, dv);
  }

private:
  static const Unit *units(const Elem *p) {
    return reinterpret_cast<const Unit *>(p);
  }
  static Unit *units(Elem *p) { return reinterpret_cast<Unit *>(p); }

  /// Keys that queries [i0, i0 + rows) see between them.
  int64_t keysOf(int64_t i0, int64_t rows) const {
    return s.seen(i0 + rows - 1);
  }

  /// q's, k's and v's rows, and k^T as units along k's rows (for the
  /// scores).
  template <typename T>
  void loadOperands(HeadRows<const T> q, HeadRows<const T> k,
                    HeadRows<const T> v) {
    loadRows<Policy>(q, s.tq, s.d, qRows);
    loadRows<Policy>(k, s.tk, s.d, kRows);
    loadRows<Policy>(v, s.tk, s.e, vRows);
    transposeUnits(units(kRows.row(0)), s.tk, dG / G, dG / G, units(kT.data()),
                   tk16);
  }

  /// do's rows; v^T (for dp = do v^T); k grouped across rows (for
  /// dq = ds k); do^T and q^T as units across their rows (the A operands
  /// of dv^T = do^T p and dk^T = q^T ds).
  template <typename T> void loadGradientOperands(HeadRows<const T> dO) {
    loadRows<Policy>(dO, s.tq, s.e, dORows);
    transposeUnits(units(vRows.row(0)), s.tk, eG / G, eG / G, units(vT.data()),
                   tk16);
    groupRows<Policy>(kRows.row(0), tk2, dG, s.d, kGrouped.data(), d16);
    unitsAcrossRows(dORows, s.e, dOT);
    unitsAcrossRows(qRows, s.d, qT);
  }

  /// m^T as rows of units along m's rows: [cols][tq2 / G] units.
  void unitsAcrossRows(const Dense<Elem> &m, int64_t cols,
                       std::vector<Elem> &to) {
    int64_t c16 = roundUp(cols, 16);
    groupRows<Policy>(m.row(0), tq2, m.ld, cols, grouped.data(), c16);
    transposeUnits(units(grouped.data()), tq2 / G, c16, cols, units(to.data()),
                   tq2 / G);
  }

  /// What of a product over keys the block of queries from i0 needs: a
  /// causal block's rows each their own keys, others all of them.
  SeenKeys seenBy(int64_t i0, SeenKeys::Along along) const {
    return s.causal ? SeenKeys{along, i0} : SeenKeys{};
  }

  /// scores = softmax of scale q k^T for queries [i0, i0 + rows), f32, over
  /// `keys` rounded up to 16 (a row's unseen keys 0). A causal row's
  /// softmax runs over the 16-lane blocks it sees; the product wrote no
  /// further than its row tile's keys, and the rest is zeroed.
  void probabilities(int64_t i0, int64_t rows, int64_t keys) {
    Policy::gemm(units(qRows.row(i0)), qRows.ld / G, units(kT.data()), tk16,
                 scores.data(), tk16, rows, keys, dG / G, false,
                 seenBy(i0, SeenKeys::Columns));
    for (int64_t r = 0; r < rows; ++r) {
      int64_t seen = s.seen(i0 + r), width = roundUp(seen, 16);
      float *row = scores.data() + r * tk16;
      softmaxRow(row, seen, width, s.scale);
      std::fill(row + width, row + roundUp(keys, 16), 0.f);
    }
  }

  /// Block rows of f32 (0 past `keys`, as probabilities and softmaxGradRow
  /// leave them) as Policy elements in blockA, rows up to the unit 0.
  void toUnitRows(const float *from, int64_t rows, int64_t keys) {
    int64_t width = roundUp(keys, 16);
    for (int64_t r = 0; r < rows; ++r) {
      Elem *dst = blockA.row(r);
      const float *src = from + r * tk16;
      for (int64_t c = 0; c < width; ++c)
        dst[c] = Policy::fromFloat(src[c]);
    }
    for (int64_t r = rows; r < roundUp(rows, G); ++r)
      std::fill(blockA.row(r), blockA.row(r) + width, Elem());
  }

  /// accT[c][j] += sum over this block's queries i of a^T[c][i] x[i][j],
  /// a^T being `aT` (units along queries, from i0) and x f32 rows.
  void accumulateTransposed(const float *x, int64_t rows, int64_t keys,
                            const std::vector<Elem> &aT, int64_t i0,
                            int64_t blockUnits, std::vector<float> &accT,
                            int64_t cols) {
    toUnitRows(x, rows, keys);
    groupRows<Policy>(blockA.row(0), roundUp(rows, G), blockA.ld,
                      roundUp(keys, 16), blockB.data(), tk16);
    Policy::gemm(units(aT.data()) + i0 / G, tq2 / G, units(blockB.data()), tk16,
                 accT.data(), tk16, cols, keys, blockUnits, true);
  }

  /// f32 block rows into queries [i0, i0 + rows) of `to`.
  template <typename T>
  void storeRows(const float *from, int64_t ld, int64_t i0, int64_t rows,
                 int64_t cols, HeadRows<T> to) {
    for (int64_t r = 0; r < rows; ++r) {
      const float *src = from + r * ld;
      T *dst = to.base + (i0 + r) * to.row;
      if (to.col == 1)
        convertRow(src, dst, cols);
      else
        for (int64_t c = 0; c < cols; ++c)
          store(dst, c * to.col, src[c]);
    }
  }

  /// fromT[c][j] (ld tk16) as to[j][c] for the head's keys, through rows
  /// of `out`.
  template <typename T>
  void storeTransposed(const float *fromT, int64_t cols, HeadRows<T> to) {
    int64_t c16 = roundUp(cols, 16);
    transposeUnits(fromT, cols, tk16, s.tk, out.data(), c16);
    storeRows(out.data(), c16, 0, s.tk, cols, to);
  }

  HeadShape s;
  int64_t tq2, tk2, dG, eG, tk16, d16, e16;
  Dense<Elem> qRows, kRows, vRows, dORows, blockA;
  std::vector<Elem> kT, vT, vGrouped, kGrouped, grouped, dOT, qT, blockB;
  std::vector<float> scores, grads, out, dkT, dvT;
};

} // namespace amprt::cpu::heads

#endif // AMPRT_CPU_ATTENTIONHEADS_H
