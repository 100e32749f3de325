//===- ShapeAndStateTest.cpp - Shape ops, optimizers and loss scaling -----===//

#include "RuntimeTestUtils.h"
#include "common/Runtime.h"
#include <algorithm>

using namespace amprt_test;

namespace {

TEST(RuntimeShape, Reductions) {
  Runtime rt;
  auto xv = randomValues(24, 1);
  Tensor x = rt.make(AMPRT_F32, {2, 3, 4}, xv);
  int64_t dims[] = {0, 2};
  Tensor sum = rt.make(AMPRT_F32, {3}), mean = rt.make(AMPRT_F32, {1, 3, 1}),
         max = rt.make(AMPRT_F32, {3});
  ASSERT_EQ(amprt_reduce_sum(rt.ctx, x, dims, 2, sum), AMPRT_OK);
  ASSERT_EQ(amprt_reduce_mean(rt.ctx, x, dims, 2, mean), AMPRT_OK);
  ASSERT_EQ(amprt_reduce_max(rt.ctx, x, dims, 2, max), AMPRT_OK);
  std::vector<double> rx = rt.read(x), ws(3, 0), wm(3, -INFINITY);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        ws[j] += rx[(i * 3 + j) * 4 + k];
        wm[j] = std::max(wm[j], rx[(i * 3 + j) * 4 + k]);
      }
  expectNear(rt.read(sum), ws, 1e-5, "reduce_sum");
  std::vector<double> wmean = {ws[0] / 8, ws[1] / 8, ws[2] / 8};
  expectNear(rt.read(mean), wmean, 1e-5, "reduce_mean keepdims");
  expectNear(rt.read(max), wm, 0, "reduce_max");
  Tensor all = rt.make(AMPRT_F32, {});
  int64_t every[] = {0, 1, 2};
  ASSERT_EQ(amprt_reduce_sum(rt.ctx, x, every, 3, all), AMPRT_OK);
  EXPECT_NEAR(rt.read(all)[0], ws[0] + ws[1] + ws[2], 1e-5);
  // Leading and trailing reductions take the kernel's memory-order path.
  std::vector<std::vector<int64_t>> dimSets = {{0}, {0, 1}, {2}, {1, 2}};
  for (const std::vector<int64_t> &ds : dimSets) {
    Shape keptShape;
    Shape full{2, 3, 4};
    for (int64_t d = 0; d < 3; ++d)
      if (std::find(ds.begin(), ds.end(), d) == ds.end())
        keptShape.push_back(full[d]);
    int64_t outN = 1;
    for (int64_t dim : keptShape)
      outN *= dim;
    std::vector<double> wantSum(outN, 0), wantMax(outN, -INFINITY);
    for (int64_t i = 0; i < 24; ++i) {
      int64_t idx[3] = {i / 12, (i / 4) % 3, i % 4}, out = 0;
      for (int64_t d = 0; d < 3; ++d)
        if (std::find(ds.begin(), ds.end(), d) == ds.end())
          out = out * full[d] + idx[d];
      wantSum[out] += rx[i];
      wantMax[out] = std::max(wantMax[out], rx[i]);
    }
    Tensor s2 = rt.make(AMPRT_F32, keptShape),
           m2 = rt.make(AMPRT_F32, keptShape);
    ASSERT_EQ(amprt_reduce_sum(rt.ctx, x, ds.data(), ds.size(), s2), AMPRT_OK);
    ASSERT_EQ(amprt_reduce_max(rt.ctx, x, ds.data(), ds.size(), m2), AMPRT_OK);
    expectNear(rt.read(s2), wantSum, 1e-5, "reduce_sum leading/trailing");
    expectNear(rt.read(m2), wantMax, 0, "reduce_max leading/trailing");
  }
}

