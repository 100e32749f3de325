//===- TGShapes.cpp - Shape rules of the tg ops ---------------------------===//

#include "amp/Dialect/TG/IR/TGShapes.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace amp::tg {

std::optional<int64_t> lossClassCount(Operation *root) {
  std::optional<int64_t> classes;
  root->walk([&](SoftmaxCrossEntropyOp op) {
    auto logits = op.getLogits().getType();
    if (logits.getRank() == 2)
      classes = logits.getDimSize(1);
  });
  return classes;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

LayoutDims getLayoutDims(Layout layout) {
  switch (layout) {
  case Layout::NHWC:
    return LayoutDims{0, 1, 2, 3};
  case Layout::NCHW:
    return LayoutDims{0, 2, 3, 1};
  }
  llvm_unreachable("unknown tg layout");
}

std::optional<unsigned> getChannelDim(unsigned rank, Layout layout) {
  if (rank < 2)
    return std::nullopt;
  if (layout == Layout::NCHW && rank > 2)
    return 1;
  return rank - 1;
}

Type getStatsElementType(Type elementType) {
  if (elementType.isF64())
    return elementType;
  return Float32Type::get(elementType.getContext());
}

std::optional<int64_t> slidingWindowSize(int64_t size, int64_t kernel,
                                         int64_t stride, int64_t dilation,
                                         int64_t padLow, int64_t padHigh) {
  std::optional<int64_t> span = llvm::checkedMul(dilation, kernel - 1);
  if (span)
    span = llvm::checkedAdd(*span, int64_t(1));
  std::optional<int64_t> padded = llvm::checkedAdd(size, padLow);
  if (padded)
    padded = llvm::checkedAdd(*padded, padHigh);
  if (!span || !padded)
    return std::nullopt;
  if (*padded < *span)
    return 0;
  return (*padded - *span) / stride + 1;
}

std::optional<int64_t> checkedNumElements(ArrayRef<int64_t> shape) {
  // At most 2^60 elements: a byte size at 8 bytes an element stays below
  // 2^63, whatever the runtime multiplies it by.
  constexpr int64_t kMaxElements = int64_t(1) << 60;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    // The builtin, not llvm::checkedMul: that builds two APInts per call,
    // and every tg op's verifier sizes its tensors here.
    int64_t next = 0;
    if (__builtin_mul_overflow(n, d, &next) || next > kMaxElements)
      return std::nullopt;
    n = next;
  }
  return n;
}

LogicalResult verifyAddressableTensors(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        checkedNumElements(tensor.getShape()))
      return success();
    return op->emitOpError()
           << what << " #" << index << " (" << type
           << ") has more than 2^60 elements, the most a tg tensor holds";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

static LogicalResult fail(std::optional<Location> loc, StringRef opName,
                          const Twine &message) {
  return emitOptionalError(loc, "'", opName, "' op ", message);
}

FailureOr<Window2D> checkWindowAttrs(std::optional<Location> loc,
                                     StringRef opName, ArrayRef<int64_t> window,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> padding,
                                     ArrayRef<int64_t> dilations,
                                     Layout layout) {
  if (window.size() != 2 || window[0] < 1 || window[1] < 1)
    return fail(loc, opName,
                "window must be two positive sizes [kh, kw], got [" +
                    formatShape(window) + "]");
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1)
    return fail(loc, opName, "strides must be two positive integers [sh, sw]");
  if (dilations.size() != 2 || dilations[0] < 1 || dilations[1] < 1)
    return fail(loc, opName,
                "dilations must be two positive integers [dh, dw]");
  if (padding.size() != 4)
    return fail(loc, opName,
                "padding must have 4 entries [top, bottom, left, right], got " +
                    Twine(padding.size()));
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return fail(loc, opName, "padding must be non-negative");
  return Window2D{window[0],    window[1],    strides[0],           strides[1],
                  dilations[0], dilations[1], padding[0],           padding[1],
                  padding[2],   padding[3],   getLayoutDims(layout)};
}

/// The output height and width of `win` sliding over `x`, or an error:
/// `tooLarge` when a size overflows, "<what> [kh, kw] does not fit the
/// padded input" when no window fits.
static FailureOr<std::pair<int64_t, int64_t>>
slideWindow(std::optional<Location> loc, StringRef opName, RankedTensorType x,
            const Window2D &win, StringRef what, StringRef tooLarge) {
  std::optional<int64_t> oh =
      slidingWindowSize(x.getDimSize(win.dims.h), win.kh, win.sh, win.dh,
                        win.padTop, win.padBottom);
  std::optional<int64_t> ow =
      slidingWindowSize(x.getDimSize(win.dims.w), win.kw, win.sw, win.dw,
                        win.padLeft, win.padRight);
  if (!oh || !ow)
    return fail(loc, opName, tooLarge);
  if (*oh < 1 || *ow < 1)
    return fail(loc, opName,
                what + " " + formatShape({win.kh, win.kw}) +
                    " does not fit the padded input " +
                    formatShape(x.getShape()));
  return std::make_pair(*oh, *ow);
}

