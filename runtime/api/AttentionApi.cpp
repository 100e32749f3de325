//===- AttentionApi.cpp - softmax(q k^T) v in one call --------------------===//
//
// amprt_attention and amprt_attention_grad: the views checked, then the
// backend's fused kernel where it has one for the operands (the CPU's,
// AttentionOps.cpp), else the unfused ops on temporaries: the scores and
// probabilities as tensors, the products amprt_batch_matmul_strided's.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "StridedViews.h"

#include <cmath>

using namespace amprt;

namespace {

/// A tensor and the view of it a call reads or writes.
struct Viewed {
  const char *name;
  const amprt_tensor *t;
  const int64_t *encoded;
  StridedView view;
};

/// Every operand checked and its view read: one float type, rank 3 to 8.
amprt_status readViews(const char *op, amprt_context *ctx, int rank,
                       std::initializer_list<Viewed *> all) {
  for (Viewed *v : all)
    AMPRT_CHECK(checkOperands(op, ctx, {{v->name, v->t}}));
  const amprt_tensor *first = (*all.begin())->t;
  AMPRT_CHECK(checkFloat(op, (*all.begin())->name, first));
  if (rank < 3 || rank > kMaxViewRank)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: rank must be 3 to %d, got %d", op, kMaxViewRank, rank);
  for (Viewed *v : all) {
    if (v->t->dtype != first->dtype)
      return fail(AMPRT_ERROR_DTYPE, "%s: %s must be %s's type (got %s, %s)",
                  op, v->name, (*all.begin())->name, dtypeName(v->t->dtype),
                  dtypeName(first->dtype));
    AMPRT_CHECK(viewOf(op, v->name, v->t, v->encoded, rank, v->view));
  }
  return AMPRT_OK;
}

/// A scale the scores can be multiplied by: finite in f32 (inf or NaN
/// would make every probability NaN).
amprt_status checkScale(const char *op, double scale) {
  if (!std::isfinite(float(scale)))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: scale must be finite in f32, got %g", op, scale);
  return AMPRT_OK;
}

std::string shapeOf(const StridedView &v) {
  return shapeString(Shape(v.shape, v.shape + v.rank));
}

/// q [batch..., tq, d], k [batch..., tk, d], v [batch..., tk, e], tk >= 1.
amprt_status checkShapes(const char *op, const Viewed &q, const Viewed &k,
                         const Viewed &v) {
  int r = q.view.rank;
  const int64_t *qs = q.view.shape, *ks = k.view.shape, *vs = v.view.shape;
  bool fits = ks[r - 1] == qs[r - 1] && vs[r - 2] == ks[r - 2];
  for (int d = 0; d < r - 2; ++d)
    fits &= ks[d] == qs[d] && vs[d] == qs[d];
  if (!fits)
    return fail(AMPRT_ERROR_SHAPE,
                "%s: q %s, k %s and v %s are not [batch..., tq, d], "
                "[batch..., tk, d] and [batch..., tk, e]",
                op, shapeOf(q.view).c_str(), shapeOf(k.view).c_str(),
                shapeOf(v.view).c_str());
  if (ks[r - 2] == 0)
    return fail(AMPRT_ERROR_SHAPE, "%s: k has no keys (tk = 0)", op);
  return AMPRT_OK;
}

/// `result`'s view has `like`'s shape but for its last dimension,
/// `columns`' last; names no element twice; and shares no storage with
/// any of `others` (unless either view is empty).
amprt_status checkResult(const char *op, const Viewed &result,
                         const StridedView &like, const StridedView &columns,
                         std::initializer_list<const Viewed *> others) {
  StridedView want = like;
  want.shape[want.rank - 1] = columns.shape[columns.rank - 1];
  if (!std::equal(want.shape, want.shape + want.rank, result.view.shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: %s's view is %s, expected %s", op,
                result.name, shapeOf(result.view).c_str(),
                shapeOf(want).c_str());
  if (!oneToOne(result.view))
    return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                "%s: %s's view names an element more than once", op,
                result.name);
  for (const Viewed *other : others)
    if (viewsShare(result.t, result.view, other->t, other->view))
      return fail(AMPRT_ERROR_INVALID_ARGUMENT,
                  "%s: %s's storage must not be %s's", op, result.name,
                  other->name);
  return AMPRT_OK;
}

/// A temporary dense tensor, released with this.
struct Temporary {
  ~Temporary() { amprt_tensor_release(t); }
  amprt_status make(amprt_context *ctx, amprt_dtype dtype,
                    const StridedView &shape) {
    return amprt_tensor_create(ctx, dtype, shape.rank, shape.shape, &t);
  }
  amprt_tensor *t = nullptr;
};

/// c's view = a's view x b's view, through the C API's strided product.
amprt_status product(amprt_context *ctx, const amprt_tensor *a,
                     const StridedView &av, const amprt_tensor *b,
                     const StridedView &bv, amprt_tensor *c,
                     const StridedView &cv) {
  return amprt_batch_matmul_strided(ctx, av.rank, a, encodeView(av).data(), b,
                                    encodeView(bv).data(), c,
                                    encodeView(cv).data());
}

/// The scores' shape: [batch..., tq, tk].
StridedView scoresShape(const StridedView &qv, const StridedView &kv) {
  StridedView s = qv;
  s.shape[s.rank - 1] = kv.shape[kv.rank - 2];
  return denseView(s);
}

/// x *= scale in place (an elementwise op may write its input), through
/// amprt_scale; nothing where scale is 1.
amprt_status scaleInPlace(amprt_context *ctx, float scale, amprt_tensor *x) {
  if (scale == 1.f)
    return AMPRT_OK;
  Temporary factor;
  AMPRT_CHECK(amprt_tensor_create(ctx, AMPRT_F32, 0, nullptr, &factor.t));
  AMPRT_CHECK(amprt_tensor_fill(factor.t, scale));
  return amprt_scale(ctx, x, factor.t, x);
}

/// p = softmax(scale q k^T), unfused, into `p` (a new tensor): the scores
/// rounded to the operands' type, then scaled and rounded again.
amprt_status probabilities(amprt_context *ctx,
                           const device::AttentionOperands &a, Temporary &p) {
  StridedView sv = scoresShape(a.qv, a.kv);
  Temporary s;
  AMPRT_CHECK(s.make(ctx, a.q->dtype, sv));
  AMPRT_CHECK(p.make(ctx, a.q->dtype, sv));
  AMPRT_CHECK(product(ctx, a.q, a.qv, a.k, swapLastTwo(a.kv), s.t, sv));
  AMPRT_CHECK(scaleInPlace(ctx, a.scale, s.t));
  return a.causal ? amprt_causal_softmax(ctx, s.t, p.t)
                  : amprt_softmax(ctx, s.t, -1, p.t);
}

amprt_status unfusedForward(amprt_context *ctx,
                            const device::AttentionOperands &a, amprt_tensor *o,
                            const StridedView &ov) {
  Temporary p;
  AMPRT_CHECK(probabilities(ctx, a, p));
  return product(ctx, p.t, scoresShape(a.qv, a.kv), a.v, a.vv, o, ov);
}

amprt_status unfusedBackward(amprt_context *ctx,
                             const device::AttentionOperands &a,
                             const amprt_tensor *dO, const StridedView &dOv,
                             const device::AttentionGrads &g) {
  // No queries: nothing reaches k or v (their gradients are sums over
  // none), and there are no scores to make.
  if (a.qv.shape[a.qv.rank - 2] == 0) {
    AMPRT_CHECK(fillZeros(ctx, g.dk, g.dkv));
    return fillZeros(ctx, g.dv, g.dvv);
  }
  Temporary p, dp, ds;
  AMPRT_CHECK(probabilities(ctx, a, p));
  StridedView sv = scoresShape(a.qv, a.kv);
  AMPRT_CHECK(dp.make(ctx, a.q->dtype, sv));
  AMPRT_CHECK(ds.make(ctx, a.q->dtype, sv));
  AMPRT_CHECK(product(ctx, dO, dOv, a.v, swapLastTwo(a.vv), dp.t, sv));
  AMPRT_CHECK(amprt_softmax_grad(ctx, dp.t, p.t, -1, ds.t));
  // The unscaled scores' gradient.
  AMPRT_CHECK(scaleInPlace(ctx, a.scale, ds.t));
  AMPRT_CHECK(product(ctx, ds.t, sv, a.k, a.kv, g.dq, g.dqv));
  AMPRT_CHECK(product(ctx, ds.t, swapLastTwo(sv), a.q, a.qv, g.dk, g.dkv));
  return product(ctx, p.t, swapLastTwo(sv), dO, dOv, g.dv, g.dvv);
}

} // namespace

