//===- StridedCopyTest.cpp - The device's planned strided copies ----------===//
//
// runCopy (device/StridedCopy.h) merges dimensions, widens elements and
// narrows its index arithmetic before launch; each step must leave the
// copied elements exactly where the unplanned copy puts them. The copies
// run through HostExec, the GPU's per-element code in a host loop, and are
// compared with a copy written here element by element.
//
//===----------------------------------------------------------------------===//

#include "../device/HostExec.h"
#include <cstring>
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace amprt::device;

namespace {

Index indexOf(std::vector<int64_t> shape, std::vector<int64_t> strides) {
  Index index;
  index.rank = (int)shape.size();
  for (int d = 0; d < index.rank; ++d) {
    index.shape[d] = shape[d];
    index.stride[d] = strides[d];
  }
  return index;
}

/// Row-major strides of `shape`.
std::vector<int64_t> dense(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// The copy one element at a time through Index::offset, as the kernel
/// before planning did.
void referenceCopy(const CopyPlan &p, const uint8_t *src, uint8_t *dst) {
  for (int64_t i = 0; i < p.n; ++i)
    std::memcpy(dst + (p.dstBase + p.to.offset(i)) * p.bytes,
                src + (p.srcBase + p.from.offset(i)) * p.bytes, p.bytes);
}

/// Runs `plan` planned and unplanned over buffers of `srcBytes` and
/// `dstBytes` starting `shift` bytes past 16-byte alignment (a multiple of
/// the element size, as a tensor's data is), and expects the same
/// destination bytes.
void expectSameAsReference(const CopyPlan &plan, size_t srcBytes,
                           size_t dstBytes, size_t shift = 0) {
  std::vector<Bytes16> srcStore(srcBytes / 16 + 2), want(dstBytes / 16 + 2),
      got(dstBytes / 16 + 2);
  uint8_t *src = reinterpret_cast<uint8_t *>(srcStore.data()) + shift;
  for (size_t i = 0; i < srcBytes; ++i)
    src[i] = (uint8_t)(i * 131 + 7);
  uint8_t *wantBytes = reinterpret_cast<uint8_t *>(want.data()) + shift;
  uint8_t *gotBytes = reinterpret_cast<uint8_t *>(got.data()) + shift;
  referenceCopy(plan, src, wantBytes);
  HostExec exec;
  ASSERT_EQ(runCopy(exec, plan, src, gotBytes), AMPRT_OK);
  EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * 16), 0);
}

CopyPlan transposePlan(const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &perm, int bytes) {
  std::vector<int64_t> xs = dense(shape), out(shape.size()), from(shape.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    out[d] = shape[perm[d]];
    from[d] = xs[perm[d]];
  }
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                              std::multiplies<int64_t>());
  return CopyPlan{indexOf(out, from), indexOf(out, dense(out)), 0, 0, n, bytes};
}

/// A pad of [rows, cols] to [rows, cols + extra] (the destination's
/// strides over the source's shape).
CopyPlan padPlan(int64_t rows, int64_t cols, int64_t extra, int bytes) {
  return CopyPlan{indexOf({rows, cols}, {cols, 1}),
                  indexOf({rows, cols}, {cols + extra, 1}),
                  0,
                  0,
                  rows * cols,
                  bytes};
}

} // namespace

TEST(StridedCopy, CollapseMergesWhatIsContiguousOnBothSides) {
  // [B, T, H, D] -> [B, H, T, D]: B and D stay, nothing merges across the
  // swapped middle; a size-one dimension disappears.
  CopyPlan p = transposePlan({2, 1, 3, 4, 5}, {0, 1, 3, 2, 4}, 2);
  collapse(p);
  EXPECT_EQ(p.from.rank, 4);
  // A slice of whole rows is one run.
  CopyPlan rows{indexOf({4, 6}, {6, 1}), indexOf({4, 6}, {6, 1}), 12, 0, 24, 4};
  collapse(rows);
  ASSERT_EQ(rows.from.rank, 1);
  EXPECT_EQ(rows.from.shape[0], 24);
}