// Every set of reduced dimensions, on a tensor large enough to be split
// across threads: each output adds its elements in memory order in double
// (contiguous runs of reduced dimensions take the [outer, mid, inner]
// loops, the rest the generic one), so the results are exact against a
// reference that does the same; max propagates NaN.
TEST(RuntimeShape, ReductionsInMemoryOrderEveryAxisSet) {
  Runtime rt;
  Shape full{3, 5, 7, 300};
  int64_t n = 3 * 5 * 7 * 300;
  std::vector<double> xv = randomValues(n, 7);
  xv[4321] = NAN;
  for (amprt_dtype dtype : {AMPRT_F32, AMPRT_F16}) {
    Tensor x = rt.make(dtype, full, xv);
    std::vector<double> rx = rt.read(x);
    for (unsigned mask = 0; mask < 16; ++mask) {
      std::vector<int64_t> dims;
      Shape kept;
      int64_t count = 1;
      for (int64_t d = 0; d < 4; ++d) {
        if (mask & (1u << d)) {
          dims.push_back(d);
          count *= full[d];
        } else {
          kept.push_back(full[d]);
        }
      }
      int64_t outN = n / count;
      std::vector<double> sum(outN, 0), max(outN, -INFINITY);
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, out = 0, stride = n;
        for (int64_t d = 0; d < 4; ++d) {
          stride /= full[d];
          int64_t idx = rest / stride;
          rest %= stride;
          if (!(mask & (1u << d)))
            out = out * full[d] + idx;
        }
        sum[out] += rx[i];
        max[out] = (rx[i] != rx[i] || rx[i] > max[out]) ? rx[i] : max[out];
      }
      std::vector<double> mean(outN);
      for (int64_t i = 0; i < outN; ++i)
        mean[i] = sum[i] / count;
      // The references rounded into the output type as the kernel does.
      auto rounded = [&](const std::vector<double> &v) {
        Tensor t = rt.make(dtype, kept, v);
        return rt.read(t);
      };
      sum = rounded(sum);
      mean = rounded(mean);
      max = rounded(max);
      Tensor s = rt.make(dtype, kept), m = rt.make(dtype, kept),
             mx = rt.make(dtype, kept);
      ASSERT_EQ(amprt_reduce_sum(rt.ctx, x, dims.data(), dims.size(), s),
                AMPRT_OK);
      ASSERT_EQ(amprt_reduce_mean(rt.ctx, x, dims.data(), dims.size(), m),
                AMPRT_OK);
      ASSERT_EQ(amprt_reduce_max(rt.ctx, x, dims.data(), dims.size(), mx),
                AMPRT_OK);
      auto same = [&](const std::vector<double> &got,
                      const std::vector<double> &want, const char *what) {
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_TRUE(got[i] == want[i] ||
                      (got[i] != got[i] && want[i] != want[i]))
              << what << " mask " << mask << " at " << i << ": " << got[i]
              << " vs " << want[i];
      };
      same(rt.read(s), sum, "sum");
      same(rt.read(m), mean, "mean");
      same(rt.read(mx), max, "max");
    }
  }
}

