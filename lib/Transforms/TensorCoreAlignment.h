//===- TensorCoreAlignment.h - Contractions off Tensor Cores ----*- C++ -*-===//
//
// NVIDIA's Tensor Cores run a matrix product whose M, N and K (a
// convolution's input and output channels) are multiples of 8 elements for
// 16-bit operands and of 16 for FP8 ones. --amp-auto-mixed-precision checks
// every contraction it converts against that, from the dimensions the op's
// TensorCoreShapeOpInterface gives, for its remarks, report and summary.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_TENSORCOREALIGNMENT_H
#define AMP_LIB_TRANSFORMS_TENSORCOREALIGNMENT_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace amp {

/// A dimension that misses the multiple, and the size that meets it.
struct MisalignedDim {
  std::string name;
  int64_t size, padded;
  /// A parameter holds it (isParameter), so padding it with zeros inside
  /// the graph leaves what the user sees unchanged.
  bool parameterOwned = false;
};

/// How one contraction meets Tensor Core alignment.
struct TensorCoreAlignment {
  /// The multiple its operands need: 8 elements (16-bit), 16 (FP8).
  int64_t multiple = 8;
  /// Static dimensions that miss the multiple, in the op's order.
  llvm::SmallVector<MisalignedDim> misaligned;
  /// Dimensions whose size is not static, which cannot be judged.
  llvm::SmallVector<std::string> dynamic;

  /// Every static dimension is a multiple (dynamic ones are not judged).
  bool aligned() const { return misaligned.empty(); }
  /// A misaligned dimension is parameter-owned: padding can fix it.
  bool paddable() const;
  /// "N = 10 (pad to 16), K = 784 (pad to 792)"; empty when aligned.
  std::string describeMisaligned() const;
};

/// Whether `value` is a parameter's, seen through casts and transposes: a
/// function argument with tg.role = "param", one with no tg.role in a
/// function that marks its data tg.role = "input" (an evaluation function
/// such as amp-run's predict), or a constant (a weight folded into the
/// graph).
bool isParameter(mlir::Value value);

/// The multiple operands of `bits` bits need: 16 for 8-bit types, else 8.
int64_t tensorCoreMultiple(unsigned bits);

/// How `op` meets Tensor Core alignment with operands of `bits` bits, or
/// std::nullopt when it gives no Tensor Core dimensions (no
/// TensorCoreShapeOpInterface, or none for its form).
std::optional<TensorCoreAlignment> checkTensorCoreAlignment(mlir::Operation *op,
                                                            unsigned bits);

/// The Tensor Core checks of one pass run: each converted contraction's,
/// and the totals of the summary and the report.
class TensorCoreChecks {
public:
  /// Checks `op`, converted to operands of `bits` bits, and keeps the
  /// outcome when it is a contraction.
  void check(mlir::Operation *op, unsigned bits);
  /// `op`'s outcome; null when it was not checked or gives no dimensions.
  const TensorCoreAlignment *lookup(mlir::Operation *op) const;

  unsigned contractions = 0, aligned = 0, paddable = 0;
  /// One line: how many `precision` contractions are aligned, how many are
  /// not, and how many of those could be padded.
  std::string summary(llvm::StringRef precision) const;

private:
  llvm::DenseMap<mlir::Operation *, TensorCoreAlignment> outcomes;
  int64_t multiple = 8;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_TENSORCOREALIGNMENT_H
