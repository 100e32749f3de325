//===- ElementwiseOps.cpp - Elementwise ops on the CPU --------------------===//
//
// The CPU backend's elementwise entries (arguments checked by the C API).
// Every formula comes from common/amprt_math.h, shared with the device
// kernels. 16-bit operands are widened to f32 to compute and rounded to
// nearest-even on store, a block at a time with vector conversions. These
// loops are kept rather than the shared device op code on CpuExec because
// they are faster on the CPU (bench/CpuOpCodeBench.cpp: the shared code
// takes 1.6-47x as long; docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "../common/amprt_math.h"
#include "Blocks.h"
#include "Common.h"
#include "Convert.h"
#include "CpuExec.h"
#include "CpuOps.h"
#include "Elementwise.h"
#include "UnaryTables.h"
#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <type_traits>
#include <utility>
#include <vector>

using namespace amprt;
using namespace amprt::cpu;

namespace {

constexpr int64_t kGrain = 1 << 14;

bool isInteger(amprt_dtype dtype) {
  return dtype == AMPRT_I32 || dtype == AMPRT_I64;
}

/// out = in * factor, in the compute type of the output (what the step's
/// loss scaling multiplies by).
template <typename T, typename U>
void scaleInto(const T *in, U *out, int64_t n, float factor) {
  if constexpr (std::is_same_v<T, U>) {
    using C = typename Compute<T>::type;
    mapElements(
        n, out, [&](C v) { return (C)(v * factor); }, in);
  } else if constexpr (kIs16Bit<T> && std::is_same_v<U, float>) {
    // Unscaling 16-bit gradients into f32: widen a block, multiply (16
    // lanes in the AVX-512 clone, the same bits).
    parallelForWide(n, kGrain, [&](int64_t b, int64_t e) {
      float block[kBlock];
      for (int64_t i = b; i < e; i += kBlock) {
        int64_t m = std::min(kBlock, e - i);
        convert(in + i, block, m);
        for (int64_t j = 0; j < m; ++j)
          out[i + j] = block[j] * factor;
      }
    });
  } else {
    parallelForWide(n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        store(out, i, (typename Compute<U>::type)(load(in, i) * factor));
    });
  }
}

/// The row length when `a` has `c`'s shape and `b` is one row of it (`c`'s
/// trailing dimensions, leading 1s aside), the common bias-like broadcast;
/// 0 otherwise.
int64_t rowBroadcast(const amprt_tensor *a, const amprt_tensor *b,
                     const amprt_tensor *c) {
  if (a->shape != c->shape || b->numel == 0)
    return 0;
  size_t lead = 0;
  while (lead < b->shape.size() && b->shape[lead] == 1)
    ++lead;
  size_t rank = b->shape.size() - lead;
  if (rank == 0 || rank > c->shape.size() ||
      !std::equal(b->shape.begin() + lead, b->shape.end(),
                  c->shape.end() - rank))
    return 0;
  return b->numel;
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

/// GELU's gradient factor (geluGradFactor in f32) for each of the 65536
/// values of the 16-bit type T, by bit pattern: the same f32 values the
/// per-element formula gives, built once (about 65K evaluations).
template <typename T> const float *geluGradFactors() {
  static const std::vector<float> factors = [] {
    std::vector<float> table(1 << 16);
    for (uint32_t b = 0; b < table.size(); ++b) {
      T v{static_cast<uint16_t>(b)};
      table[b] = geluGradFactor(load(&v, 0));
    }
    return table;
  }();
  return factors.data();
}

/// wide[j] *= factors[bits[j]] for the whole vectors of j < m, 16 lanes a
/// gather (gcc's tuning leaves gathers out of the vectoriser); returns how
/// many it did.
__attribute__((target("avx512f"))) int64_t
scaleByFactorsAvx512(float *wide, const uint16_t *bits, const float *factors,
                     int64_t m) {
  int64_t j = 0;
  for (; j + 16 <= m; j += 16) {
    // Zero-masked and merge forms with every lane selected: GCC 12's
    // unmasked ones merge into an undefined value (Convert.h).
    __m512i index = _mm512_maskz_cvtepu16_epi32(
        kAllLanes,
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(bits + j)));
    __m512 factor = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), kAllLanes,
                                             index, factors, 4);
    _mm512_storeu_ps(wide + j,
                     _mm512_mul_ps(_mm512_loadu_ps(wide + j), factor));
  }
  return j;
}
/// wide[j] *= factors[bits[j]] for j < m.
void scaleByFactors(float *wide, const uint16_t *bits, const float *factors,
                    int64_t m) {
  int64_t j = hasAvx512F() ? scaleByFactorsAvx512(wide, bits, factors, m) : 0;
  for (; j < m; ++j)
    wide[j] = wide[j] * factors[bits[j]];
}

