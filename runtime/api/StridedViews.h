//===- StridedViews.h - Views of tensors in the C API ---------*- C++ -*-===//
//
// The encoded views ({offset, shape[rank], strides[rank]}) that
// amprt_batch_matmul_strided and amprt_attention take, checked and
// compared.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_API_STRIDEDVIEWS_H
#define AMPRT_API_STRIDEDVIEWS_H

#include "Dispatch.h"

namespace amprt {

/// The view `encoded` ({offset, shape[rank], strides[rank]}) of `t`,
/// checked to lie inside t's storage.
amprt_status viewOf(const char *op, const char *name, const amprt_tensor *t,
                    const int64_t *encoded, int rank, StridedView &v);

/// Whether `v` names no element (a dimension of size 0). Its element count
/// is no test: a view repeating one element by stride 0 can count past
/// int64.
bool isEmpty(const StridedView &v);

/// Whether no two indices of `v` name one element (an empty view names
/// none).
bool oneToOne(const StridedView &v);

/// Whether two tensors' storage shares a byte.
bool overlaps(const amprt_tensor *x, const amprt_tensor *y);

/// Whether view xv of x and view yv of y may touch one byte: their
/// tensors' storage overlaps and both name an element (a view that names
/// none reads or writes nothing).
bool viewsShare(const amprt_tensor *x, const StridedView &xv,
                const amprt_tensor *y, const StridedView &yv);

/// A dense view of `shape`: what a new tensor of that shape holds.
StridedView denseView(const StridedView &shape);

/// Whether `v` is `t`'s dense layout: all of it, in row-major order.
bool isDenseOf(const StridedView &v, const amprt_tensor *t);

/// `v` with its last two dimensions swapped: the transpose of what it reads.
StridedView swapLastTwo(StridedView v);

/// Zeros into the elements view `v` of `t` names (none for an empty
/// view): a product over no terms.
amprt_status fillZeros(amprt_context *ctx, amprt_tensor *t,
                       const StridedView &v);

/// `v` as amprt_batch_matmul_strided takes it: {offset, shape, strides}.
std::vector<int64_t> encodeView(const StridedView &v);

} // namespace amprt

#endif // AMPRT_API_STRIDEDVIEWS_H