FailureOr<RankedTensorType>
inferConv2DType(std::optional<Location> loc, StringRef opName,
                RankedTensorType x, RankedTensorType w,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                ArrayRef<int64_t> dilations, Layout layout) {
  if (x.getRank() != 4 || w.getRank() != 4)
    return fail(loc, opName,
                "expects rank-4 input and filter, got ranks " +
                    Twine(x.getRank()) + " and " + Twine(w.getRank()));
  if (x.getElementType() != w.getElementType())
    return fail(loc, opName, "input and filter must share an element type");
  LayoutDims dims = getLayoutDims(layout);
  // Filters are OHWI for NHWC and OIHW for NCHW: the same positions as the
  // data layout with N replaced by O.
  int64_t kh = w.getDimSize(dims.h), kw = w.getDimSize(dims.w);
  FailureOr<Window2D> win = checkWindowAttrs(loc, opName, {kh, kw}, strides,
                                             padding, dilations, layout);
  if (failed(win))
    return failure();
  int64_t cin = x.getDimSize(dims.c), fcin = w.getDimSize(dims.c);
  if (cin != fcin)
    return fail(loc, opName,
                "input has " + Twine(cin) +
                    " channels but the filter expects " + Twine(fcin));
  FailureOr<std::pair<int64_t, int64_t>> out = slideWindow(
      loc, opName, x, *win, "filter window",
      "padding or dilation too large: the padded input or the dilated filter "
      "window would not fit in 64 bits");
  if (failed(out))
    return failure();
  SmallVector<int64_t> shape(4);
  shape[dims.n] = x.getDimSize(dims.n);
  shape[dims.h] = out->first;
  shape[dims.w] = out->second;
  shape[dims.c] = w.getDimSize(0);
  return RankedTensorType::get(shape, x.getElementType());
}

FailureOr<RankedTensorType>
inferPool2DType(std::optional<Location> loc, StringRef opName,
                RankedTensorType x, ArrayRef<int64_t> window,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                Layout layout) {
  if (x.getRank() != 4)
    return fail(loc, opName,
                "expects a rank-4 input, got rank " + Twine(x.getRank()));
  FailureOr<Window2D> win =
      checkWindowAttrs(loc, opName, window, strides, padding, {1, 1}, layout);
  if (failed(win))
    return failure();
  LayoutDims dims = win->dims;
  // A window lying entirely in the padding would pool no input (max of
  // nothing, average over zero elements): padding must stay below the
  // window, as in TensorFlow and PyTorch.
  if (win->padTop >= win->kh || win->padBottom >= win->kh ||
      win->padLeft >= win->kw || win->padRight >= win->kw)
    return fail(loc, opName,
                "padding [" + Twine(padding[0]) + ", " + Twine(padding[1]) +
                    ", " + Twine(padding[2]) + ", " + Twine(padding[3]) +
                    "] must be smaller than the window " + formatShape(window) +
                    " on each side (a window inside the padding pools no "
                    "input)");
  FailureOr<std::pair<int64_t, int64_t>> out = slideWindow(
      loc, opName, x, *win, "window",
      "padding too large: the padded input would not fit in 64 bits");
  if (failed(out))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape[dims.h] = out->first;
  shape[dims.w] = out->second;
  return RankedTensorType::get(shape, x.getElementType());
}

LogicalResult inferBroadcastingResult(std::optional<Location> loc,
                                      TypeRange operandTypes, StringRef opName,
                                      SmallVectorImpl<Type> &results) {
  // tg.select's leading i1 condition takes part in the shape only.
  bool isSelect = opName == "tg.select";
  bool isCompare = opName == "tg.compare";
  SmallVector<int64_t> shape;
  Type elementType;
  for (auto [i, type] : llvm::enumerate(operandTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return fail(loc, opName, "operands must be statically shaped tensors");
    std::optional<SmallVector<int64_t>> next =
        broadcastShapes(shape, tensor.getShape());
    if (!next)
      return fail(loc, opName,
                  "operand shapes " + formatShape(shape) + " and " +
                      formatShape(tensor.getShape()) + " do not broadcast");
    shape = *next;
    if (isSelect && i == 0)
      continue;
    if (elementType && elementType != tensor.getElementType()) {
      std::string a, b;
      llvm::raw_string_ostream(a) << elementType;
      llvm::raw_string_ostream(b) << tensor.getElementType();
      return fail(loc, opName,
                  "operands must share an element type, got " + a + " and " +
                      b);
    }
    elementType = tensor.getElementType();
  }
  if (isCompare)
    elementType = IntegerType::get(elementType.getContext(), 1);
  results.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

} // namespace amp::tg
