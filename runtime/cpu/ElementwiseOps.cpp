//===- ElementwiseOps.cpp - Elementwise ops on the CPU --------------------===//
//
// Every formula comes from common/amprt_math.h, shared with the CUDA
// kernels. 16-bit operands are widened to f32 to compute and rounded to
// nearest-even on store.
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "Common.h"
#include "Convert.h"
#include "CpuExec.h"
#include "Elementwise.h"
#include <algorithm>
#include <cstring>

using namespace amprt;
using namespace amprt::cpu;

namespace {

constexpr int64_t kGrain = 1 << 14;

amprt_status unary(const char *op, amprt_context *ctx, const amprt_tensor *x,
                   amprt_tensor *y, Unary kind, double alpha) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_ON_CUDA(ctx, unary(ctx, kind, x, y, alpha));
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    using C = typename Compute<T>::type;
    const T *in = static_cast<const T *>(x->data);
    T *out = static_cast<T *>(y->data);
    withUnary(kind, [&](auto op) {
      parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          store(out, i, applyUnary<C>(op.value, load(in, i), (C)alpha));
      });
    });
  });
  return ok();
}

template <typename T, typename F>
void broadcast2(const amprt_tensor *a, const amprt_tensor *b, amprt_tensor *c,
                F fn) {
  BroadcastMap ma(a->shape, c->shape), mb(b->shape, c->shape);
  const T *pa = static_cast<const T *>(a->data);
  const T *pb = static_cast<const T *>(b->data);
  parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      fn(i, pa, ma(i), pb, mb(i));
  });
}

amprt_status binary(const char *op, amprt_context *ctx, const amprt_tensor *a,
                    const amprt_tensor *b, amprt_tensor *c, Binary kind) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "a", a, ctx));
  AMPRT_CHECK(checkTensor(op, "b", b, ctx));
  AMPRT_CHECK(checkTensor(op, "c", c, ctx));
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, a->dtype));
  Shape shape;
  if (!broadcastShapes(a->shape, b->shape, shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: shapes %s and %s do not broadcast", op,
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  AMPRT_CHECK(checkShape(op, "c", c, shape));
  bool integer = a->dtype == AMPRT_I32 || a->dtype == AMPRT_I64;
  if (integer && kind == Binary::Pow)
    return fail(AMPRT_ERROR_DTYPE, "%s: integer pow is not supported", op);
  if (!integer)
    AMPRT_CHECK(checkFloat(op, "a", a));
  AMPRT_ON_CUDA(ctx, binary(ctx, kind, a, b, c));
  if (integer) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      T *out = static_cast<T *>(c->data);
      broadcast2<T>(
          a, b, c,
          [&](int64_t i, const T *pa, int64_t ia, const T *pb, int64_t ib) {
            out[i] = applyIntBinary<T>(kind, pa[ia], pb[ib]);
          });
    };
    if (a->dtype == AMPRT_I32)
      run(int32_t());
    else
      run(int64_t());
    return ok();
  }
  AMPRT_FLOAT_DISPATCH(a->dtype, T, {
    using C = typename Compute<T>::type;
    T *out = static_cast<T *>(c->data);
    const T *pa = static_cast<const T *>(a->data);
    const T *pb = static_cast<const T *>(b->data);
    withBinary(kind, [&](auto op) {
      // Same shapes, or a scalar right operand: no per-element index math.
      if (a->numel == c->numel && b->numel == c->numel) {
        parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            store(out, i, applyBinary<C>(op.value, load(pa, i), load(pb, i)));
        });
      } else if (a->numel == c->numel && b->numel == 1) {
        C rhs = load(pb, 0);
        parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            store(out, i, applyBinary<C>(op.value, load(pa, i), rhs));
        });
      } else {
        broadcast2<T>(
            a, b, c,
            [&](int64_t i, const T *xa, int64_t ia, const T *xb, int64_t ib) {
              store(out, i,
                    applyBinary<C>(op.value, load(xa, ia), load(xb, ib)));
            });
      }
    });
  });
  return ok();
}

