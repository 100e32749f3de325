//===- ShapeOps.cpp - Reductions, data movement and embedding -------------===//

#include "Common.h"
#include "Elementwise.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

using namespace amprt;
using namespace amprt::cpu;

namespace {

amprt_status reduce(const char *op, Reduce kind, amprt_context *ctx,
                    const amprt_tensor *x, const int64_t *dims, int numDims,
                    amprt_tensor *y) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  if (numDims < 0 || (numDims > 0 && !dims))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: bad dims", op);
  int64_t rank = x->shape.size();
  std::vector<bool> reduced(rank, false);
  for (int i = 0; i < numDims; ++i) {
    int64_t d;
    if (!normalizeAxis(dims[i], rank, d) || reduced[d])
      return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: dim %lld is out of range or repeated", op,
                  (long long)dims[i]);
    reduced[d] = true;
  }
  Shape kept, removed;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x->shape[d]);
    if (!reduced[d])
      removed.push_back(x->shape[d]);
    else
      count *= x->shape[d];
  }
  if (y->shape != kept && y->shape != removed)
    return fail(AMPRT_ERROR_SHAPE, "%s: y must be %s or %s, got %s", op,
                shapeString(removed).c_str(), shapeString(kept).c_str(),
                shapeString(y->shape).c_str());
  if (ctx->device == AMPRT_DEVICE_CUDA) {
    std::unique_ptr<bool[]> mask(new bool[rank]);
    for (int64_t d = 0; d < rank; ++d)
      mask[d] = reduced[d];
    return device::backend()->reduce(ctx, kind, x, mask.get(), y);
  }
  double init =
      kind == Reduce::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<double> acc(y->numel, init);
  auto add = [&](double &a, double v) {
    if (kind == Reduce::Max)
      a = (v != v || v > a) ? v : a;
    else
      a += v;
  };
  // Reducing leading or trailing dimensions (bias and row sums) walks x in
  // memory order with typed loads, the same order per output as below.
  int64_t numReduced = std::count(reduced.begin(), reduced.end(), true);
  int64_t lead = 0, trail = 0;
  while (lead < rank && reduced[lead])
    ++lead;
  while (trail < rank && reduced[rank - 1 - trail])
    ++trail;
  if (numReduced == lead || numReduced == trail) {
    bool leading = numReduced == lead;
    int64_t outer = leading ? count : y->numel;
    int64_t inner = leading ? y->numel : count;
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      const T *xs = static_cast<const T *>(x->data);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          add(acc[leading ? i : o], (double)load(xs, o * inner + i));
    });
  } else {
    // The output index of x's element i: its position in `kept`.
    std::vector<int64_t> xStrides = stridesOf(x->shape),
                         kStrides = stridesOf(kept);
    for (int64_t i = 0; i < x->numel; ++i) {
      int64_t out = 0, rest = i;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t idx = rest / xStrides[d];
        rest %= xStrides[d];
        if (!reduced[d])
          out += idx * kStrides[d];
      }
      add(acc[out], get(x, i));
    }
  }
  for (int64_t i = 0; i < y->numel; ++i)
    set(y, i, kind == Reduce::Mean ? acc[i] / double(count) : acc[i]);
  return ok();
}

amprt_status sameType(const char *op, amprt_context *ctx, const amprt_tensor *x,
                      const amprt_tensor *y) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  return checkSameDtype(op, "y", y, x->dtype);
}

} // namespace

extern "C" {

amprt_status amprt_reduce_sum(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *dims, int num_dims,
                              amprt_tensor *y) {
  return reduce("amprt_reduce_sum", Reduce::Sum, ctx, x, dims, num_dims, y);
}
amprt_status amprt_reduce_mean(amprt_context *ctx, const amprt_tensor *x,
                               const int64_t *dims, int num_dims,
                               amprt_tensor *y) {
  return reduce("amprt_reduce_mean", Reduce::Mean, ctx, x, dims, num_dims, y);
}
amprt_status amprt_reduce_max(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *dims, int num_dims,
                              amprt_tensor *y) {
  return reduce("amprt_reduce_max", Reduce::Max, ctx, x, dims, num_dims, y);
}

amprt_status amprt_reshape(amprt_context *ctx, const amprt_tensor *x,
                           amprt_tensor *y) {
  const char *op = "amprt_reshape";
  AMPRT_CHECK(sameType(op, ctx, x, y));
  if (x->numel != y->numel)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: %s and %s hold different element "
                "counts",
                op, shapeString(x->shape).c_str(),
                shapeString(y->shape).c_str());
  AMPRT_ON_CUDA(ctx, copyOnDevice(ctx, y->data, x->data, x->bytes));
  std::memcpy(y->data, x->data, x->bytes);
  return ok();
}

