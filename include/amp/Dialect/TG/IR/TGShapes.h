//===- TGShapes.h - Shape rules of the tg ops -------------------*- C++ -*-===//
//
// Pure shape computations shared by type inference, verifiers, rewrites and
// the lowering, so every place agrees on what a tg op produces.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGSHAPES_H
#define AMP_DIALECT_TG_IR_TGSHAPES_H

#include "amp/Dialect/TG/IR/TGEnums.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace amp::tg {

/// NumPy broadcast of two shapes; std::nullopt when they are incompatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The positions of N, H, W and C in a rank-4 tensor of `layout`.
struct LayoutDims {
  unsigned n, h, w, c;
};
LayoutDims getLayoutDims(Layout layout);

/// Spatial output size of a window of `kernel` elements dilated by
/// `dilation`, sliding by `stride` over `size + padLow + padHigh` elements;
/// < 1 when the window does not fit.
/// The output size of a sliding window, 0 when the window does not fit, or
/// std::nullopt when a size computed on the way overflows 64 bits.
std::optional<int64_t> slidingWindowSize(int64_t size, int64_t kernel,
                                         int64_t stride, int64_t dilation,
                                         int64_t padLow, int64_t padHigh);

/// The number of elements of `shape`, or std::nullopt when it (or its size
/// in bytes at 8 bytes an element) does not fit in 64 bits.
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);

/// Attributes of a 2-D window op (convolution or pooling), checked.
struct Window2D {
  int64_t kh, kw, sh, sw, dh, dw, padTop, padBottom, padLeft, padRight;
  LayoutDims dims;
};

/// Validates strides/padding/dilations/layout; on failure returns a message.
llvm::FailureOr<Window2D> checkWindowAttrs(std::optional<mlir::Location> loc,
                                           llvm::StringRef opName,
                                           llvm::ArrayRef<int64_t> window,
                                           llvm::ArrayRef<int64_t> strides,
                                           llvm::ArrayRef<int64_t> padding,
                                           llvm::ArrayRef<int64_t> dilations,
                                           Layout layout);

/// Output type of conv2d(x, w); emits at `loc` and fails on bad shapes.
llvm::FailureOr<mlir::RankedTensorType>
inferConv2DType(std::optional<mlir::Location> loc, llvm::StringRef opName,
                mlir::RankedTensorType x, mlir::RankedTensorType w,
                llvm::ArrayRef<int64_t> strides,
                llvm::ArrayRef<int64_t> padding,
                llvm::ArrayRef<int64_t> dilations, Layout layout);

/// Output type of a 2-D pooling of x; emits at `loc` and fails on bad shapes.
llvm::FailureOr<mlir::RankedTensorType>
inferPool2DType(std::optional<mlir::Location> loc, llvm::StringRef opName,
                mlir::RankedTensorType x, llvm::ArrayRef<int64_t> window,
                llvm::ArrayRef<int64_t> strides,
                llvm::ArrayRef<int64_t> padding, Layout layout);

/// The channel dimension of a tensor of `rank` under `layout` (rank 2 and
/// NHWC: the last dim; NCHW: dim 1).
std::optional<unsigned> getChannelDim(unsigned rank, Layout layout);

/// Element type of norm statistics for an input of `elementType`: f32, or
/// f64 for f64 reference runs.
mlir::Type getStatsElementType(mlir::Type elementType);

/// The broadcast result type of a binary/ternary elementwise op; the last
/// operand types define the element type (select's condition is skipped by
/// the caller through `opName`).
llvm::LogicalResult
inferBroadcastingResult(std::optional<mlir::Location> loc,
                        mlir::TypeRange operandTypes, llvm::StringRef opName,
                        llvm::SmallVectorImpl<mlir::Type> &results);

/// Renders a shape as "4x8" (or "scalar") for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// The class count of a training step's loss: the last dimension of the
/// [N, C] logits of the last tg.softmax_cross_entropy under `root`, if any
/// (what tools that make labels for a step need).
std::optional<int64_t> lossClassCount(mlir::Operation *root);

} // namespace amp::tg

#endif // AMP_DIALECT_TG_IR_TGSHAPES_H