amprt_status activationGrad(const char *op, amprt_context *ctx,
                            const amprt_tensor *dy, const amprt_tensor *v,
                            amprt_tensor *dx, ActivationGrad kind,
                            double alpha) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "dy", dy, ctx));
  AMPRT_CHECK(checkTensor(op, "saved", v, ctx));
  AMPRT_CHECK(checkTensor(op, "dx", dx, ctx));
  AMPRT_CHECK(checkFloat(op, "dy", dy));
  AMPRT_CHECK(checkSameDtype(op, "saved", v, dy->dtype));
  AMPRT_CHECK(checkSameDtype(op, "dx", dx, dy->dtype));
  AMPRT_CHECK(checkShape(op, "saved", v, dy->shape));
  AMPRT_CHECK(checkShape(op, "dx", dx, dy->shape));
  AMPRT_ON_CUDA(ctx, activationGrad(ctx, kind, dy, v, dx, alpha));
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    using C = typename Compute<T>::type;
    const T *g = static_cast<const T *>(dy->data);
    const T *s = static_cast<const T *>(v->data);
    T *out = static_cast<T *>(dx->data);
    withActivationGrad(kind, [&](auto op) {
      parallelFor(dy->numel, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          store(out, i,
                applyActivationGrad<C>(op.value, load(g, i), load(s, i),
                                       (C)alpha));
      });
    });
  });
  return ok();
}

template <typename Fn>
amprt_status scaleLike(const char *op, amprt_context *ctx,
                       const amprt_tensor *x, const amprt_tensor *scale,
                       amprt_tensor *y, bool unscale) {
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "scale", scale, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkScalar(op, "scale", scale, AMPRT_F32));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_CHECK(checkFloat(op, "y", y));
  if (unscale && y->dtype != AMPRT_F32 && y->dtype != AMPRT_F64)
    return fail(AMPRT_ERROR_DTYPE, "%s: y must be f32 (f64 for f64 input)", op);
  if (!unscale)
    AMPRT_CHECK(checkSameDtype(op, "y", y, x->dtype));
  AMPRT_ON_CUDA(ctx, scale(ctx, x, scale, y, unscale));
  float s = *static_cast<const float *>(scale->data);
  // Unscaling multiplies by the f32 reciprocal, as GradScaler does.
  float factor = unscale ? 1.0f / s : s;
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *in = static_cast<const T *>(x->data);
    AMPRT_FLOAT_DISPATCH(y->dtype, U, {
      U *out = static_cast<U *>(y->data);
      parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          store(out, i, (typename Compute<U>::type)(load(in, i) * factor));
      });
    });
  });
  return ok();
}

} // namespace