amprt_status amprt_broadcast_to(amprt_context *ctx, const amprt_tensor *x,
                                amprt_tensor *y) {
  const char *op = "amprt_broadcast_to";
  AMPRT_CHECK(sameType(op, ctx, x, y));
  Shape shape;
  if (!broadcastShapes(x->shape, y->shape, shape) || shape != y->shape)
    return fail(AMPRT_ERROR_SHAPE, "%s: cannot broadcast %s to %s", op,
                shapeString(x->shape).c_str(), shapeString(y->shape).c_str());
  AMPRT_ON_CUDA(ctx, broadcastTo(ctx, x, y));
  BroadcastMap map(x->shape, y->shape);
  size_t e = amprt_dtype_size(x->dtype);
  const char *in = static_cast<const char *>(x->data);
  char *out = static_cast<char *>(y->data);
  // x's shape right-aligned to y's rank.
  int64_t rank = y->shape.size();
  Shape xs(rank, 1);
  std::copy(x->shape.begin(), x->shape.end(), xs.end() - x->shape.size());
  // Trailing dimensions x already has are copied as whole blocks...
  int64_t block = 1, d = rank - 1;
  for (; d >= 0 && xs[d] == y->shape[d]; --d)
    block *= y->shape[d];
  if (block > 1 || d < 0) {
    int64_t blocks = y->numel / block;
    parallelFor(blocks, std::max<int64_t>(1, (1 << 14) / block),
                [&](int64_t b, int64_t end) {
                  for (int64_t i = b; i < end; ++i)
                    std::memcpy(out + i * block * e, in + map(i * block) * e,
                                block * e);
                });
    return ok();
  }
  // ...and trailing dimensions it broadcasts are runs of one element.
  int64_t run = 1;
  for (; d >= 0 && xs[d] == 1; --d)
    run *= y->shape[d];
  parallelFor(y->numel / run, std::max<int64_t>(1, (1 << 14) / run),
              [&](int64_t b, int64_t end) {
                for (int64_t i = b; i < end; ++i) {
                  const char *src = in + map(i * run) * e;
                  char *dst = out + i * run * e;
                  for (int64_t k = 0; k < run; ++k)
                    std::memcpy(dst + k * e, src, e);
                }
              });
  return ok();
}

amprt_status amprt_transpose(amprt_context *ctx, const amprt_tensor *x,
                             const int64_t *perm, amprt_tensor *y) {
  const char *op = "amprt_transpose";
  AMPRT_CHECK(sameType(op, ctx, x, y));
  int64_t rank = x->shape.size();
  if (rank > 0 && !perm)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: perm is null", op);
  std::vector<bool> seen(rank, false);
  Shape out(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]])
      return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: perm is not a "
                  "permutation of %lld dimensions",
                  op, (long long)rank);
    seen[perm[d]] = true;
    out[d] = x->shape[perm[d]];
  }
  AMPRT_CHECK(checkShape(op, "y", y, out));
  AMPRT_ON_CUDA(ctx, transpose(ctx, x, perm, y));
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(out);
  size_t e = amprt_dtype_size(x->dtype);
  const char *in = static_cast<const char *>(x->data);
  char *o = static_cast<char *>(y->data);
  parallelFor(y->numel, 1 << 14, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      int64_t src = 0, rest = i;
      for (int64_t d = 0; d < rank; ++d) {
        src += (rest / ys[d]) * xs[perm[d]];
        rest %= ys[d];
      }
      std::memcpy(o + i * e, in + src * e, e);
    }
  });
  return ok();
}

