//===- ShapeOps.cpp - Reductions, data movement and embedding on the CPU --===//
//
// The CPU backend's entries (arguments checked by the C API). Kept rather
// than the shared device op code on CpuExec because they are faster on the
// CPU (bench/CpuOpCodeBench.cpp: reductions 3-28x, transpose 1.8x, gather
// 4x; docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "../device/DeviceOps.h"
#include "Blocks.h"
#include "Common.h"
#include "CpuExec.h"
#include "CpuOps.h"
#include "Elementwise.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

using namespace amprt;
using namespace amprt::cpu;

namespace {} // namespace

namespace amprt::cpu {

amprt_status reduce(Ctx *ctx, Reduce kind, const Tensor *x, const bool *mask,
                    Tensor *y) {
  int64_t rank = x->shape.size();
  std::vector<bool> reduced(mask, mask + rank);
  Shape kept;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x->shape[d]);
    if (reduced[d])
      count *= x->shape[d];
  }
  double init =
      kind == Reduce::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<double> acc(y->numel, init);
  // The combine rule, chosen once: max propagates NaN.
  auto withCombine = [&](auto body) {
    if (kind == Reduce::Max)
      body([](double a, double v) { return foldMax(a, v); });
    else
      body([](double a, double v) { return a + v; });
  };
  // Reduced dimensions in one contiguous run (leading: bias sums; trailing:
  // row sums; in the middle: a mean over tokens) make x an [outer, mid,
  // inner] array reduced over mid. Each output still adds its elements in
  // memory order, as the generic loop below does, so the sums are the
  // same; the loops are typed, their inner loop runs over contiguous
  // outputs, and outputs are split across threads.
  int64_t first = 0;
  while (first < rank && !reduced[first])
    ++first;
  int64_t last = first;
  while (last < rank && reduced[last])
    ++last;
  bool contiguous =
      std::find(reduced.begin() + last, reduced.end(), true) == reduced.end();
  if (contiguous && x->numel > 0) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < first; ++d)
      outer *= x->shape[d];
    for (int64_t d = last; d < rank; ++d)
      inner *= x->shape[d];
    int64_t mid = count;
    AMPRT_FLOAT_DISPATCH(x->dtype, T, {
      const T *xs = static_cast<const T *>(x->data);
      withCombine([&](auto combine) {
        // Threads take outputs: whole outer rows, or column ranges of the
        // one row when there is a single outer index.
        int64_t work = outer > 1 ? outer : inner;
        int64_t grain = std::max<int64_t>(
            1, kElementGrain / std::max<int64_t>(1, x->numel / work));
        parallelFor(work, grain, [&](int64_t begin, int64_t end) {
          int64_t o0 = outer > 1 ? begin : 0, o1 = outer > 1 ? end : 1;
          int64_t i0 = outer > 1 ? 0 : begin, i1 = outer > 1 ? inner : end;
          for (int64_t o = o0; o < o1; ++o) {
            double *a = acc.data() + o * inner;
            for (int64_t m = 0; m < mid; ++m) {
              const T *row = xs + (o * mid + m) * inner;
              for (int64_t i = i0; i < i1; ++i)
                a[i] = combine(a[i], (double)load(row, i));
            }
          }
        });
      });
    });
  } else {
    // The output index of x's element i: its position in `kept`.
    std::vector<int64_t> xStrides = stridesOf(x->shape),
                         kStrides = stridesOf(kept);
    withCombine([&](auto combine) {
      for (int64_t i = 0; i < x->numel; ++i) {
        int64_t out = 0, rest = i;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t idx = rest / xStrides[d];
          rest %= xStrides[d];
          if (!reduced[d])
            out += idx * kStrides[d];
        }
        acc[out] = combine(acc[out], get(x, i));
      }
    });
  }
  // Typed stores: set() dispatched on the type per element, which cost
  // as much as the sums of a mean over tokens.
  AMPRT_FLOAT_DISPATCH(y->dtype, T, {
    T *ys = static_cast<T *>(y->data);
    using C = typename Compute<T>::type;
    if (kind == Reduce::Mean)
      for (int64_t i = 0; i < y->numel; ++i)
        store(ys, i, (C)(acc[i] / double(count)));
    else
      for (int64_t i = 0; i < y->numel; ++i)
        store(ys, i, (C)acc[i]);
  });
  return ok();
}

/// CPU memory is the host's: a copy "on the device" is a memcpy, split
/// over the cores in slices of 32 KiB or more (the reshape copies of a
/// transformer step, 100-230 KiB each, took 5-8 us on one core).
amprt_status copyOnDevice(Ctx *, void *dst, const void *src, size_t bytes) {
  constexpr int64_t kSlice = 32 << 10;
  char *to = static_cast<char *>(dst);
  const char *from = static_cast<const char *>(src);
  parallelFor((int64_t)bytes, kSlice, [&](int64_t begin, int64_t end) {
    std::memcpy(to + begin, from + begin, end - begin);
  });
  return AMPRT_OK;
}