TEST(RuntimeShape, MovementOps) {
  Runtime rt;
  std::vector<double> v(6);
  for (int i = 0; i < 6; ++i)
    v[i] = i + 1;
  Tensor x = rt.make(AMPRT_F32, {2, 3}, v);
  // transpose
  Tensor t = rt.make(AMPRT_F32, {3, 2});
  int64_t perm[] = {1, 0};
  ASSERT_EQ(amprt_transpose(rt.ctx, x, perm, t), AMPRT_OK);
  EXPECT_EQ(rt.read(t), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  // reshape
  Tensor r = rt.make(AMPRT_F32, {6});
  ASSERT_EQ(amprt_reshape(rt.ctx, x, r), AMPRT_OK);
  EXPECT_EQ(rt.read(r), v);
  // reshape_moving: the result takes the dying input's storage, no copy.
  {
    Tensor dying = rt.make(AMPRT_F32, {3, 2}, v),
           view = rt.make(AMPRT_F32, {6});
    void *from = dying.t->data, *old = view.t->data;
    ASSERT_EQ(amprt_reshape_moving(rt.ctx, dying, view), AMPRT_OK);
    EXPECT_EQ(view.t->data, from);
    EXPECT_EQ(dying.t->data, old);
    EXPECT_EQ(rt.read(view), v);
    // amprt_reshape's checks apply, and nothing moves on failure.
    Tensor wrong = rt.make(AMPRT_F32, {5}), half = rt.make(AMPRT_F16, {6});
    EXPECT_EQ(amprt_reshape_moving(rt.ctx, view, wrong), AMPRT_ERROR_SHAPE);
    EXPECT_NE(amprt_reshape_moving(rt.ctx, view, half), AMPRT_OK);
    EXPECT_EQ(view.t->data, from);
  }
  // broadcast_to
  Tensor row = rt.make(AMPRT_F32, {3}, {7, 8, 9}),
         b = rt.make(AMPRT_F32, {2, 3});
  ASSERT_EQ(amprt_broadcast_to(rt.ctx, row, b), AMPRT_OK);
  EXPECT_EQ(rt.read(b), (std::vector<double>{7, 8, 9, 7, 8, 9}));
  // Every kernel path: whole trailing blocks, runs of one element, both,
  // and a plain copy; 2- and 8-byte elements.
  struct Broadcast {
    Shape from, to;
  } broadcasts[] = {
      {{2, 1}, {2, 3}}, {{2, 1, 3}, {2, 4, 3}}, {{1}, {5}},
      {{2, 3}, {2, 3}}, {{3, 1, 1}, {3, 2, 2}}, {{1, 3, 1}, {2, 3, 2}}};
  for (const Broadcast &bc : broadcasts)
    for (amprt_dtype dtype : {AMPRT_F16, AMPRT_F64}) {
      int64_t n = 1, m = 1;
      for (int64_t dim : bc.from)
        n *= dim;
      for (int64_t dim : bc.to)
        m *= dim;
      std::vector<double> src(n);
      for (int64_t i = 0; i < n; ++i)
        src[i] = i + 1;
      Tensor from = rt.make(dtype, bc.from, src), to = rt.make(dtype, bc.to);
      ASSERT_EQ(amprt_broadcast_to(rt.ctx, from, to), AMPRT_OK);
      std::vector<double> want(m);
      for (int64_t i = 0; i < m; ++i) {
        int64_t rest = i, offset = 0, stride = 1;
        for (int64_t d = (int64_t)bc.to.size() - 1; d >= 0; --d) {
          int64_t idx = rest % bc.to[d];
          rest /= bc.to[d];
          if (bc.from[d] != 1)
            offset += idx * stride;
          stride *= bc.from[d];
        }
        want[i] = src[offset];
      }
      EXPECT_EQ(rt.read(to), want);
    }
  // concat along axis 1
  Tensor c = rt.make(AMPRT_F32, {2, 6});
  const amprt_tensor *parts[] = {x, b};
  ASSERT_EQ(amprt_concat(rt.ctx, parts, 2, -1, c), AMPRT_OK);
  EXPECT_EQ(rt.read(c),
            (std::vector<double>{1, 2, 3, 7, 8, 9, 4, 5, 6, 7, 8, 9}));
  // strided slice
  Tensor s = rt.make(AMPRT_F32, {2, 2});
  int64_t offsets[] = {0, 1}, strides[] = {1, 2};
  ASSERT_EQ(amprt_slice(rt.ctx, c, offsets, strides, s), AMPRT_OK);
  EXPECT_EQ(rt.read(s), (std::vector<double>{2, 7, 5, 7}));
  // pad
  Tensor p = rt.make(AMPRT_F32, {3, 4});
  int64_t low[] = {1, 0}, high[] = {0, 1};
  ASSERT_EQ(amprt_pad(rt.ctx, x, low, high, -1, p), AMPRT_OK);
  EXPECT_EQ(rt.read(p),
            (std::vector<double>{-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1}));
}

/// Element `i` (row-major) of `shape`'s index space, as indices.
static std::vector<int64_t> indicesOf(int64_t i, const Shape &shape) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

/// Row-major position of `idx` in `shape`.
static int64_t positionOf(const std::vector<int64_t> &idx, const Shape &shape) {
  int64_t at = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    at = at * shape[d] + idx[d];
  return at;
}

// Every permutation of a 4-d tensor (trailing axes kept in place or not,
// so each run length the kernel copies at once) and slices whose trailing
// axes are whole, partly taken or strided, against element-wise references.
TEST(RuntimeShape, TransposeAndSliceAgreeWithElementwiseReferences) {
  Runtime rt;
  Shape shape{2, 3, 4, 5};
  std::vector<double> v(120);
  for (int i = 0; i < 120; ++i)
    v[i] = i;
  Tensor x = rt.make(AMPRT_F32, shape, v);
  std::vector<int64_t> perm{0, 1, 2, 3};
  do {
    Shape out(4);
    for (int d = 0; d < 4; ++d)
      out[d] = shape[perm[d]];
    Tensor t = rt.make(AMPRT_F32, out);
    ASSERT_EQ(amprt_transpose(rt.ctx, x, perm.data(), t), AMPRT_OK);
    std::vector<double> want(120);
    for (int64_t i = 0; i < 120; ++i) {
      std::vector<int64_t> at = indicesOf(i, out), src(4);
      for (int d = 0; d < 4; ++d)
        src[perm[d]] = at[d];
      want[i] = v[positionOf(src, shape)];
    }
    EXPECT_EQ(rt.read(t), want) << perm[0] << perm[1] << perm[2] << perm[3];
  } while (std::next_permutation(perm.begin(), perm.end()));

  struct Window {
    std::vector<int64_t> offsets, strides;
    Shape sizes;
  } windows[] = {{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 3, 4, 5}},
                 {{1, 0, 0, 0}, {1, 1, 1, 1}, {1, 3, 4, 5}},
                 {{0, 1, 0, 0}, {1, 1, 1, 1}, {2, 2, 4, 5}},
                 {{0, 0, 1, 0}, {1, 1, 1, 1}, {2, 3, 2, 5}},
                 {{0, 0, 0, 2}, {1, 1, 1, 1}, {2, 3, 4, 3}},
                 {{0, 0, 1, 1}, {1, 1, 2, 1}, {2, 3, 2, 4}},
                 {{0, 1, 0, 0}, {1, 1, 1, 2}, {2, 2, 4, 3}}};
  for (const Window &w : windows) {
    int64_t n = 1;
    for (int64_t s : w.sizes)
      n *= s;
    Tensor s = rt.make(AMPRT_F32, w.sizes);
    ASSERT_EQ(amprt_slice(rt.ctx, x, w.offsets.data(), w.strides.data(), s),
              AMPRT_OK);
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> at = indicesOf(i, w.sizes);
      for (int d = 0; d < 4; ++d)
        at[d] = w.offsets[d] + at[d] * w.strides[d];
      want[i] = v[positionOf(at, shape)];
    }
    EXPECT_EQ(rt.read(s), want);
  }
}