amprt_status amprt_concat(amprt_context *ctx, const amprt_tensor *const *xs,
                          int count, int64_t axis, amprt_tensor *y) {
  const char *op = "amprt_concat";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  if (count < 1 || !xs)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: needs operands", op);
  int64_t rank = y->shape.size(), dim;
  if (rank == 0 || !normalizeAxis(axis, rank, dim))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: axis out of range", op);
  int64_t total = 0;
  for (int i = 0; i < count; ++i) {
    AMPRT_CHECK(checkTensor(op, "operand", xs[i], ctx));
    AMPRT_CHECK(checkSameDtype(op, "operand", xs[i], y->dtype));
    Shape expected = y->shape;
    expected[dim] =
        xs[i]->shape.size() == (size_t)rank ? xs[i]->shape[dim] : -1;
    if (xs[i]->shape != expected)
      return fail(AMPRT_ERROR_SHAPE,
                  "%s: operand %d (%s) does not fit %s "
                  "along axis %lld",
                  op, i, shapeString(xs[i]->shape).c_str(),
                  shapeString(y->shape).c_str(), (long long)dim);
    total += xs[i]->shape[dim];
  }
  if (total != y->shape[dim])
    return fail(AMPRT_ERROR_SHAPE,
                "%s: operands add up to %lld along the "
                "axis, y has %lld",
                op, (long long)total, (long long)y->shape[dim]);
  AMPRT_ON_CUDA(ctx, concat(ctx, xs, count, dim, y));
  Split s = split(y->shape, dim);
  size_t e = amprt_dtype_size(y->dtype);
  char *out = static_cast<char *>(y->data);
  int64_t offset = 0;
  for (int i = 0; i < count; ++i) {
    int64_t block = xs[i]->shape[dim] * s.inner * e;
    const char *in = static_cast<const char *>(xs[i]->data);
    for (int64_t o = 0; o < s.outer; ++o)
      std::memcpy(out + (o * s.axis * s.inner + offset * s.inner) * e,
                  in + o * block, block);
    offset += xs[i]->shape[dim];
  }
  return ok();
}

amprt_status amprt_slice(amprt_context *ctx, const amprt_tensor *x,
                         const int64_t *offsets, const int64_t *strides,
                         amprt_tensor *y) {
  const char *op = "amprt_slice";
  AMPRT_CHECK(sameType(op, ctx, x, y));
  int64_t rank = x->shape.size();
  if (y->shape.size() != (size_t)rank || (rank && !offsets))
    return fail(AMPRT_ERROR_SHAPE,
                "%s: y must have x's rank and offsets "
                "are required",
                op);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t stride = strides ? strides[d] : 1;
    if (offsets[d] < 0 || stride < 1 ||
        offsets[d] + (y->shape[d] - 1) * stride >= x->shape[d])
      return fail(AMPRT_ERROR_SHAPE,
                  "%s: the window of dimension %lld "
                  "leaves the input",
                  op, (long long)d);
  }
  AMPRT_ON_CUDA(ctx, slice(ctx, x, offsets, strides, y));
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(y->shape);
  size_t e = amprt_dtype_size(x->dtype);
  const char *in = static_cast<const char *>(x->data);
  char *out = static_cast<char *>(y->data);
  for (int64_t i = 0; i < y->numel; ++i) {
    int64_t src = 0, rest = i;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t idx = rest / ys[d];
      rest %= ys[d];
      src += (offsets[d] + idx * (strides ? strides[d] : 1)) * xs[d];
    }
    std::memcpy(out + i * e, in + src * e, e);
  }
  return ok();
}

