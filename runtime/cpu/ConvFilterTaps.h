//===- ConvFilterTaps.h - Narrow filter gradients, a product a tap -*- C++ -*-//
//
// oneDNN 2.6's filter-gradient kernel runs convolutions whose output rows
// are a few points wide far below the CPU's peak: ResNet-18's last stage
// (512 channels, 4x4, batch 64) took 6.9 ms in bf16 on Zen 5, half the
// dot-product peak over the taps inside the image. One product per window
// tap makes the same sums at the product kernel's speed (3.9 ms): the
// output positions whose tap reads inside the input, gathered with the
// input rows they read, give that tap's slice of the filter gradient.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_CPU_CONVFILTERTAPS_H
#define AMPRT_CPU_CONVFILTERTAPS_H

#include "../common/Geometry.h"
#include "../common/Runtime.h"

namespace amprt::cpu {

/// dw (OHWI) of an NHWC convolution of x (NHWC) with output gradient dy,
/// one oneDNN product per window tap, where the output rows are narrow
/// (kNarrowOutputRow) and oneDNN has a kernel for every tap's product;
/// false otherwise, having written nothing where it has none (the caller
/// then writes all of dw on another path).
bool filterGradByTaps(const ConvGeometry &g, const amprt_tensor *x,
                      const amprt_tensor *dy, amprt_tensor *dw);

} // namespace amprt::cpu

#endif // AMPRT_CPU_CONVFILTERTAPS_H
