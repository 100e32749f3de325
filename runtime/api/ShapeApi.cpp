//===- ShapeApi.cpp - Reductions, data movement and embedding: C API ------===//
//
// Checks, then the op on the context's backend (Dispatch.h).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include <memory>
#include <utility>
#include <vector>

using namespace amprt;

namespace {

amprt_status reduce(const char *op, Reduce kind, amprt_context *ctx,
                    const amprt_tensor *x, const int64_t *dims, int numDims,
                    amprt_tensor *y) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
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
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x->shape[d]);
    if (!reduced[d])
      removed.push_back(x->shape[d]);
  }
  if (y->shape != kept && y->shape != removed)
    return fail(AMPRT_ERROR_SHAPE, "%s: y must be %s or %s, got %s", op,
                shapeString(removed).c_str(), shapeString(kept).c_str(),
                shapeString(y->shape).c_str());
  std::unique_ptr<bool[]> mask(new bool[rank]);
  for (int64_t d = 0; d < rank; ++d)
    mask[d] = reduced[d];
  AMPRT_RUN(ctx, reduce(ctx, kind, x, mask.get(), y));
}

amprt_status sameType(const char *op, amprt_context *ctx, const amprt_tensor *x,
                      const amprt_tensor *y) {
  AMPRT_CHECK(checkOperands(op, ctx, {{"x", x}, {"y", y}}));
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

/// The operand checks amprt_reshape and amprt_reshape_moving share.
static amprt_status checkReshape(const char *op, amprt_context *ctx,
                                 const amprt_tensor *x, const amprt_tensor *y) {
  AMPRT_CHECK(sameType(op, ctx, x, y));
  if (x->numel != y->numel)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: %s and %s hold different element "
                "counts",
                op, shapeString(x->shape).c_str(),
                shapeString(y->shape).c_str());
  return ok();
}

amprt_status amprt_reshape(amprt_context *ctx, const amprt_tensor *x,
                           amprt_tensor *y) {
  const char *op = "amprt_reshape";
  AMPRT_CHECK(checkReshape(op, ctx, x, y));
  AMPRT_RUN(ctx, copyOnDevice(ctx, y->data, x->data, x->bytes));
}

amprt_status amprt_reshape_moving(amprt_context *ctx, amprt_tensor *x,
                                  amprt_tensor *y) {
  const char *op = "amprt_reshape_moving";
  AMPRT_CHECK(checkReshape(op, ctx, x, y));
  if (x == y)
    return ok();
  // A view's storage is another tensor's: it is copied, never handed over.
  if (!x->ownsData || !y->ownsData)
    AMPRT_RUN(ctx, copyOnDevice(ctx, y->data, x->data, x->bytes));
  // Same dtype and element count, so the same rounded block size.
  std::swap(x->data, y->data);
  std::swap(x->blockBytes, y->blockBytes);
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
  AMPRT_RUN(ctx, broadcastTo(ctx, x, y));
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
  AMPRT_RUN(ctx, transpose(ctx, x, perm, y));
}

amprt_status amprt_concat(amprt_context *ctx, const amprt_tensor *const *xs,
                          int count, int64_t axis, amprt_tensor *y) {
  const char *op = "amprt_concat";
  AMPRT_CHECK(checkOperands(op, ctx, {{"y", y}}));
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
  AMPRT_RUN(ctx, concat(ctx, xs, count, dim, y));
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
  AMPRT_RUN(ctx, slice(ctx, x, offsets, strides, y));
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
  AMPRT_RUN(ctx, pad(ctx, x, low, value, y));
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
  AMPRT_RUN(ctx, gather(ctx, table, indices, y));
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
  AMPRT_RUN(ctx, gatherGrad(ctx, dy, indices, dtable));
}

} // extern "C"