extern "C" {

#define AMPRT_DEFINE_UNARY(name, kind)                                         \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *x,         \
                            amprt_tensor *y) {                                 \
    return unary("amprt_" #name, ctx, x, y, Unary::kind, 0.0);                 \
  }
AMPRT_DEFINE_UNARY(neg, Neg)
AMPRT_DEFINE_UNARY(abs, Abs)
AMPRT_DEFINE_UNARY(exp, Exp)
AMPRT_DEFINE_UNARY(log, Log)
AMPRT_DEFINE_UNARY(sqrt, Sqrt)
AMPRT_DEFINE_UNARY(rsqrt, Rsqrt)
AMPRT_DEFINE_UNARY(square, Square)
AMPRT_DEFINE_UNARY(reciprocal, Reciprocal)
AMPRT_DEFINE_UNARY(tanh, Tanh)
AMPRT_DEFINE_UNARY(sigmoid, Sigmoid)
AMPRT_DEFINE_UNARY(relu, Relu)
AMPRT_DEFINE_UNARY(gelu, Gelu)
AMPRT_DEFINE_UNARY(erf, Erf)
AMPRT_DEFINE_UNARY(silu, Silu)
#undef AMPRT_DEFINE_UNARY

amprt_status amprt_leaky_relu(amprt_context *ctx, const amprt_tensor *x,
                              double alpha, amprt_tensor *y) {
  return unary("amprt_leaky_relu", ctx, x, y, Unary::LeakyRelu, alpha);
}

#define AMPRT_DEFINE_BINARY(name, kind)                                        \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *a,         \
                            const amprt_tensor *b, amprt_tensor *c) {          \
    return binary("amprt_" #name, ctx, a, b, c, Binary::kind);                 \
  }
AMPRT_DEFINE_BINARY(add, Add)
AMPRT_DEFINE_BINARY(sub, Sub)
AMPRT_DEFINE_BINARY(mul, Mul)
AMPRT_DEFINE_BINARY(div, Div)
AMPRT_DEFINE_BINARY(pow, Pow)
AMPRT_DEFINE_BINARY(maximum, Maximum)
AMPRT_DEFINE_BINARY(minimum, Minimum)
#undef AMPRT_DEFINE_BINARY

amprt_status amprt_compare(amprt_context *ctx, amprt_predicate predicate,
                           const amprt_tensor *a, const amprt_tensor *b,
                           amprt_tensor *c) {
  const char *op = "amprt_compare";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "a", a, ctx));
  AMPRT_CHECK(checkTensor(op, "b", b, ctx));
  AMPRT_CHECK(checkTensor(op, "c", c, ctx));
  if (predicate < AMPRT_EQ || predicate > AMPRT_GE)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: unknown predicate %d", op,
                (int)predicate);
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, AMPRT_I1));
  Shape shape;
  if (!broadcastShapes(a->shape, b->shape, shape))
    return fail(AMPRT_ERROR_SHAPE, "%s: shapes %s and %s do not broadcast", op,
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  AMPRT_CHECK(checkShape(op, "c", c, shape));
  auto kind = static_cast<Compare>(predicate);
  bool integer = a->dtype == AMPRT_I32 || a->dtype == AMPRT_I64;
  if (!integer)
    AMPRT_CHECK(checkFloat(op, "a", a));
  AMPRT_ON_CUDA(ctx, compare(ctx, kind, a, b, c));
  uint8_t *out = static_cast<uint8_t *>(c->data);
  if (integer) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      broadcast2<T>(
          a, b, c,
          [&](int64_t i, const T *pa, int64_t ia, const T *pb, int64_t ib) {
            out[i] = applyCompare<T>(kind, pa[ia], pb[ib]);
          });
    };
    if (a->dtype == AMPRT_I32)
      run(int32_t());
    else
      run(int64_t());
    return ok();
  }
  AMPRT_FLOAT_DISPATCH(a->dtype, T, {
    using C = typename Compute<T>::type;
    broadcast2<T>(
        a, b, c,
        [&](int64_t i, const T *pa, int64_t ia, const T *pb, int64_t ib) {
          out[i] = applyCompare<C>(kind, load(pa, ia), load(pb, ib));
        });
  });
  return ok();
}

amprt_status amprt_select(amprt_context *ctx, const amprt_tensor *cond,
                          const amprt_tensor *a, const amprt_tensor *b,
                          amprt_tensor *c) {
  const char *op = "amprt_select";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "cond", cond, ctx));
  AMPRT_CHECK(checkTensor(op, "a", a, ctx));
  AMPRT_CHECK(checkTensor(op, "b", b, ctx));
  AMPRT_CHECK(checkTensor(op, "c", c, ctx));
  AMPRT_CHECK(checkSameDtype(op, "cond", cond, AMPRT_I1));
  AMPRT_CHECK(checkSameDtype(op, "b", b, a->dtype));
  AMPRT_CHECK(checkSameDtype(op, "c", c, a->dtype));
  Shape ab, shape;
  if (!broadcastShapes(a->shape, b->shape, ab) ||
      !broadcastShapes(cond->shape, ab, shape))
    return fail(AMPRT_ERROR_SHAPE,
                "%s: cond %s, a %s and b %s do not "
                "broadcast",
                op, shapeString(cond->shape).c_str(),
                shapeString(a->shape).c_str(), shapeString(b->shape).c_str());
  AMPRT_CHECK(checkShape(op, "c", c, shape));
  AMPRT_ON_CUDA(ctx, select(ctx, cond, a, b, c));
  BroadcastMap mc(cond->shape, shape), ma(a->shape, shape), mb(b->shape, shape);
  size_t element = amprt_dtype_size(a->dtype);
  const uint8_t *pc = static_cast<const uint8_t *>(cond->data);
  const char *pa = static_cast<const char *>(a->data);
  const char *pb = static_cast<const char *>(b->data);
  char *out = static_cast<char *>(c->data);
  parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const char *src = pc[mc(i)] ? pa + ma(i) * element : pb + mb(i) * element;
      std::memcpy(out + i * element, src, element);
    }
  });
  return ok();
}