/// dx = dy * factor(v) for 16-bit dy and v through the factor table: the
/// formula's erf and exp made GELU's gradient compute-bound (3.7x a
/// 16-bit multiply of the same tensors, Zen 5), a lookup is not. Bit for
/// bit the per-element result: the same f32 factor, product and rounding.
/// A block's reads come before its store, so dx may be dy or v.
template <typename T>
void geluGradByTable(const T *dy, const T *v, T *dx, int64_t n) {
  const float *factors = geluGradFactors<T>();
  static_assert(sizeof(T) == sizeof(uint16_t), "16-bit storage");
  parallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
    float wide[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      int64_t m = std::min(kBlock, end - i);
      convert(dy + i, wide, m);
      scaleByFactors(wide, reinterpret_cast<const uint16_t *>(v + i), factors,
                     m);
      convert(wide, dx + i, m);
    }
  });
}

/// c = a^b over n elements of T, b one exponent for them all: the loop of
/// b's kind (powWith), which for 0, 1, 2, -1 and 1/2 has no powf call in
/// it and vectorises. The same bits as m_pow element by element.
template <typename T> void powByOne(const T *a, float b, T *c, int64_t n) {
  withPowExponent(powExponentOf(b), [&](auto kind) {
    mapElements(
        n, c, [&](float x) { return powWith<kind.value>(x, b); }, a);
  });
}

} // namespace

namespace amprt::cpu {

namespace {

/// y = kind(x) over n elements of T, computed.
template <typename T>
void computeUnary(Unary kind, const T *in, T *out, int64_t n, double alpha) {
  using C = typename Compute<T>::type;
  withUnary(kind, [&](auto op) {
    C a = (C)alpha;
    mapElements(
        n, out, [&](C v) { return applyUnary<C>(op.value, v, a); }, in);
  });
}

/// The table `kind` over n elements of T looks its results up in
/// (UnaryTables.h, filled by computeUnary's loop), or null where it
/// computes them: not 16-bit, too few elements, or an op not tabled.
template <typename T> const uint16_t *unaryTableFor(Unary kind, int64_t n) {
  if constexpr (kIs16Bit<T>) {
    if (n >= kUnaryTableMinElements && tabledUnary(kind))
      return unaryTable<T>(kind, [&](const T *patterns, T *table) {
        computeUnary(kind, patterns, table, kUnaryTableSize - 1, 0.0);
      });
  }
  return nullptr;
}

} // namespace

amprt_status unary(Ctx *ctx, Unary kind, const Tensor *x, Tensor *y,
                   double alpha) {
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *in = static_cast<const T *>(x->data);
    T *out = static_cast<T *>(y->data);
    if (const uint16_t *table = unaryTableFor<T>(kind, x->numel))
      lookupAll(reinterpret_cast<const uint16_t *>(in),
                reinterpret_cast<uint16_t *>(out), x->numel, table);
    else
      computeUnary(kind, in, out, x->numel, alpha);
  });
  return ok();
}

/// f(i, a's element, b's element) for each element i of c, a and b of one
/// integer type (i32 or i64) broadcast to c's shape.
template <typename F>
void broadcastIntegers(const Tensor *a, const Tensor *b, Tensor *c, F &&f) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    broadcast2<T>(
        a, b, c,
        [&](int64_t i, const T *pa, int64_t ia, const T *pb, int64_t ib) {
          f(i, pa[ia], pb[ib]);
        });
  };
  if (a->dtype == AMPRT_I32)
    run(int32_t());
  else
    run(int64_t());
}