TEST(StridedCopy, WidensOnlyWhereAlignmentAllows) {
  alignas(16) uint8_t buffer[64] = {}; // only its address is read
  CopyPlan aligned = padPlan(3, 1020, 4, 2);
  collapse(aligned);
  widen(aligned, buffer, buffer);
  EXPECT_EQ(aligned.bytes, 8); // 1020 and 1024 are multiples of 4, not 8
  EXPECT_EQ(aligned.n, 3 * 1020 / 4);

  CopyPlan odd = padPlan(3, 1021, 3, 2);
  collapse(odd);
  widen(odd, buffer, buffer);
  EXPECT_EQ(odd.bytes, 2);

  CopyPlan shifted = padPlan(3, 1020, 4, 2);
  collapse(shifted);
  widen(shifted, buffer + 2, buffer);
  EXPECT_EQ(shifted.bytes, 2); // the source is only 2-byte aligned

  // A transpose that moves the innermost dimension copies element by
  // element.
  CopyPlan swap = transposePlan({8, 8}, {1, 0}, 4);
  collapse(swap);
  widen(swap, buffer, buffer);
  EXPECT_EQ(swap.bytes, 4);
}

TEST(StridedCopy, IndexesIn32BitsOnlyWhereEveryOffsetFits) {
  CopyPlan small = padPlan(1024, 1020, 4, 2);
  EXPECT_TRUE(fitsIn32Bits(small));
  CopyPlan large = padPlan(int64_t(1) << 22, 1020, 4, 2);
  EXPECT_FALSE(fitsIn32Bits(large));
  CopyPlan far = padPlan(4, 4, 0, 2);
  far.dstBase = int64_t(1) << 31;
  EXPECT_FALSE(fitsIn32Bits(far));
}

TEST(StridedCopy, PadsAndSlicesLandWhereTheUnplannedCopyPutsThem) {
  // Shifted by one element, the buffers are aligned for their elements
  // but not for a wider copy.
  for (int bytes : {1, 2, 4, 8})
    for (size_t shift : {size_t(0), size_t(bytes), size_t(8)}) {
      // A pad of the last dimension, at a base inside the destination.
      CopyPlan pad = padPlan(7, 12, 4, bytes);
      pad.dstBase = 16;
      expectSameAsReference(pad, 7 * 12 * bytes, (16 + 7 * 16) * bytes, shift);
      // A slice of columns 4..11 of every other row.
      CopyPlan slice{
          indexOf({3, 8}, {32, 1}), indexOf({3, 8}, {8, 1}), 4, 0, 24, bytes};
      expectSameAsReference(slice, 6 * 16 * bytes, 24 * bytes, shift);
    }
}

TEST(StridedCopy, TransposesAndBroadcastsLandWhereTheUnplannedCopyPutsThem) {
  for (int bytes : {1, 2, 4, 8}) {
    // The attention heads' transpose, [B, T, H, D] -> [B, H, T, D].
    expectSameAsReference(transposePlan({2, 5, 3, 8}, {0, 2, 1, 3}, bytes),
                          240 * bytes, 240 * bytes);
    expectSameAsReference(transposePlan({3, 1, 4, 5}, {3, 2, 1, 0}, bytes),
                          60 * bytes, 60 * bytes);
    // A bias broadcast over rows (stride 0), and a column broadcast.
    CopyPlan rows{
        indexOf({6, 16}, {0, 1}), indexOf({6, 16}, {16, 1}), 0, 0, 96, bytes};
    expectSameAsReference(rows, 16 * bytes, 96 * bytes);
    CopyPlan cols{
        indexOf({6, 16}, {1, 0}), indexOf({6, 16}, {16, 1}), 0, 0, 96, bytes};
    expectSameAsReference(cols, 6 * bytes, 96 * bytes);
  }
}

TEST(StridedCopy, BothIndexWidthsCopyTheSameElements) {
  // runCopy takes 64-bit offsets only past 2^31, which no test buffer
  // reaches: the kernel runs here with both index types on one plan.
  CopyPlan plan = transposePlan({3, 4, 5, 2}, {2, 0, 3, 1}, 4);
  std::vector<uint32_t> src(120), narrow(120), wide(120);
  std::iota(src.begin(), src.end(), 1u);
  HostExec exec;
  auto run = [&](auto indexTag, std::vector<uint32_t> &dst) {
    using I = decltype(indexTag);
    return exec.launch(StridedCopyKernel<uint32_t, I>{src.data(), dst.data(),
                                                      plan.from, plan.to, 0, 0},
                       plan.n);
  };
  ASSERT_EQ(run(uint32_t(), narrow), AMPRT_OK);
  ASSERT_EQ(run(int64_t(), wide), AMPRT_OK);
  EXPECT_EQ(narrow, wide);
  std::vector<uint32_t> want(120);
  referenceCopy(plan, reinterpret_cast<const uint8_t *>(src.data()),
                reinterpret_cast<uint8_t *>(want.data()));
  EXPECT_EQ(narrow, want);
}