// Pad copies runs of x into y filled with the value: against an
// element-wise reference for pads on each axis and several at once, in f32
// and bf16 (values exact in both), with values 0, -0 and 1.5.
TEST(RuntimeShape, PadAgreesWithElementwiseReference) {
  Runtime rt;
  Shape shape{2, 3, 4, 5};
  std::vector<double> v(120);
  for (int i = 0; i < 120; ++i)
    v[i] = i - 60;
  struct Pads {
    std::vector<int64_t> low, high;
  } pads[] = {{{0, 0, 0, 0}, {0, 0, 0, 0}}, {{1, 0, 0, 0}, {0, 0, 0, 0}},
              {{0, 0, 0, 2}, {0, 0, 0, 1}}, {{0, 1, 0, 0}, {0, 2, 0, 0}},
              {{0, 0, 1, 3}, {1, 0, 2, 0}}, {{1, 1, 1, 1}, {1, 1, 1, 1}}};
  for (amprt_dtype t : {AMPRT_F32, AMPRT_BF16})
    for (const Pads &p : pads)
      for (double value : {0.0, -0.0, 1.5}) {
        Tensor x = rt.make(t, shape, v);
        Shape out(4);
        for (int d = 0; d < 4; ++d)
          out[d] = shape[d] + p.low[d] + p.high[d];
        Tensor y = rt.make(t, out);
        ASSERT_EQ(amprt_pad(rt.ctx, x, p.low.data(), p.high.data(), value, y),
                  AMPRT_OK)
            << amprt_last_error();
        int64_t n = out[0] * out[1] * out[2] * out[3];
        std::vector<double> want(n, value);
        for (int64_t i = 0; i < 120; ++i) {
          std::vector<int64_t> at = indicesOf(i, shape);
          for (int d = 0; d < 4; ++d)
            at[d] += p.low[d];
          want[positionOf(at, out)] = v[i];
        }
        std::vector<double> got = rt.read(y);
        ASSERT_EQ(got, want) << "low " << p.low[3] << " value " << value;
        for (int64_t i = 0; i < n; ++i) { // -0 pads with -0
          if (got[i] == 0 && want[i] == 0) {
            EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i;
          }
        }
      }
}

// Concat copies each row's blocks on the cores: operands of three widths
// along a middle axis and along the last, enough rows for every thread,
// against an element-wise reference in f32 and bf16 (values exact in both).
TEST(RuntimeShape, ConcatAgreesWithElementwiseReference) {
  Runtime rt;
  for (int64_t axis : {1, 2})
    for (amprt_dtype t : {AMPRT_F32, AMPRT_BF16}) {
      Shape out{600, 9, 4};
      std::vector<int64_t> widths{2, 3, 4}; // along `axis`: 9 in all
      if (axis == 2)
        out = {600, 4, 9};
      std::vector<Tensor> parts;
      std::vector<std::vector<double>> values;
      for (int64_t w : widths) {
        Shape shape = out;
        shape[axis] = w;
        int64_t n = shape[0] * shape[1] * shape[2];
        values.emplace_back(n);
        for (int64_t i = 0; i < n; ++i)
          values.back()[i] = (double)((i * 7 + w) % 251) - 125;
        parts.push_back(rt.make(t, shape, values.back()));
      }
      Tensor y = rt.make(t, out);
      const amprt_tensor *xs[] = {parts[0], parts[1], parts[2]};
      ASSERT_EQ(amprt_concat(rt.ctx, xs, 3, axis, y), AMPRT_OK)
          << amprt_last_error();
      std::vector<double> want(out[0] * out[1] * out[2]);
      int64_t offset = 0;
      for (size_t p = 0; p < widths.size(); ++p) {
        Shape shape = out;
        shape[axis] = widths[p];
        for (size_t i = 0; i < values[p].size(); ++i) {
          std::vector<int64_t> at = indicesOf(i, shape);
          at[axis] += offset;
          want[positionOf(at, out)] = values[p][i];
        }
        offset += widths[p];
      }
      ASSERT_EQ(rt.read(y), want) << "axis " << axis;
    }
}