amprt_status binary(Ctx *ctx, Binary kind, const Tensor *a, const Tensor *b,
                    Tensor *c) {
  if (isInteger(a->dtype)) {
    broadcastIntegers(a, b, c, [&](int64_t i, auto x, auto y) {
      using T = decltype(x);
      static_cast<T *>(c->data)[i] = applyBinary<T>(kind, x, y);
    });
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
        mapElements(
            c->numel, out,
            [&](C x, C y) { return applyBinary<C>(op.value, x, y); }, pa, pb);
      } else if (a->numel == c->numel && b->numel == 1) {
        C rhs = load(pb, 0);
        if constexpr (op.value == Binary::Pow && std::is_same_v<C, float>)
          powByOne(pa, rhs, out, c->numel);
        else
          mapElements(
              c->numel, out,
              [&](C x) { return applyBinary<C>(op.value, x, rhs); }, pa);
      } else if (int64_t inner = rowBroadcast(a, b, c)) {
        // A bias-like right operand: every row of a meets all of b.
        mapRows(
            c->numel / inner, inner, out,
            [&](C x, C y) { return applyBinary<C>(op.value, x, y); }, pa, pb);
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
    if constexpr (kIs16Bit<T>) {
      if (kind == ActivationGrad::Gelu) {
        geluGradByTable(g, s, out, dy->numel);
        return ok();
      }
    }
    withActivationGrad(kind, [&](auto op) {
      C a = (C)alpha;
      mapElements(
          dy->numel, out,
          [&](C gi, C si) {
            return applyActivationGrad<C>(op.value, gi, si, a);
          },
          g, s);
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
      scaleInto(in, out, x->numel, factor);
    });
  });
  return ok();
}

amprt_status compare(Ctx *ctx, Compare kind, const Tensor *a, const Tensor *b,
                     Tensor *c) {
  uint8_t *out = static_cast<uint8_t *>(c->data);
  if (isInteger(a->dtype)) {
    broadcastIntegers(a, b, c, [&](int64_t i, auto x, auto y) {
      out[i] = applyCompare<decltype(x)>(kind, x, y);
    });
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
  size_t element = amprt_dtype_size(a->dtype);
  const uint8_t *pc = static_cast<const uint8_t *>(cond->data);
  const char *pa = static_cast<const char *>(a->data);
  const char *pb = static_cast<const char *>(b->data);
  char *out = static_cast<char *>(c->data);
  bool fullA = a->shape == shape, fullB = b->shape == shape;
  // One flag choosing a whole tensor: dynamic loss scaling guards every
  // optimizer result this way (tg.select(finite, new, old)), so it is a
  // copy, not a gather per element.
  if (cond->numel == 1 && fullA && fullB) {
    const char *src = pc[0] ? pa : pb;
    int64_t bytes = c->numel * (int64_t)element;
    parallelFor(bytes, int64_t(1) << 18, [&](int64_t begin, int64_t end) {
      std::memcpy(out + begin, src + begin, end - begin);
    });
    return ok();
  }
  // Elementwise with no broadcast: a typed loop the compiler vectorises.
  if (cond->shape == shape && fullA && fullB) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T *ta = reinterpret_cast<const T *>(pa);
      const T *tb = reinterpret_cast<const T *>(pb);
      T *to = reinterpret_cast<T *>(out);
      parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          to[i] = pc[i] ? ta[i] : tb[i];
      });
      return ok();
    };
    switch (element) {
    case 1:
      return run(uint8_t());
    case 2:
      return run(uint16_t());
    case 4:
      return run(uint32_t());
    case 8:
      return run(uint64_t());
    }
  }
  BroadcastMap mc(cond->shape, shape), ma(a->shape, shape), mb(b->shape, shape);
  parallelFor(c->numel, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const char *src = pc[mc(i)] ? pa + ma(i) * element : pb + mb(i) * element;
      std::memcpy(out + i * element, src, element);
    }
  });
  return ok();
}

namespace {

/// Elements of each value in a block of an elementwise chain.
constexpr int64_t kChainBlock = 256;

/// The table of each unary step of a 16-bit chain over n elements that
/// runs as a lookup (unary's choice), null for the other steps.
template <typename T>
std::array<const uint16_t *, kMaxChainSteps> chainTables(const Chain &chain,
                                                         int64_t n) {
  std::array<const uint16_t *, kMaxChainSteps> tables{};
  for (int s = 0; s < chain.steps; ++s)
    if (!chain.step[s].binary)
      tables[s] = unaryTableFor<T>(Unary(chain.step[s].op), n);
  return tables;
}

/// A tabled step over a block of a 16-bit chain: `a` (values of T, so the
/// narrowing is exact) looked up into dst, widened, and into `last` (the
/// output's block) when the step is the chain's last.
template <typename T>
void lookupStep(const uint16_t *table, const float *a, float *dst, int64_t len,
                T *last) {
  T bits[kChainBlock];
  convert(a, bits, len);
  auto *raw = reinterpret_cast<uint16_t *>(bits);
  lookupSpan(raw, raw, len, table);
  if (last)
    std::copy(bits, bits + len, last);
  else
    convert(bits, dst, len);
}

} // namespace

