//===- Elementwise.h - Broadcast indexing for the CPU kernels --*- C++ -*-===//

#ifndef AMPRT_CPU_ELEMENTWISE_H
#define AMPRT_CPU_ELEMENTWISE_H

#include "../common/Runtime.h"

namespace amprt::cpu {

/// Maps linear indices of an output to offsets into a broadcast input:
/// stride 0 along expanded dimensions.
class BroadcastMap {
public:
  BroadcastMap(const Shape &in, const Shape &out) : out(out) {
    identity = in == out;
    strides.assign(out.size(), 0);
    int64_t stride = 1;
    for (int64_t d = (int64_t)in.size() - 1; d >= 0; --d) {
      int64_t o = d + (int64_t)(out.size() - in.size());
      strides[o] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  int64_t operator()(int64_t linear) const {
    if (identity)
      return linear;
    int64_t offset = 0;
    for (int64_t d = (int64_t)out.size() - 1; d >= 0 && linear; --d) {
      offset += (linear % out[d]) * strides[d];
      linear /= out[d];
    }
    return offset;
  }

private:
  Shape out;
  std::vector<int64_t> strides;
  bool identity;
};

/// Row-major strides of `shape`.
inline std::vector<int64_t> stridesOf(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

} // namespace amprt::cpu

#endif // AMPRT_CPU_ELEMENTWISE_H