amprt_status amprt_pad(amprt_context *ctx, const amprt_tensor *x,
                       const int64_t *low, const int64_t *high, double value,
                       amprt_tensor *y) {
  const char *op = "amprt_pad";
  AMPRT_CHECK(sameType(op, ctx, x, y));
  int64_t rank = x->shape.size();
  if (rank && (!low || !high))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: low and high are "
                "required",
                op);
  Shape out(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: padding must be >= 0", op);
    out[d] = x->shape[d] + low[d] + high[d];
  }
  AMPRT_CHECK(checkShape(op, "y", y, out));
  AMPRT_ON_CUDA(ctx, pad(ctx, x, low, value, y));
  if (isFloat(y->dtype)) {
    for (int64_t i = 0; i < y->numel; ++i)
      set(y, i, value);
  } else {
    std::memset(y->data, 0, y->bytes);
  }
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(out);
  size_t e = amprt_dtype_size(x->dtype);
  for (int64_t i = 0; i < x->numel; ++i) {
    int64_t dst = 0, rest = i;
    for (int64_t d = 0; d < rank; ++d) {
      dst += (rest / xs[d] + low[d]) * ys[d];
      rest %= xs[d];
    }
    std::memcpy(static_cast<char *>(y->data) + dst * e,
                static_cast<const char *>(x->data) + i * e, e);
  }
  return ok();
}

amprt_status amprt_gather(amprt_context *ctx, const amprt_tensor *table,
                          const amprt_tensor *indices, amprt_tensor *y) {
  const char *op = "amprt_gather";
  AMPRT_CHECK(sameType(op, ctx, table, y));
  AMPRT_CHECK(checkTensor(op, "indices", indices, ctx));
  if (indices->dtype != AMPRT_I32 && indices->dtype != AMPRT_I64)
    return fail(AMPRT_ERROR_DTYPE, "%s: indices must be i32 or i64", op);
  if (table->shape.empty())
    return fail(AMPRT_ERROR_SHAPE, "%s: table must have rank >= 1", op);
  Shape out = indices->shape;
  out.insert(out.end(), table->shape.begin() + 1, table->shape.end());
  AMPRT_CHECK(checkShape(op, "y", y, out));
  AMPRT_ON_CUDA(ctx, gather(ctx, table, indices, y));
  int64_t rows = table->shape[0], row = table->numel / rows;
  size_t bytes = row * amprt_dtype_size(table->dtype);
  for (int64_t i = 0; i < indices->numel; ++i) {
    int64_t r = getIndex(indices, i);
    if (r < 0 || r >= rows)
      return fail(AMPRT_ERROR_INDEX, "%s: index %lld is outside [0, %lld)", op,
                  (long long)r, (long long)rows);
    std::memcpy(static_cast<char *>(y->data) + i * bytes,
                static_cast<const char *>(table->data) + r * bytes, bytes);
  }
  return ok();
}

amprt_status amprt_gather_grad(amprt_context *ctx, const amprt_tensor *dy,
                               const amprt_tensor *indices,
                               amprt_tensor *dtable) {
  const char *op = "amprt_gather_grad";
  AMPRT_CHECK(sameType(op, ctx, dy, dtable));
  AMPRT_CHECK(checkTensor(op, "indices", indices, ctx));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  if (indices->dtype != AMPRT_I32 && indices->dtype != AMPRT_I64)
    return fail(AMPRT_ERROR_DTYPE, "%s: indices must be i32 or i64", op);
  if (dtable->shape.empty())
    return fail(AMPRT_ERROR_SHAPE, "%s: dtable must have rank >= 1", op);
  Shape expected = indices->shape;
  expected.insert(expected.end(), dtable->shape.begin() + 1,
                  dtable->shape.end());
  AMPRT_CHECK(checkShape(op, "dy", dy, expected));
  AMPRT_ON_CUDA(ctx, gatherGrad(ctx, dy, indices, dtable));
  int64_t rows = dtable->shape[0], row = dtable->numel / rows;
  std::vector<double> acc(dtable->numel, 0.0);
  for (int64_t i = 0; i < indices->numel; ++i) {
    int64_t r = getIndex(indices, i);
    if (r < 0 || r >= rows)
      return fail(AMPRT_ERROR_INDEX, "%s: index %lld is outside [0, %lld)", op,
                  (long long)r, (long long)rows);
    for (int64_t j = 0; j < row; ++j)
      acc[r * row + j] += get(dy, i * row + j);
  }
  for (int64_t i = 0; i < dtable->numel; ++i)
    set(dtable, i, acc[i]);
  return ok();
}

} // extern "C"