amprt_status amprt_is_finite(amprt_context *ctx, const amprt_tensor *x,
                             amprt_tensor *y) {
  const char *op = "amprt_is_finite";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkSameDtype(op, "y", y, AMPRT_I1));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_ON_CUDA(ctx, isFinite(ctx, x, y));
  uint8_t *out = static_cast<uint8_t *>(y->data);
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *in = static_cast<const T *>(x->data);
    parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        out[i] = m_isfinite(load(in, i));
    });
  });
  return ok();
}

#define AMPRT_DEFINE_ACT_GRAD(name, kind)                                      \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *dy,        \
                            const amprt_tensor *saved, amprt_tensor *dx) {     \
    return activationGrad("amprt_" #name, ctx, dy, saved, dx,                  \
                          ActivationGrad::kind, 0.0);                          \
  }
AMPRT_DEFINE_ACT_GRAD(relu_grad, Relu)
AMPRT_DEFINE_ACT_GRAD(gelu_grad, Gelu)
AMPRT_DEFINE_ACT_GRAD(tanh_grad, Tanh)
AMPRT_DEFINE_ACT_GRAD(sigmoid_grad, Sigmoid)
#undef AMPRT_DEFINE_ACT_GRAD

amprt_status amprt_leaky_relu_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x, double alpha,
                                   amprt_tensor *dx) {
  return activationGrad("amprt_leaky_relu_grad", ctx, dy, x, dx,
                        ActivationGrad::LeakyRelu, alpha);
}

amprt_status amprt_cast(amprt_context *ctx, const amprt_tensor *x,
                        amprt_tensor *y) {
  const char *op = "amprt_cast";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "x", x, ctx));
  AMPRT_CHECK(checkTensor(op, "y", y, ctx));
  AMPRT_CHECK(checkFloat(op, "x", x));
  AMPRT_CHECK(checkFloat(op, "y", y));
  AMPRT_CHECK(checkShape(op, "y", y, x->shape));
  AMPRT_ON_CUDA(ctx, cast(ctx, x, y));
  // The casts mixed precision inserts most, on the F16C fast path.
  if (x->dtype == AMPRT_F32 && y->dtype == AMPRT_F16) {
    parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
      convert(static_cast<const float *>(x->data) + b,
              static_cast<half_t *>(y->data) + b, e - b);
    });
    return ok();
  }
  if (x->dtype == AMPRT_F16 && y->dtype == AMPRT_F32) {
    parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
      convert(static_cast<const half_t *>(x->data) + b,
              static_cast<float *>(y->data) + b, e - b);
    });
    return ok();
  }
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *in = static_cast<const T *>(x->data);
    AMPRT_FLOAT_DISPATCH(y->dtype, U, {
      U *out = static_cast<U *>(y->data);
      parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          // Widen exactly, then round once. (f64 -> f16/bf16 rounds through
          // f32; the passes never emit it, and reference runs stay f64.)
          double v = (double)load(in, i);
          store(out, i, (typename Compute<U>::type)v);
        }
      });
    });
  });
  return ok();
}

amprt_status amprt_scale(amprt_context *ctx, const amprt_tensor *x,
                         const amprt_tensor *scale, amprt_tensor *y) {
  return scaleLike<void>("amprt_scale", ctx, x, scale, y, false);
}

amprt_status amprt_unscale(amprt_context *ctx, const amprt_tensor *g,
                           const amprt_tensor *scale, amprt_tensor *y) {
  return scaleLike<void>("amprt_unscale", ctx, g, scale, y, true);
}

amprt_status amprt_tensor_fill(amprt_tensor *t, double value) {
  const char *op = "amprt_tensor_fill";
  if (!t)
    return fail(AMPRT_ERROR_INVALID_ARGUMENT, "%s: tensor is null", op);
  AMPRT_CHECK(requireContext(op, t->ctx));
  AMPRT_ON_CUDA(t->ctx, fill(t, value));
  CpuExec exec(kGrain);
  return device::fill(exec, t, value);
}

amprt_status amprt_grad_seed(amprt_context *ctx, amprt_tensor *seed) {
  const char *op = "amprt_grad_seed";
  AMPRT_CHECK(requireContext(op, ctx));
  AMPRT_CHECK(checkTensor(op, "seed", seed, ctx));
  AMPRT_CHECK(checkFloat(op, "seed", seed));
  return amprt_tensor_fill(seed, 1.0);
}

} // extern "C"
