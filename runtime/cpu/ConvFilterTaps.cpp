//===- ConvFilterTaps.cpp - Narrow filter gradients, a product a tap ------===//
//
// For tap (i, j) of the window, the filter gradient's [o][i][j][c] sums
// dy[n][p][q][o] * x[n][p*sh - pt + i*dh][q*sw - pl + j*dw][c] (dh, dw the
// dilations) over the output positions
// (n, p, q) whose input point lies inside the image: a product of the
// gathered dy rows (transposed) and x rows, written straight into the
// tap's columns of dw. Every product accumulates in f32 and rounds once,
// as the convolution kernel does; only the order of the sum differs.
//
//===----------------------------------------------------------------------===//

#include "ConvFilterTaps.h"

#include "OneDnn.h"
#include "Parallel.h"
#include "Scratch.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace amprt::cpu {
namespace {

/// The output positions [lo, hi) along one axis whose tap `t` reads inside
/// the input: o * stride - padLo + t * dilation in [0, size).
struct Span {
  int64_t lo, hi;
  int64_t size() const { return hi - lo; }
};

Span insideOutputs(int64_t t, int64_t size, int64_t out, int64_t stride,
                   int64_t padLo, int64_t dilation) {
  int64_t first = padLo - t * dilation;           // the lowest o * stride
  int64_t last = size - 1 + padLo - t * dilation; // the highest
  int64_t lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  int64_t hi = last < 0 ? 0 : std::min(out, last / stride + 1);
  return {lo, std::max(lo, hi)};
}

struct Tap {
  int64_t i, j;
  Span rows, cols;
  int64_t count; // gathered rows: images x rows x cols
};

std::vector<Tap> windowTaps(const ConvGeometry &g) {
  std::vector<Tap> taps;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      Span rows = insideOutputs(i, g.h, g.oh, g.sh, g.pt, g.dh);
      Span cols = insideOutputs(j, g.w, g.ow, g.sw, g.pl, g.dw);
      taps.push_back({i, j, rows, cols, g.n * rows.size() * cols.size()});
    }
  return taps;
}

/// Copies tap t's rows: dy's at its inside output positions into dyRows,
/// and the x rows they read into xRows, in the same order.
void gather(const ConvGeometry &g, const Tap &t, size_t bytes, const char *x,
            const char *dy, char *xRows, char *dyRows) {
  int64_t h = t.rows.size(), w = t.cols.size();
  size_t xRow = g.c * bytes, dyRow = g.o * bytes;
  parallelFor(g.n * h, 8, [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      int64_t n = line / h, p = t.rows.lo + line % h;
      int64_t ih = p * g.sh - g.pt + t.i * g.dh;
      for (int64_t b = 0; b < w; ++b) {
        int64_t q = t.cols.lo + b, iw = q * g.sw - g.pl + t.j * g.dw;
        int64_t r = line * w + b;
        std::memcpy(xRows + r * xRow, x + ((n * g.h + ih) * g.w + iw) * xRow,
                    xRow);
        std::memcpy(dyRows + r * dyRow,
                    dy + ((n * g.oh + p) * g.ow + q) * dyRow, dyRow);
      }
    }
  });
}

/// Zeroes tap (i, j)'s columns of every filter: no output reads inside.
void zeroTap(const ConvGeometry &g, const Tap &t, size_t bytes, char *dw) {
  size_t filter = g.kh * g.kw * g.c * bytes, row = g.c * bytes;
  for (int64_t o = 0; o < g.o; ++o)
    std::memset(dw + o * filter + (t.i * g.kw + t.j) * row, 0, row);
}

} // namespace

bool filterGradByTaps(const ConvGeometry &g, const amprt_tensor *x,
                      const amprt_tensor *dy, amprt_tensor *dw) {
  if (g.nchw || g.ow > kNarrowOutputRow)
    return false;
  amprt_dtype dtype = x->dtype;
  int64_t ldc = g.kh * g.kw * g.c, most = 0;
  std::vector<Tap> taps = windowTaps(g);
  for (const Tap &t : taps) {
    if (t.count > 0 && !dnnlProductTNRuns(dtype, g.o, g.c, t.count, ldc))
      return false;
    most = std::max(most, t.count);
  }
  size_t bytes = amprt_dtype_size(dtype);
  Scratch<char> xRows(most * g.c * bytes), dyRows(most * g.o * bytes);
  const char *xs = static_cast<const char *>(x->data);
  const char *dys = static_cast<const char *>(dy->data);
  char *out = static_cast<char *>(dw->data);
  for (const Tap &t : taps) {
    if (t.count == 0) {
      zeroTap(g, t, bytes, out);
      continue;
    }
    gather(g, t, bytes, xs, dys, xRows.data(), dyRows.data());
    char *slice = out + (t.i * g.kw + t.j) * g.c * bytes;
    if (!dnnlProductTN(dtype, g.o, g.c, t.count, dyRows.data(), xRows.data(),
                       slice, ldc))
      return false; // checked above: kept primitives do not go away
  }
  return true;
}

} // namespace amprt::cpu