TEST(RuntimeShape, ViewsShareStorage) {
  Runtime rt;
  std::vector<double> v{1, 2, 3, 4, 5, 6};
  Tensor x = rt.make(AMPRT_F32, {2, 3}, v);
  int64_t shape[] = {3, 2};
  // A view reads x's elements in x's order, from x's storage.
  amprt_tensor *view = amprt_tensor_view(rt.ctx, x, 2, shape);
  ASSERT_NE(view, nullptr) << amprt_last_error();
  EXPECT_EQ(view->data, x.t->data);
  EXPECT_EQ(amprt_tensor_rank(view), 2);
  EXPECT_EQ(amprt_tensor_shape(view)[0], 3);
  EXPECT_EQ(rt.read(view), v);
  Tensor doubled = rt.make(AMPRT_F32, {3, 2});
  ASSERT_EQ(amprt_add(rt.ctx, view, view, doubled), AMPRT_OK);
  EXPECT_EQ(rt.read(doubled), (std::vector<double>{2, 4, 6, 8, 10, 12}));
  // A view handed to reshape_moving is copied, not moved: its storage is
  // x's, which the result must not take.
  {
    Tensor y = rt.make(AMPRT_F32, {6});
    void *own = y.t->data;
    ASSERT_EQ(amprt_reshape_moving(rt.ctx, view, y), AMPRT_OK);
    EXPECT_EQ(y.t->data, own);
    EXPECT_EQ(view->data, x.t->data);
    EXPECT_EQ(rt.read(y), v);
  }
  // Releasing the view frees only the view: x reads as before (and the
  // sanitizer build would report a double free at x's release).
  size_t current = 0, peak = 0, after = 0;
  ASSERT_EQ(amprt_memory_stats(rt.ctx, &current, &peak), AMPRT_OK);
  amprt_tensor_release(view);
  ASSERT_EQ(amprt_memory_stats(rt.ctx, &after, &peak), AMPRT_OK);
  EXPECT_EQ(after, current);
  EXPECT_EQ(rt.read(x), v);
  // Bad views: null, and recorded on the context, as amprt_tensor_new.
  int64_t five[] = {5}, negative[] = {-6};
  EXPECT_EQ(amprt_tensor_view(rt.ctx, x, 1, five), nullptr);
  EXPECT_EQ(amprt_context_status(rt.ctx), AMPRT_ERROR_SHAPE);
  EXPECT_NE(std::string(amprt_context_error(rt.ctx)).find("amprt_tensor_view"),
            std::string::npos);
  amprt_context_clear_status(rt.ctx);
  EXPECT_EQ(amprt_tensor_view(rt.ctx, x, 1, negative), nullptr);
  EXPECT_EQ(amprt_tensor_view(rt.ctx, x, 17, shape), nullptr);
  EXPECT_EQ(amprt_tensor_view(rt.ctx, nullptr, 2, shape), nullptr);
  EXPECT_EQ(amprt_tensor_view(rt.ctx, x, 2, nullptr), nullptr);
  Runtime other;
  EXPECT_EQ(amprt_tensor_view(other.ctx, x, 2, shape), nullptr);
  EXPECT_EQ(amprt_context_status(other.ctx), AMPRT_ERROR_INVALID_ARGUMENT);
  amprt_context_clear_status(rt.ctx);
}

