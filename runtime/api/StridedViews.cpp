//===- StridedViews.cpp - Views of tensors in the C API -------------------===//

#include "StridedViews.h"
#include <algorithm>
#include <utility>

namespace amprt {

/// The view `encoded` ({offset, shape[rank], strides[rank]}) of `t`,
/// checked to lie inside t's storage.
amprt_status viewOf(const char *op, const char *name, const amprt_tensor *t,
                    const int64_t *encoded, int rank, StridedView &v) {
  if (!encoded)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: %s_view is null", op, name);
  v.rank = rank;
  v.offset = encoded[0];
  int64_t last = v.offset;
  bool empty = false, overflow = v.offset < 0;
  for (int d = 0; d < rank; ++d) {
    v.shape[d] = encoded[1 + d];
    v.stride[d] = encoded[1 + rank + d];
    if (v.shape[d] < 0 || v.stride[d] < 0)
      return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: %s's view has a negative size or stride in dimension "
                  "%d",
                  op, name, d);
    empty |= v.shape[d] == 0;
    int64_t reach;
    overflow |= __builtin_mul_overflow(v.shape[d] ? v.shape[d] - 1 : 0,
                                       v.stride[d], &reach) ||
                __builtin_add_overflow(last, reach, &last);
  }
  if (overflow || (!empty && last >= t->numel))
    return fail(AMPRT_ERROR_SHAPE,
                "%s: %s's view (offset %lld, shape %s) reaches past its "
                "tensor of %lld elements",
                op, name, (long long)v.offset,
                shapeString(Shape(v.shape, v.shape + rank)).c_str(),
                (long long)t->numel);
  return AMPRT_OK;
}

bool isEmpty(const StridedView &v) {
  return std::find(v.shape, v.shape + v.rank, 0) != v.shape + v.rank;
}

/// Whether no two indices of `v` name one element: taken by stride, each
/// dimension of more than one element steps past all the ones before it
/// (an empty view names none).
bool oneToOne(const StridedView &v) {
  if (isEmpty(v))
    return true;
  std::vector<std::pair<int64_t, int64_t>> dims; // stride, size
  for (int d = 0; d < v.rank; ++d)
    if (v.shape[d] > 1)
      dims.push_back({v.stride[d], v.shape[d]});
  std::sort(dims.begin(), dims.end());
  int64_t extent = 1; // the elements the dimensions so far span
  for (auto [stride, size] : dims) {
    if (stride < extent)
      return false;
    extent = stride * (size - 1) + extent;
  }
  return true;
}

/// Whether two tensors' storage shares a byte.
bool overlaps(const amprt_tensor *x, const amprt_tensor *y) {
  auto *x0 = static_cast<const char *>(x->data),
       *y0 = static_cast<const char *>(y->data);
  return x->bytes && y->bytes && x0 < y0 + y->bytes && y0 < x0 + x->bytes;
}

bool viewsShare(const amprt_tensor *x, const StridedView &xv,
                const amprt_tensor *y, const StridedView &yv) {
  return !isEmpty(xv) && !isEmpty(yv) && overlaps(x, y);
}

/// A dense view of `shape`: what a new tensor of that shape holds.
StridedView denseView(const StridedView &shape) {
  StridedView v = shape;
  v.offset = 0;
  int64_t stride = 1;
  for (int d = v.rank - 1; d >= 0; --d) {
    v.stride[d] = stride;
    stride *= v.shape[d];
  }
  return v;
}

/// Whether `v` is `t`'s dense layout: all of it, in row-major order.
bool isDenseOf(const StridedView &v, const amprt_tensor *t) {
  StridedView dense = denseView(v);
  return v.offset == 0 && v.numel() == t->numel &&
         std::equal(v.stride, v.stride + v.rank, dense.stride);
}

/// `v` with its last two dimensions swapped: the transpose of what it reads.
StridedView swapLastTwo(StridedView v) {
  std::swap(v.shape[v.rank - 1], v.shape[v.rank - 2]);
  std::swap(v.stride[v.rank - 1], v.stride[v.rank - 2]);
  return v;
}

amprt_status fillZeros(amprt_context *ctx, amprt_tensor *t,
                       const StridedView &v) {
  if (isEmpty(v))
    return AMPRT_OK;
  amprt_tensor *zeros = nullptr;
  AMPRT_CHECK(amprt_tensor_create(ctx, t->dtype, v.rank, v.shape, &zeros));
  amprt_status status = amprt_tensor_fill(zeros, 0);
  if (status == AMPRT_OK)
    status = opsFor(ctx)->stridedCopy(ctx, zeros, denseView(v), t, v);
  amprt_tensor_release(zeros);
  return status;
}

std::vector<int64_t> encodeView(const StridedView &v) {
  std::vector<int64_t> encoded{v.offset};
  encoded.insert(encoded.end(), v.shape, v.shape + v.rank);
  encoded.insert(encoded.end(), v.stride, v.stride + v.rank);
  return encoded;
}

} // namespace amprt
