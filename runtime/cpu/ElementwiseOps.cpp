//===- ElementwiseOps.cpp - Elementwise ops on the CPU --------------------===//
//
// The CPU backend's elementwise entries (arguments checked by the C API).
// Every formula comes from common/amprt_math.h, shared with the device
// kernels. 16-bit operands are widened to f32 to compute and rounded to
// nearest-even on store. These loops are kept rather than the shared
// device op code on CpuExec because they are faster on the CPU
// (bench/CpuOpCodeBench.cpp: the shared code takes 1.0-7.4x as long, casts
// and same-shape arithmetic the most; docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "Common.h"
#include "Convert.h"
#include "CpuExec.h"
#include "CpuOps.h"
#include "Elementwise.h"
#include <algorithm>
#include <cstring>

using namespace amprt;
using namespace amprt::cpu;

namespace {

constexpr int64_t kGrain = 1 << 14;

bool isInteger(amprt_dtype dtype) {
  return dtype == AMPRT_I32 || dtype == AMPRT_I64;
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

} // namespace

namespace amprt::cpu {

amprt_status unary(Ctx *ctx, Unary kind, const Tensor *x, Tensor *y,
                   double alpha) {
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

amprt_status binary(Ctx *ctx, Binary kind, const Tensor *a, const Tensor *b,
                    Tensor *c) {
  if (isInteger(a->dtype)) {
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

amprt_status activationGrad(Ctx *ctx, ActivationGrad kind, const Tensor *dy,
                            const Tensor *v, Tensor *dx, double alpha) {
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

amprt_status scale(Ctx *ctx, const Tensor *x, const Tensor *scale, Tensor *y,
                   bool unscale) {
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

amprt_status compare(Ctx *ctx, Compare kind, const Tensor *a, const Tensor *b,
                     Tensor *c) {
  uint8_t *out = static_cast<uint8_t *>(c->data);
  if (isInteger(a->dtype)) {
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

amprt_status select(Ctx *ctx, const Tensor *cond, const Tensor *a,
                    const Tensor *b, Tensor *c) {
  const Shape &shape = c->shape;
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

amprt_status isFinite(Ctx *ctx, const Tensor *x, Tensor *y) {
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

amprt_status cast(Ctx *ctx, const Tensor *x, Tensor *y) {
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

amprt_status fill(Tensor *t, double value) {
  CpuExec exec(kGrain);
  return device::fill(exec, t, value);
}

} // namespace amprt::cpu