TEST(RuntimeShape, GatherAndScatterAdd) {
  Runtime rt;
  Tensor table = rt.make(AMPRT_F32, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor ids = rt.make(AMPRT_I64, {3}, {2, 0, 2});
  Tensor rows = rt.make(AMPRT_F32, {3, 2});
  ASSERT_EQ(amprt_gather(rt.ctx, table, ids, rows), AMPRT_OK);
  EXPECT_EQ(rt.read(rows), (std::vector<double>{20, 21, 0, 1, 20, 21}));
  Tensor dt = rt.make(AMPRT_F32, {4, 2});
  ASSERT_EQ(amprt_gather_grad(rt.ctx, rows, ids, dt), AMPRT_OK);
  EXPECT_EQ(rt.read(dt), (std::vector<double>{0, 1, 0, 0, 40, 42, 0, 0}));
  Tensor bad = rt.make(AMPRT_I64, {1}, {4});
  Tensor one = rt.make(AMPRT_F32, {1, 2});
  EXPECT_EQ(amprt_gather(rt.ctx, table, bad, one), AMPRT_ERROR_INDEX);
  EXPECT_NE(std::string(amprt_last_error()).find("index 4"), std::string::npos);
}

// gather_grad adds the rows of dy into their table rows with the table's
// columns split over the cores: repeated and unused rows, rows of 70
// columns (several threads' shares), i32 indices, in f32 and bf16 (integer
// values: exact in both), against a serial reference; a bad index anywhere
// fails before anything is written.
TEST(RuntimeShape, GatherGradSumsEveryColumnShare) {
  Runtime rt;
  const int64_t tableRows = 40, row = 70, count = 300;
  std::vector<double> ids(count), dyv(count * row);
  for (int64_t i = 0; i < count; ++i)
    ids[i] = (i * 7) % 37; // rows 37-39 unused
  for (int64_t i = 0; i < count * row; ++i)
    dyv[i] = (double)((i * 13) % 17) - 8;
  std::vector<double> want(tableRows * row, 0.0);
  for (int64_t i = 0; i < count; ++i)
    for (int64_t c = 0; c < row; ++c)
      want[(int64_t)ids[i] * row + c] += dyv[i * row + c];
  Tensor idx = rt.make(AMPRT_I32, {count}, ids);
  for (amprt_dtype t : {AMPRT_F32, AMPRT_BF16}) {
    Tensor dy = rt.make(t, {count, row}, dyv), dt = rt.make(t, {tableRows, row});
    ASSERT_EQ(amprt_gather_grad(rt.ctx, dy, idx, dt), AMPRT_OK)
        << amprt_last_error();
    EXPECT_EQ(rt.read(dt), want) << "dtype " << (int)t;
    std::vector<double> badIds = ids;
    badIds[count - 1] = tableRows;
    Tensor bad = rt.make(AMPRT_I32, {count}, badIds);
    std::vector<double> before = rt.read(dt);
    EXPECT_EQ(amprt_gather_grad(rt.ctx, dy, bad, dt), AMPRT_ERROR_INDEX);
    EXPECT_EQ(rt.read(dt), before);
  }
}

TEST(RuntimeState, OptimizersMatchTheirFormulas) {
  Runtime rt;
  Tensor p = rt.make(AMPRT_F32, {2}, {1.0, -2.0});
  Tensor g = rt.make(AMPRT_F32, {2}, {0.5, 0.25});
  Tensor lr = rt.make(AMPRT_F32, {}, {0.1});
  Tensor out = rt.make(AMPRT_F32, {2});
  ASSERT_EQ(amprt_sgd_update(rt.ctx, p, g, lr, out), AMPRT_OK);
  expectNear(rt.read(out), {0.95, -2.025}, 1e-7, "sgd");
  Tensor v = rt.make(AMPRT_F32, {2}, {1.0, 0.0}), nv = rt.make(AMPRT_F32, {2});
  ASSERT_EQ(amprt_momentum_update(rt.ctx, p, g, v, lr, 0.9, 0, 1, out, nv),
            AMPRT_OK);
  // v' = 0.9 v + g; nesterov step = g + 0.9 v'.
  expectNear(rt.read(nv), {1.4, 0.25}, 1e-7, "momentum velocity");
  expectNear(rt.read(out),
             {1 - 0.1 * (0.5 + 0.9 * 1.4), -2 - 0.1 * (0.25 + 0.9 * 0.25)},
             1e-6, "nesterov");
  // torch.optim.SGD's weight decay joins the gradient: g + 0.01 param.
  ASSERT_EQ(amprt_momentum_update(rt.ctx, p, g, v, lr, 0.9, 0.01, 0, out, nv),
            AMPRT_OK);
  expectNear(rt.read(nv), {0.9 + 0.5 + 0.01, 0.25 - 0.02}, 1e-7,
             "velocity with weight decay");
  expectNear(rt.read(out), {1 - 0.1 * 1.41, -2 - 0.1 * 0.23}, 1e-6,
             "momentum with weight decay");
  EXPECT_EQ(amprt_momentum_update(rt.ctx, p, g, v, lr, 0.9, -1, 0, out, nv),
            AMPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amprt_last_error()).find("weight_decay"),
            std::string::npos);
  Tensor m = rt.make(AMPRT_F32, {2}, {0, 0}),
         s = rt.make(AMPRT_F32, {2}, {0, 0});
  Tensor step = rt.make(AMPRT_I64, {}, {1});
  Tensor nm = rt.make(AMPRT_F32, {2}), ns = rt.make(AMPRT_F32, {2});
  ASSERT_EQ(amprt_adam_update(rt.ctx, p, g, m, s, step, lr, 0.9, 0.999, 1e-8,
                              0.0, out, nm, ns),
            AMPRT_OK);
  // The first bias-corrected Adam step moves each weight by lr * sign(g).
  expectNear(rt.read(out), {0.9, -2.1}, 1e-5, "adam first step");
  Tensor zeroStep = rt.make(AMPRT_I64, {}, {0});
  EXPECT_EQ(amprt_adam_update(rt.ctx, p, g, m, s, zeroStep, lr, 0.9, 0.999,
                              1e-8, 0.0, out, nm, ns),
            AMPRT_ERROR_INVALID_ARGUMENT);
}

// Adam updates f32 weights and state in f32 with AdamW's arithmetic: the
// bias corrections folded into the step size and the square root's
// divisor, formed in double and rounded once. Bit for bit over several
// steps, with weight decay, over enough elements for both cores and the
// vector loop's tail: a double-precision update, or the corrections
// divided per element, differs in the last place of some elements.
TEST(RuntimeState, AdamIsAdamWInF32) {
  Runtime rt;
  const int64_t n = 40000 + 13;
  const double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, decay = 0.01;
  const float rate = 0.001f;
  std::vector<double> init = randomValues(n, 61);
  std::vector<float> p(init.begin(), init.end()), m(n, 0), v(n, 0);
  Tensor lr = rt.make(AMPRT_F32, {}, {rate});
  Tensor tp = rt.make(AMPRT_F32, {n}, init), tm = rt.make(AMPRT_F32, {n}),
         tv = rt.make(AMPRT_F32, {n});
  rt.write(tm, std::vector<double>(n, 0));
  rt.write(tv, std::vector<double>(n, 0));
  for (int64_t t = 1; t <= 4; ++t) {
    std::vector<double> g = randomValues(n, 70 + (unsigned)t);
    Tensor tg = rt.make(AMPRT_F32, {n}, g);
    Tensor step = rt.make(AMPRT_I64, {}, {(double)t});
    Tensor np = rt.make(AMPRT_F32, {n}), nm = rt.make(AMPRT_F32, {n}),
           nv = rt.make(AMPRT_F32, {n});
    ASSERT_EQ(amprt_adam_update(rt.ctx, tp, tg, tm, tv, step, lr, beta1, beta2,
                                epsilon, decay, np, nm, nv),
              AMPRT_OK)
        << amprt_last_error();
    double c1 = 1 - std::pow(beta1, (double)t), c2 = 1 - std::pow(beta2, t);
    float stepSize = (float)(rate / c1), root = (float)std::sqrt(c2);
    float keep = (float)(1 - (double)rate * decay);
    for (int64_t i = 0; i < n; ++i) {
      float gi = (float)g[i];
      m[i] = m[i] * (float)beta1 + (float)(1 - beta1) * gi;
      v[i] = v[i] * (float)beta2 + (float)(1 - beta2) * gi * gi;
      float denom = std::sqrt(v[i]) / root + (float)epsilon;
      p[i] = p[i] * keep - (stepSize * m[i]) / denom;
    }
    std::vector<double> gotP = rt.read(np), gotM = rt.read(nm),
                        gotV = rt.read(nv);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i)
      differ += gotP[i] != p[i] || gotM[i] != m[i] || gotV[i] != v[i];
    EXPECT_EQ(differ, 0) << "step " << t;
    tp = std::move(np);
    tm = std::move(nm);
    tv = std::move(nv);
  }
}