amprt_status elementwiseChain(Ctx *ctx, const Tensor *const *inputs,
                              const Chain &chain, Tensor *y) {
  // A block of every value at a time: the inputs (widened when 16-bit),
  // then each step over the block, rounded as its own call would store
  // it; only the last value reaches memory. The block stays in L1, where
  // the separate calls each streamed the whole tensor in and out.
  // (A generic lambda, so that `if constexpr` discards the other types'
  // branches.)
  auto run = [&](auto *out) {
    using T = std::remove_pointer_t<decltype(out)>;
    using C = typename Compute<T>::type;
    std::array<const uint16_t *, kMaxChainSteps> tables =
        chainTables<T>(chain, y->numel);
    parallelForWide(y->numel, kGrain, [&](int64_t begin, int64_t end) {
      C block[kMaxChainInputs + kMaxChainSteps][kChainBlock];
      const C *values[kMaxChainInputs + kMaxChainSteps];
      for (int64_t i = begin; i < end; i += kChainBlock) {
        int64_t len = std::min(kChainBlock, end - i);
        for (int k = 0; k < chain.inputs; ++k) {
          const T *in = static_cast<const T *>(inputs[k]->data) + i;
          if constexpr (std::is_same_v<T, C>) {
            values[k] = in;
          } else {
            convert(in, block[k], len);
            values[k] = block[k];
          }
        }
        for (int s = 0; s < chain.steps; ++s) {
          const ChainStep &step = chain.step[s];
          bool last = s + 1 == chain.steps;
          C *dst = block[chain.inputs + s];
          if constexpr (std::is_same_v<T, C>)
            if (last)
              dst = out + i; // may be an input's storage: read first
          const C *a = values[step.a], *b = values[step.b];
          if constexpr (kIs16Bit<T>) {
            if (tables[s]) {
              lookupStep(tables[s], a, dst, len, last ? out + i : nullptr);
              values[chain.inputs + s] = dst;
              continue;
            }
          }
          if (step.binary) {
            withBinary(Binary(step.op), [&](auto op) {
              for (int64_t j = 0; j < len; ++j)
                dst[j] = applyBinary<C>(op.value, a[j], b[j]);
            });
          } else {
            C alpha = (C)step.alpha;
            withUnary(Unary(step.op), [&](auto op) {
              for (int64_t j = 0; j < len; ++j)
                dst[j] = applyUnary<C>(op.value, a[j], alpha);
            });
          }
          if constexpr (!std::is_same_v<T, C>) {
            if (last)
              convert(dst, out + i, len);
            else
              roundThrough(T(), dst, dst, len);
          }
          values[chain.inputs + s] = dst;
        }
      }
    });
  };
  AMPRT_FLOAT_DISPATCH(y->dtype, T, run(static_cast<T *>(y->data)));
  return ok();
}

amprt_status isFinite(Ctx *ctx, const Tensor *x, Tensor *y) {
  uint8_t *out = static_cast<uint8_t *>(y->data);
  AMPRT_FLOAT_DISPATCH(x->dtype, T, {
    const T *in = static_cast<const T *>(x->data);
    parallelForWide(x->numel, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        out[i] = m_isfinite(load(in, i));
    });
  });
  return ok();
}

amprt_status cast(Ctx *ctx, const Tensor *x, Tensor *y) {
  // The casts mixed precision inserts most, on the bulk conversions (F16C
  // for f16, vectorised loops for bf16).
  auto bulk = [&](auto from, auto to) {
    using From = decltype(from);
    using To = decltype(to);
    parallelFor(x->numel, kGrain, [&](int64_t b, int64_t e) {
      convert(static_cast<const From *>(x->data) + b,
              static_cast<To *>(y->data) + b, e - b);
    });
    return ok();
  };
  if (x->dtype == AMPRT_F32 && y->dtype == AMPRT_F16)
    return bulk(float(), half_t());
  if (x->dtype == AMPRT_F16 && y->dtype == AMPRT_F32)
    return bulk(half_t(), float());
  if (x->dtype == AMPRT_F32 && y->dtype == AMPRT_BF16)
    return bulk(float(), bf16_t());
  if (x->dtype == AMPRT_BF16 && y->dtype == AMPRT_F32)
    return bulk(bf16_t(), float());
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
