//===- StridedMatmulApi.cpp - Batched products of strided views -----------===//
//
// amprt_batch_matmul_strided: a batched product whose operands are read,
// and whose result is written, through strided views of their tensors'
// storage, so attention's heads need no transposes around their products.
// A backend that multiplies the views in place (the CPU's oneDNN) does;
// elsewhere the views are copied to dense tensors for the backend's
// batched product and its result copied into c's view.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "StridedViews.h"
#include <algorithm>
#include <utility>

using namespace amprt;

namespace {

/// op(a) x op(b) = c shapes: [batch..., m, k] x [batch..., k, n].
amprt_status checkShapes(const char *op, const StridedView &a,
                         const StridedView &b, const StridedView &c) {
  int r = a.rank;
  bool fits = a.shape[r - 1] == b.shape[r - 2] &&
              c.shape[r - 2] == a.shape[r - 2] &&
              c.shape[r - 1] == b.shape[r - 1];
  for (int d = 0; d < r - 2; ++d)
    fits &= a.shape[d] == c.shape[d] && b.shape[d] == c.shape[d];
  if (!fits)
    return fail(AMPRT_ERROR_SHAPE, "%s: views %s x %s do not make %s", op,
                shapeString(Shape(a.shape, a.shape + r)).c_str(),
                shapeString(Shape(b.shape, b.shape + r)).c_str(),
                shapeString(Shape(c.shape, c.shape + r)).c_str());
  return AMPRT_OK;
}

/// Tensors that live for one call: dense copies of views, and views of a
/// tensor under another shape.
struct Temporaries {
  ~Temporaries() {
    for (amprt_tensor *t : made)
      amprt_tensor_release(t);
  }
  amprt_status make(amprt_context *ctx, amprt_dtype dtype, const StridedView &v,
                    amprt_tensor **out) {
    AMPRT_CHECK(amprt_tensor_create(ctx, dtype, v.rank, v.shape, out));
    made.push_back(*out);
    return AMPRT_OK;
  }
  /// `t`'s storage as a tensor of v's shape (v dense of t).
  amprt_status reshaped(amprt_context *ctx, const amprt_tensor *t,
                        const StridedView &v, amprt_tensor **out) {
    *out = amprt_tensor_view(ctx, t, v.rank, v.shape);
    if (!*out)
      return amprt_context_status(ctx);
    made.push_back(*out);
    return AMPRT_OK;
  }
  std::vector<amprt_tensor *> made;
};

/// An operand of the backend's dense batched product for view `v` of `t`:
/// t itself where v is its dense layout (or v's transpose is, then read
/// transposed); else a dense copy of v, or of its transpose where that
/// reads rows of consecutive elements and v does not (an attention head's
/// k read as k^T), read transposed. A transposed copy read element by
/// element made the GPT model's f16 step 1.4x as long.
amprt_status denseOperand(amprt_context *ctx, Temporaries &temps,
                          const amprt_tensor *t, const StridedView &v,
                          amprt_tensor **out, bool *transposed) {
  StridedView swapped = swapLastTwo(v);
  int r = v.rank;
  bool dense = isDenseOf(v, t),
       denseTransposed = !dense && isDenseOf(swapped, t);
  *transposed = denseTransposed ||
                (!dense && v.stride[r - 1] != 1 && swapped.stride[r - 1] == 1);
  const StridedView &read = *transposed ? swapped : v;
  if (dense || denseTransposed)
    return temps.reshaped(ctx, t, read, out);
  AMPRT_CHECK(temps.make(ctx, t->dtype, read, out));
  return opsFor(ctx)->stridedCopy(ctx, t, read, *out, denseView(read));
}

/// The views as dense operands (denseOperand), the backend's batched
/// product, and its result copied into c's view where that is not c's
/// dense layout: amprt_batch_matmul's values.
amprt_status copiedProduct(amprt_context *ctx, const amprt_tensor *a,
                           const StridedView &av, const amprt_tensor *b,
                           const StridedView &bv, amprt_tensor *c,
                           const StridedView &cv) {
  Temporaries temps;
  amprt_tensor *da, *db, *dc;
  bool ta, tb;
  AMPRT_CHECK(denseOperand(ctx, temps, a, av, &da, &ta));
  AMPRT_CHECK(denseOperand(ctx, temps, b, bv, &db, &tb));
  bool inPlace = isDenseOf(cv, c);
  AMPRT_CHECK(inPlace ? temps.reshaped(ctx, c, cv, &dc)
                      : temps.make(ctx, c->dtype, cv, &dc));
  int r = av.rank;
  int64_t batch = 1;
  for (int d = 0; d < r - 2; ++d)
    batch *= av.shape[d];
  const device::Backend *ops = opsFor(ctx);
  AMPRT_CHECK(ops->matmul(ctx, da, db, ta, tb, nullptr, {}, dc, av.shape[r - 2],
                          bv.shape[r - 1], av.shape[r - 1], batch));
  return inPlace ? AMPRT_OK : ops->stridedCopy(ctx, dc, denseView(cv), c, cv);
}

} // namespace

extern "C" {

amprt_status amprt_batch_matmul_strided(amprt_context *ctx, int rank,
                                        const amprt_tensor *a,
                                        const int64_t *a_view,
                                        const amprt_tensor *b,
                                        const int64_t *b_view, amprt_tensor *c,
                                        const int64_t *c_view) {
  const char *op = "amprt_batch_matmul_strided";
  AMPRT_CHECK(checkOperands(op, ctx, {{"a", a}, {"b", b}, {"c", c}}));
  AMPRT_CHECK(checkFloat(op, "c", c));
  for (auto [name, t] : {std::pair{"a", a}, {"b", b}})
    if (t->dtype != c->dtype)
      return fail(AMPRT_ERROR_DTYPE,
                  "%s: %s must be c's type (got %s, c is %s)", op, name,
                  dtypeName(t->dtype), dtypeName(c->dtype));
  if (rank < 3 || rank > kMaxViewRank)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: rank must be 3 to %d, got %d", op, kMaxViewRank, rank);
  StridedView av, bv, cv;
  AMPRT_CHECK(viewOf(op, "a", a, a_view, rank, av));
  AMPRT_CHECK(viewOf(op, "b", b, b_view, rank, bv));
  AMPRT_CHECK(viewOf(op, "c", c, c_view, rank, cv));
  AMPRT_CHECK(checkShapes(op, av, bv, cv));
  if (!oneToOne(cv))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: c's view names an element more than once", op);
  if (viewsShare(c, cv, a, av) || viewsShare(c, cv, b, bv))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: c's storage must not be a's or b's", op);
  OpTimer timer(ctx, op); // the copies below are part of the product
  // No result element, or a sum of no terms (k = 0): no product to run.
  if (isEmpty(cv) || av.shape[rank - 1] == 0)
    return fillZeros(ctx, c, cv);
  if (auto *onViews = opsFor(ctx)->stridedMatmul) {
    bool ran = false;
    AMPRT_CHECK(onViews(ctx, a, av, b, bv, c, cv, &ran));
    if (ran)
      return AMPRT_OK;
  }
  return copiedProduct(ctx, a, av, b, bv, c, cv);
}

} // extern "C"