TEST(RuntimeState, ClipByGlobalNorm) {
  Runtime rt;
  Tensor a = rt.make(AMPRT_F32, {2}, {3, 0}), b = rt.make(AMPRT_F32, {1}, {4});
  Tensor ca = rt.make(AMPRT_F32, {2}), cb = rt.make(AMPRT_F32, {1});
  const amprt_tensor *in[] = {a, b};
  amprt_tensor *out[] = {ca, cb};
  ASSERT_EQ(amprt_clip_by_global_norm(rt.ctx, in, 2, 1.0, out), AMPRT_OK);
  expectNear(rt.read(ca), {0.6, 0}, 1e-6, "clipped a");
  expectNear(rt.read(cb), {0.8}, 1e-6, "clipped b");
  ASSERT_EQ(amprt_clip_by_global_norm(rt.ctx, in, 2, 10.0, out), AMPRT_OK);
  expectNear(rt.read(cb), {4}, 0, "under the limit: unchanged");
}

TEST(RuntimeState, LossScaleStateMachine) {
  Runtime rt;
  auto step = [&](float scale, int64_t good, bool finite, int64_t interval,
                  double minScale, double maxScale) {
    Tensor s = rt.make(AMPRT_F32, {}, {scale}),
           n = rt.make(AMPRT_I64, {}, {(double)good});
    Tensor f = rt.make(AMPRT_I1, {}, {finite ? 1.0 : 0.0});
    Tensor s2 = rt.make(AMPRT_F32, {}), n2 = rt.make(AMPRT_I64, {});
    EXPECT_EQ(amprt_update_scale(rt.ctx, s, n, f, 2.0, 0.5, interval, minScale,
                                 maxScale, s2, n2),
              AMPRT_OK);
    return std::pair{rt.read(s2)[0], rt.read(n2)[0]};
  };
  EXPECT_EQ(step(1024, 0, true, 3, 1, 1e9), (std::pair{1024.0, 1.0}));
  EXPECT_EQ(step(1024, 2, true, 3, 1, 1e9), (std::pair{2048.0, 0.0}));
  EXPECT_EQ(step(1024, 2, false, 3, 1, 1e9), (std::pair{512.0, 0.0}));
  EXPECT_EQ(step(1, 0, false, 3, 1, 1e9), (std::pair{1.0, 0.0})) << "min";
  EXPECT_EQ(step(4096, 2, true, 3, 1, 5000), (std::pair{5000.0, 0.0})) << "max";
  // Growth never reaches inf even with a huge max_scale.
  auto big = step(3e38f, 2, true, 3, 1, 1e300);
  EXPECT_TRUE(std::isfinite(big.first));
}

TEST(RuntimeState, UnscaleAndCheckInOnePass) {
  Runtime rt;
  Tensor g1 = rt.make(AMPRT_F16, {3}, {512, 1024, -256});
  Tensor g2 = rt.make(AMPRT_F32, {2}, {2048, 0.5});
  Tensor scale = rt.make(AMPRT_F32, {}, {512});
  Tensor u1 = rt.make(AMPRT_F32, {3}), u2 = rt.make(AMPRT_F32, {2});
  Tensor finite = rt.make(AMPRT_I1, {});
  const amprt_tensor *gs[] = {g1, g2};
  amprt_tensor *us[] = {u1, u2};
  ASSERT_EQ(amprt_unscale_all_finite(rt.ctx, gs, 2, scale, us, finite),
            AMPRT_OK);
  EXPECT_EQ(rt.read(u1), (std::vector<double>{1, 2, -0.5}));
  EXPECT_EQ(rt.read(finite)[0], 1);
  // An f16 overflow (inf) is caught.
  Tensor bad = rt.make(AMPRT_F16, {3}, {1, 70000, 2});
  const amprt_tensor *gsBad[] = {bad, g2};
  ASSERT_EQ(amprt_unscale_all_finite(rt.ctx, gsBad, 2, scale, us, finite),
            AMPRT_OK);
  EXPECT_EQ(rt.read(finite)[0], 0);
  ASSERT_EQ(amprt_all_finite(rt.ctx, gsBad, 2, finite), AMPRT_OK);
  EXPECT_EQ(rt.read(finite)[0], 0);
  ASSERT_EQ(amprt_all_finite(rt.ctx, gs, 2, finite), AMPRT_OK);
  EXPECT_EQ(rt.read(finite)[0], 1);
}