extern "C" {

amprt_status amprt_attention(amprt_context *ctx, int rank, int causal,
                             double scale, const amprt_tensor *q,
                             const int64_t *q_view, const amprt_tensor *k,
                             const int64_t *k_view, const amprt_tensor *v,
                             const int64_t *v_view, amprt_tensor *o,
                             const int64_t *o_view) {
  const char *op = "amprt_attention";
  Viewed vq{"q", q, q_view, {}}, vk{"k", k, k_view, {}}, vv{"v", v, v_view, {}},
      vo{"o", o, o_view, {}};
  AMPRT_CHECK(readViews(op, ctx, rank, {&vq, &vk, &vv, &vo}));
  AMPRT_CHECK(checkScale(op, scale));
  AMPRT_CHECK(checkShapes(op, vq, vk, vv));
  AMPRT_CHECK(checkResult(op, vo, vq.view, vv.view, {&vq, &vk, &vv}));
  if (isEmpty(vo.view))
    return AMPRT_OK;      // nothing to write, however many heads q's view has
  OpTimer timer(ctx, op); // the unfused ops below are part of it
  device::AttentionOperands a{q,       k,       v,           vq.view,
                              vk.view, vv.view, causal != 0, float(scale)};
  if (auto *fused = opsFor(ctx)->attention) {
    bool ran = false;
    AMPRT_CHECK(fused(ctx, a, o, vo.view, &ran));
    if (ran)
      return AMPRT_OK;
  }
  return unfusedForward(ctx, a, o, vo.view);
}

amprt_status
amprt_attention_grad(amprt_context *ctx, int rank, int causal, double scale,
                     const amprt_tensor *q, const int64_t *q_view,
                     const amprt_tensor *k, const int64_t *k_view,
                     const amprt_tensor *v, const int64_t *v_view,
                     const amprt_tensor *grad_o, const int64_t *grad_o_view,
                     amprt_tensor *grad_q, const int64_t *grad_q_view,
                     amprt_tensor *grad_k, const int64_t *grad_k_view,
                     amprt_tensor *grad_v, const int64_t *grad_v_view) {
  const char *op = "amprt_attention_grad";
  Viewed vq{"q", q, q_view, {}}, vk{"k", k, k_view, {}}, vv{"v", v, v_view, {}},
      vdo{"grad_o", grad_o, grad_o_view, {}},
      vdq{"grad_q", grad_q, grad_q_view, {}},
      vdk{"grad_k", grad_k, grad_k_view, {}},
      vdv{"grad_v", grad_v, grad_v_view, {}};
  AMPRT_CHECK(
      readViews(op, ctx, rank, {&vq, &vk, &vv, &vdo, &vdq, &vdk, &vdv}));
  AMPRT_CHECK(checkScale(op, scale));
  AMPRT_CHECK(checkShapes(op, vq, vk, vv));
  StridedView oShape = vq.view;
  oShape.shape[rank - 1] = vv.view.shape[rank - 1];
  if (!std::equal(oShape.shape, oShape.shape + rank, vdo.view.shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: grad_o's view is %s, expected %s", op,
                shapeOf(vdo.view).c_str(), shapeOf(oShape).c_str());
  AMPRT_CHECK(checkResult(op, vdq, vq.view, vq.view,
                          {&vq, &vk, &vv, &vdo, &vdk, &vdv}));
  AMPRT_CHECK(
      checkResult(op, vdk, vk.view, vk.view, {&vq, &vk, &vv, &vdo, &vdv}));
  AMPRT_CHECK(checkResult(op, vdv, vv.view, vv.view, {&vq, &vk, &vv, &vdo}));
  if (isEmpty(vdq.view) && isEmpty(vdk.view) && isEmpty(vdv.view))
    return AMPRT_OK;
  // No values (e = 0): o is constant, so q and k have gradient 0 exactly,
  // whatever their values (an infinite k would make the sums over no
  // terms NaN).
  if (vv.view.shape[rank - 1] == 0) {
    AMPRT_CHECK(fillZeros(ctx, grad_q, vdq.view));
    return fillZeros(ctx, grad_k, vdk.view);
  }
  OpTimer timer(ctx, op);
  device::AttentionOperands a{q,       k,       v,           vq.view,
                              vk.view, vv.view, causal != 0, float(scale)};
  device::AttentionGrads g{grad_q,   grad_k,   grad_v,
                           vdq.view, vdk.view, vdv.view};
  if (auto *fused = opsFor(ctx)->attentionGrad) {
    bool ran = false;
    AMPRT_CHECK(fused(ctx, a, grad_o, vdo.view, g, &ran));
    if (ran)
      return AMPRT_OK;
  }
  return unfusedBackward(ctx, a, grad_o, vdo.view, g);
}

} // extern "C"
