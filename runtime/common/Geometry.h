//===- Geometry.h - Checked op geometries of all backends -------*- C++ -*-===//
//
// The C API checks an op's attributes and shapes once, on the host, into
// one of these; the CPU loops and the device kernels both index by them.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_GEOMETRY_H
#define AMPRT_COMMON_GEOMETRY_H

#include "amprt_half.h"
#include <stdint.h>

namespace amprt {

/// shape = outer x axis x inner around one dimension.
struct Split {
  int64_t outer = 1, axis = 1, inner = 1;
};

/// The Split of a contraction's result of `numel` elements around its
/// `channels` channels, each over `inner` consecutive elements: how its
/// bias is added (amprt_matmul_bias, amprt_conv2d_bias).
AMPRT_HD inline Split channelSplit(int64_t numel, int64_t channels,
                                   int64_t inner) {
  Split s;
  s.axis = channels;
  s.inner = inner;
  s.outer = channels * inner != 0 ? numel / (channels * inner) : 0;
  return s;
}

/// The most dimensions of a StridedView (device::kMaxRank's).
constexpr int kMaxViewRank = 8;

/// A tensor's storage seen as another shape: element (i_0, ..,
/// i_{rank-1}) lies at offset + sum of i_d * stride[d] elements
/// (amprt_batch_matmul_strided's operands and result).
struct StridedView {
  int rank = 0;
  int64_t offset = 0;
  int64_t shape[kMaxViewRank] = {};
  int64_t stride[kMaxViewRank] = {};
  AMPRT_HD int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= shape[d];
    return n;
  }
};

/// A 2-D pooling window over layout-aware indices.
struct Pool {
  int64_t n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl;
  bool nchw;
  AMPRT_HD int64_t at(int64_t i, int64_t y, int64_t x, int64_t ch, int64_t H,
                      int64_t W) const {
    return nchw ? ((i * c + ch) * H + y) * W + x
                : ((i * H + y) * W + x) * c + ch;
  }
  /// The inverse of at(): the coordinates of linear index `k`.
  AMPRT_HD void coordinates(int64_t k, int64_t H, int64_t W, int64_t &i,
                            int64_t &y, int64_t &x, int64_t &ch) const {
    if (nchw) {
      x = k % W, y = (k / W) % H, ch = (k / (W * H)) % c, i = k / (W * H * c);
    } else {
      ch = k % c, x = (k / c) % W, y = (k / (c * W)) % H, i = k / (c * W * H);
    }
  }
};

/// A 2-D convolution, in NHWC terms (pb, pr: bottom and right padding).
struct ConvGeometry {
  int64_t n, h, w, c, o, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, pb, pr;
  bool nchw;
};

/// The element type of normalization statistics and their gradients for
/// data of C type T: f64 for f64 data, f32 otherwise.
template <typename T> struct Stats { using type = float; };
template <> struct Stats<double> { using type = double; };
template <typename T> using StatsType = typename Stats<T>::type;

enum class ConvKind { Forward, BackwardInput, BackwardFilter };
enum class Reduce { Sum, Mean, Max };

} // namespace amprt

#endif // AMPRT_COMMON_GEOMETRY_H