TEST(RuntimeMemory, CachingAllocatorReusesAndCounts) {
  Runtime rt;
  size_t current, peak;
  {
    Tensor a = rt.make(AMPRT_F32, {1000});
    Tensor b = rt.make(AMPRT_F32, {1000});
    amprt_memory_stats(rt.ctx, &current, &peak);
    EXPECT_GE(current, 8000u);
  }
  amprt_memory_stats(rt.ctx, &current, &peak);
  EXPECT_EQ(current, 0u);
  EXPECT_GE(peak, 8000u);
  amprt_memory_reset_peak(rt.ctx);
  Tensor c = rt.make(AMPRT_F32, {1000});
  amprt_memory_stats(rt.ctx, &current, &peak);
  EXPECT_EQ(peak, current) << "reset peak follows the live bytes";
}

} // namespace

// amp-run --validate's comparison: overflow, NaN, flush and subnormal counts
// and the norms, on values whose f16 roundings are known.
TEST(RuntimeValidation, NumericError) {
  Runtime rt;
  double nan = std::nan("");
  Tensor ref = rt.make(AMPRT_F32, {8}, {1, 3, 1e5, 1e-6, 1e-9, nan, 2, 0});
  Tensor low = rt.make(AMPRT_F16, {8});
  ASSERT_EQ(amprt_cast(rt.ctx, ref, low), AMPRT_OK);
  Tensor stats = rt.make(AMPRT_F32, {AMPRT_NUMERIC_STATS});
  ASSERT_EQ(amprt_numeric_error(rt.ctx, ref, low, stats), AMPRT_OK)
      << amprt_last_error();
  std::vector<double> s = rt.read(stats);
  EXPECT_EQ(s[AMPRT_NUMERIC_ELEMENTS], 7);
  EXPECT_EQ(s[AMPRT_NUMERIC_REF_NONFINITE], 1);
  EXPECT_EQ(s[AMPRT_NUMERIC_OVERFLOW], 1) << "1e5 is past f16's 65504";
  EXPECT_EQ(s[AMPRT_NUMERIC_NAN], 0);
  EXPECT_EQ(s[AMPRT_NUMERIC_SUBNORMAL], 2) << "1e-6 and 1e-9";
  // 1e-9 becomes 0, but it is below 2^-11 of the tensor's largest value.
  EXPECT_EQ(s[AMPRT_NUMERIC_FLUSHED], 0);
  EXPECT_EQ(s[AMPRT_NUMERIC_MAX_REF], 1e5);
  // 1e-6 rounds to 17 * 2^-24 in f16; 1e-9 to 0.
  double d1 = 17 * 0x1p-24 - (double)1e-6f, d2 = (double)1e-9f;
  EXPECT_NEAR(s[AMPRT_NUMERIC_DIFF_NORM], std::sqrt(d1 * d1 + d2 * d2), 1e-12);
  EXPECT_NEAR(s[AMPRT_NUMERIC_MAX_DIFF], std::fabs(d1), 1e-12);
  EXPECT_NEAR(s[AMPRT_NUMERIC_REF_NORM], std::sqrt(14.0), 1e-5);

  // A tensor of values all below f16's smallest subnormal's half: lost.
  Tensor tiny = rt.make(AMPRT_F32, {2}, {1e-8, 2e-8});
  Tensor tinyLow = rt.make(AMPRT_F16, {2});
  ASSERT_EQ(amprt_cast(rt.ctx, tiny, tinyLow), AMPRT_OK);
  ASSERT_EQ(amprt_numeric_error(rt.ctx, tiny, tinyLow, stats), AMPRT_OK);
  s = rt.read(stats);
  EXPECT_EQ(s[AMPRT_NUMERIC_FLUSHED], 2);
  EXPECT_EQ(s[AMPRT_NUMERIC_SUBNORMAL], 2);

  // A NaN where the reference has none, and wrong operands.
  Tensor pair = rt.make(AMPRT_F32, {2}, {1, 2});
  Tensor bad = rt.make(AMPRT_BF16, {2}, {1, nan});
  ASSERT_EQ(amprt_numeric_error(rt.ctx, pair, bad, stats), AMPRT_OK);
  EXPECT_EQ(rt.read(stats)[AMPRT_NUMERIC_NAN], 1);
  EXPECT_NE(amprt_numeric_error(rt.ctx, pair, low, stats), AMPRT_OK)
      << "shapes differ";
  EXPECT_NE(amprt_numeric_error(rt.ctx, bad, pair, stats), AMPRT_OK)
      << "the reference is f32";
  EXPECT_NE(amprt_numeric_error(rt.ctx, pair, bad, pair), AMPRT_OK)
      << "stats hold AMPRT_NUMERIC_STATS values";
}