/// Copies `runs` runs of `run` elements from x to y, each one copy: run i
/// goes from x's element `sourceOf(i * run)` to y's `destinationOf(i *
/// run)` (elements in row-major order); run > 0.
template <typename DestinationOf, typename SourceOf>
static void copyRunsBetween(const Tensor *x, Tensor *y, int64_t runs,
                            int64_t run, DestinationOf destinationOf,
                            SourceOf sourceOf) {
  size_t e = amprt_dtype_size(x->dtype), bytes = run * e;
  const char *in = static_cast<const char *>(x->data);
  char *out = static_cast<char *>(y->data);
  parallelFor(runs, std::max<int64_t>(1, (1 << 14) / run),
              [&](int64_t b, int64_t end) {
                for (int64_t i = b; i < end; ++i)
                  std::memcpy(out + destinationOf(i * run) * e,
                              in + sourceOf(i * run) * e, bytes);
              });
}

/// Fills y with runs of `run` elements, each one copy from x: run i starts
/// at x's element `sourceOf(i * run)`.
template <typename SourceOf>
static void copyRuns(const Tensor *x, Tensor *y, int64_t run,
                     SourceOf sourceOf) {
  if (y->numel == 0) // run may be 0 too
    return;
  copyRunsBetween(
      x, y, y->numel / run, run, [](int64_t at) { return at; }, sourceOf);
}

amprt_status broadcastTo(Ctx *ctx, const Tensor *x, Tensor *y) {
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
    copyRuns(x, y, block, [&](int64_t at) { return map(at); });
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

amprt_status transpose(Ctx *ctx, const Tensor *x, const int64_t *perm,
                       Tensor *y) {
  int64_t rank = x->shape.size();
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(y->shape);
  // Trailing axes the permutation leaves in place are contiguous in both
  // tensors: each run of them is one copy (a split or merge of attention
  // heads moves whole head-width rows).
  int64_t kept = rank, run = 1;
  for (; kept > 0 && perm[kept - 1] == kept - 1; --kept)
    run *= y->shape[kept - 1];
  copyRuns(x, y, run, [&](int64_t rest) {
    int64_t src = 0;
    for (int64_t d = 0; d < kept; ++d) {
      src += (rest / ys[d]) * xs[perm[d]];
      rest %= ys[d];
    }
    return src;
  });
  return ok();
}

amprt_status concat(Ctx *ctx, const Tensor *const *xs, int count, int64_t dim,
                    Tensor *y) {
  Split s = split(y->shape, dim);
  size_t e = amprt_dtype_size(y->dtype);
  char *out = static_cast<char *>(y->data);
  size_t rowBytes = s.axis * s.inner * e;
  if (rowBytes == 0)
    return ok();
  // Rows (the dimensions before the axis) on the cores, each row one copy
  // per operand into its place: the gradient of q, k and v sliced from one
  // product is a concat of 4096 rows of three blocks, and one thread
  // copying operand by operand took 2-3x as long.
  parallelFor(s.outer, std::max<int64_t>(1, (1 << 14) / rowBytes),
              [&](int64_t first, int64_t last) {
                for (int64_t o = first; o < last; ++o) {
                  char *row = out + o * rowBytes;
                  for (int i = 0; i < count; ++i) {
                    size_t block = xs[i]->shape[dim] * s.inner * e;
                    std::memcpy(
                        row, static_cast<const char *>(xs[i]->data) + o * block,
                        block);
                    row += block;
                  }
                }
              });
  return ok();
}

amprt_status stridedCopy(Ctx *ctx, const Tensor *x, const StridedView &from,
                         Tensor *y, const StridedView &to) {
  // Views whose last dimension is contiguous on both sides and at least 32
  // bytes long (an attention head's row) move as one copy per row, as
  // transpose's runs do: the shared plan's 16-byte elements, each placed
  // by dividing its index, took 12x as long for the GPT model's heads.
  int last = from.rank - 1;
  int64_t run = last >= 0 ? from.shape[last] : 0, n = from.numel();
  if (n > 0 && from.stride[last] == 1 && to.stride[last] == 1 &&
      run * int64_t(amprt_dtype_size(x->dtype)) >= 32) {
    device::Index source = device::indexOf(from), target = device::indexOf(to);
    copyRunsBetween(
        x, y, n / run, run,
        [&](int64_t at) { return to.offset + target.offset(at); },
        [&](int64_t at) { return from.offset + source.offset(at); });
    return ok();
  }
  // Otherwise the shared plan (merged dimensions, wide elements).
  CpuExec exec(kElementGrain);
  return device::stridedCopyView(exec, x, from, y, to);
}

amprt_status slice(Ctx *ctx, const Tensor *x, const int64_t *offsets,
                   const int64_t *strides, Tensor *y) {
  int64_t rank = x->shape.size();
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(y->shape);
  // Trailing axes taken whole, and the unit-stride axis before them, are
  // contiguous in both tensors: each run of them is one copy (the q, k and
  // v thirds of a fused projection are runs of a row).
  auto step = [&](int64_t d) { return strides ? strides[d] : 1; };
  int64_t d = rank, run = 1;
  for (; d > 0 && step(d - 1) == 1 && offsets[d - 1] == 0 &&
         y->shape[d - 1] == x->shape[d - 1];
       --d)
    run *= y->shape[d - 1];
  if (d > 0 && step(d - 1) == 1)
    run *= y->shape[--d];
  copyRuns(x, y, run, [&](int64_t rest) {
    int64_t src = 0;
    for (int64_t a = 0; a < rank; ++a) {
      src += (offsets[a] + rest / ys[a] * step(a)) * xs[a];
      rest %= ys[a];
    }
    return src;
  });
  return ok();
}

/// Fills y with `value`: zero bytes where that is the value (every float
/// type's +0, and the integer types, which pad with 0), else the value's
/// bytes in y's type repeated.
static void fillWith(Tensor *y, double value) {
  if (y->numel == 0)
    return;
  if (!isFloat(y->dtype) || (value == 0 && !std::signbit(value))) {
    std::memset(y->data, 0, y->bytes);
    return;
  }
  size_t e = amprt_dtype_size(y->dtype);
  set(y, 0, value);
  char pattern[8];
  std::memcpy(pattern, y->data, e);
  char *out = static_cast<char *>(y->data);
  parallelFor(y->numel, 1 << 14, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i)
      std::memcpy(out + i * e, pattern, e);
  });
}

