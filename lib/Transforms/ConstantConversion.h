//===- ConstantConversion.h - Weights converted in bulk ---------*- C++ -*-===//
//
// Float constants (trained weights: dense or dense_resource f32 tensors)
// converted to f16 or bf16 in one pass over their raw data, with the counts
// the policy and the report need: values past the type's largest finite
// value, and non-zero values that flush to zero or become subnormals. A
// splat converts one value. Results are cached per attribute, so the check
// that decides an op's colour and the fold that rewrites it read the data
// once.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_CONSTANTCONVERSION_H
#define AMP_LIB_TRANSFORMS_CONSTANTCONVERSION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "amp/Transforms/PassOptions.h"
#include "llvm/ADT/StringSwitch.h"

namespace amp {

/// What converting a constant does to its values.
struct ConversionCounts {
  int64_t values = 0;
  /// Finite values past the largest finite value of the type (inf, or the
  /// largest finite value when saturating).
  int64_t overflowed = 0;
  /// Non-zero values that become zero.
  int64_t flushedToZero = 0;
  /// Non-zero values that become subnormals (fewer significant bits).
  int64_t subnormal = 0;
};

class ConstantConverter {
public:
  explicit ConstantConverter(ConstantOverflow overflow) : overflow(overflow) {}

  /// The counts of converting `values` to `target` (f16 or bf16), or null
  /// when it is not an f32 tensor constant the converter reads (dense or
  /// dense_resource).
  const ConversionCounts *count(mlir::Attribute values, mlir::FloatType target);

  /// `values` converted to `type` (same shape, an f16 or bf16 element
  /// type): a dense attribute for a dense one, a new blob for a
  /// dense_resource one; null when `count` is.
  mlir::ElementsAttr convert(mlir::Attribute values, mlir::ShapedType type);

  /// Whether an op whose operand is `values` may convert to `target`:
  /// nothing overflows (or overflow saturates), or the data cannot be read
  /// here.
  bool fits(mlir::Attribute values, mlir::FloatType target);

private:
  struct Entry {
    ConversionCounts counts;
    std::vector<uint16_t> bits;
    mlir::ElementsAttr converted;
  };
  Entry *lookup(mlir::Attribute values, mlir::FloatType target);

  ConstantOverflow overflow;
  llvm::DenseMap<std::pair<mlir::Attribute, mlir::Type>, std::unique_ptr<Entry>>
      entries;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_CONSTANTCONVERSION_H
