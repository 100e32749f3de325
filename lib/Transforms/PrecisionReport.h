//===- PrecisionReport.h - The JSON account of AMP decisions ----*- C++ -*-===//

#ifndef AMP_LIB_TRANSFORMS_PRECISIONREPORT_H
#define AMP_LIB_TRANSFORMS_PRECISIONREPORT_H

#include "ConstantConversion.h"
#include "TensorCoreAlignment.h"
#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace amp {

/// What the pass decided for one op.
struct PrecisionEntry {
  std::string cls;       // allow, infer, clear, deny or none
  std::string precision; // f16, bf16, f32, ...
  std::string reason;
  std::string color; // the amp.color annotation
  /// A converted contraction's Tensor Core alignment.
  std::optional<TensorCoreAlignment> tensorCore;
  /// The dimensions --amp-pad-for-tensor-cores padded, with the sizes they
  /// had (amp.tensor_core_padded).
  llvm::SmallVector<std::pair<std::string, int64_t>> paddedFrom;
};

/// One inserted cast.
struct CastEntry {
  std::string value, location, from, to, reason;
};

/// A contraction operand given FP8 storage (precision=fp8).
struct Fp8Entry {
  std::string op, location, format, scaling, reason;
  unsigned operand = 0;
  int historyArgument = -1; // delayed scaling: the amax_history argument
};

/// Collects entries and totals across functions and writes them as JSON:
/// {"precision", "level", "ops": [{"function", "name", "location", "class",
/// "precision", "reason"} plus, for a converted contraction,
/// "tensor_core_aligned", "tensor_core_multiple", "tensor_core_padding":
/// [{"dimension", "size", "padded_size", "parameter_owned"}...] (when
/// misaligned), "tensor_core_dynamic" (dimensions not static) and
/// "tensor_core_padded": [{"dimension", "from"}...] (padded by
/// --amp-pad-for-tensor-cores)...],
/// "casts": [{"function", "value", "location",
/// "from", "to", "reason"}...], "constants": [{"function", "location",
/// "to", "values", "overflowed", "flushed_to_zero", "subnormal"}...],
/// "fp8_operands": [{"function", "op", "location", "operand", "format",
/// "scaling", "history_argument", "reason"}...] (precision fp8 only),
/// "totals": {"ops", "converted", "casts_inserted", "casts_folded",
/// "constant_values", "overflowed", "flushed_to_zero", "subnormal",
/// "tensor_core_contractions", "tensor_core_aligned",
/// "tensor_core_paddable"}}.
class PrecisionReport {
public:
  /// `precisionName` overrides the policy's type name in the report (fp8
  /// runs on bf16's policy).
  PrecisionReport(const PrecisionPolicy &policy, llvm::StringRef level,
                  llvm::StringRef precisionName = "");
  void add(mlir::FunctionOpInterface function, mlir::Operation *op,
           const PrecisionEntry &entry);
  void addTotals(unsigned converted, unsigned casts, unsigned folded);
  void setTensorCoreTotals(const TensorCoreChecks &checks);
  void addCast(mlir::FunctionOpInterface function, CastEntry entry);
  void addFp8Operand(mlir::FunctionOpInterface function, Fp8Entry entry);
  /// A folded constant (the new, low-precision one) and what converting its
  /// values did.
  void addConstant(mlir::FunctionOpInterface function,
                   mlir::Operation *lowConstant,
                   const ConversionCounts &counts);
  /// Writes the report whole or not at all (AtomicFile.h); emits at `loc`
  /// and fails when the file cannot be written.
  llvm::LogicalResult write(llvm::StringRef path, mlir::Location loc) const;
  void print(llvm::raw_ostream &os) const;

private:
  void printOps(llvm::json::OStream &json) const;
  static void printTensorCore(llvm::json::OStream &json,
                              const TensorCoreAlignment &alignment);
  void printCasts(llvm::json::OStream &json) const;
  void printFp8Operands(llvm::json::OStream &json) const;
  /// Prints the constants and returns their totals.
  ConversionCounts printConstants(llvm::json::OStream &json) const;
  struct Row {
    std::string function, name, location;
    PrecisionEntry entry;
  };
  struct CastRow {
    std::string function;
    CastEntry entry;
  };
  struct ConstantRow {
    std::string function, location, to;
    ConversionCounts counts;
  };
  std::string precision, level;
  std::vector<Row> rows;
  std::vector<CastRow> castRows;
  std::vector<ConstantRow> constantRows;
  std::vector<std::pair<std::string, Fp8Entry>> fp8Rows;
  unsigned converted = 0, casts = 0, folded = 0;
  unsigned tensorCoreContractions = 0, tensorCoreAligned = 0,
           tensorCorePaddable = 0;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONREPORT_H