amprt_status pad(Ctx *ctx, const Tensor *x, const int64_t *low, double value,
                 Tensor *y) {
  fillWith(y, value);
  if (x->numel == 0)
    return ok();
  int64_t rank = x->shape.size();
  std::vector<int64_t> xs = stridesOf(x->shape), ys = stridesOf(y->shape);
  // Trailing axes x fills whole, and the axis before them, are contiguous
  // in both tensors: each run of them is one copy (a slice's gradient, the
  // q, k or v third of a fused projection, moves runs of a row).
  int64_t d = rank, run = 1;
  for (; d > 0 && low[d - 1] == 0 && x->shape[d - 1] == y->shape[d - 1]; --d)
    run *= x->shape[d - 1];
  if (d > 0)
    run *= x->shape[--d];
  copyRunsBetween(
      x, y, x->numel / run, run,
      [&](int64_t rest) {
        int64_t dst = 0;
        for (int64_t a = 0; a < rank; ++a) {
          dst += (rest / xs[a] + low[a]) * ys[a];
          rest %= xs[a];
        }
        return dst;
      },
      [](int64_t at) { return at; });
  return ok();
}

amprt_status gather(Ctx *ctx, const Tensor *table, const Tensor *indices,
                    Tensor *y) {
  int64_t rows = table->shape[0], row = table->numel / rows;
  size_t bytes = row * amprt_dtype_size(table->dtype);
  for (int64_t i = 0; i < indices->numel; ++i) {
    int64_t r = getIndex(indices, i);
    if (r < 0 || r >= rows)
      return fail(AMPRT_ERROR_INDEX, "%s: index %lld is outside [0, %lld)",
                  "amprt_gather", (long long)r, (long long)rows);
    std::memcpy(static_cast<char *>(y->data) + i * bytes,
                static_cast<const char *>(table->data) + r * bytes, bytes);
  }
  return ok();
}

amprt_status gatherGrad(Ctx *ctx, const Tensor *dy, const Tensor *indices,
                        Tensor *dtable) {
  int64_t rows = dtable->shape[0], row = dtable->numel / rows;
  for (int64_t i = 0; i < indices->numel; ++i) {
    int64_t r = getIndex(indices, i);
    if (r < 0 || r >= rows)
      return fail(AMPRT_ERROR_INDEX, "%s: index %lld is outside [0, %lld)",
                  "amprt_gather_grad", (long long)r, (long long)rows);
  }
  std::vector<double> acc(dtable->numel, 0.0);
  AMPRT_FLOAT_DISPATCH(dy->dtype, T, {
    const T *g = static_cast<const T *>(dy->data);
    // Columns on the cores, each adding dy's rows in index order: every
    // element's sum is the serial one on any number of threads. (One
    // thread reading dy through a per-element type switch took 0.6 ms of
    // the GPT model's step.)
    parallelFor(row, 16, [&](int64_t c0, int64_t c1) {
      for (int64_t i = 0; i < indices->numel; ++i) {
        double *a = acc.data() + getIndex(indices, i) * row;
        const T *gi = g + i * row;
        for (int64_t c = c0; c < c1; ++c)
          a[c] += (double)load(gi, c);
      }
    });
  });
  AMPRT_FLOAT_DISPATCH(dtable->dtype, U, {
    U *out = static_cast<U *>(dtable->data);
    parallelFor(dtable->numel, 1 << 14, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i)
        store(out, i, (typename Compute<U>::type)acc[i]); // as set() rounds
    });
  });
  return ok();
}

} // namespace amprt::cpu
