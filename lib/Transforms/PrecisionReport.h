//===- PrecisionReport.h - The JSON account of AMP decisions ----*- C++ -*-===//

#ifndef AMP_LIB_TRANSFORMS_PRECISIONREPORT_H
#define AMP_LIB_TRANSFORMS_PRECISIONREPORT_H

#include "amp/Transforms/PrecisionPolicy.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include <string>
#include <vector>

namespace amp {

/// What the pass decided for one op.
struct PrecisionEntry {
  std::string cls;       // allow, infer, clear, deny or none
  std::string precision; // f16, bf16, f32, ...
  std::string reason;
  std::string color;     // the amp.color annotation
};

/// Collects entries and totals across functions and writes them as JSON:
/// {"precision", "level", "ops": [{"function", "name", "location", "class",
/// "precision", "reason"}...], "totals": {"ops", "converted",
/// "casts_inserted", "casts_folded"}}.
class PrecisionReport {
public:
  PrecisionReport(const PrecisionPolicy &policy, llvm::StringRef level);
  void add(mlir::FunctionOpInterface function, mlir::Operation *op,
           const PrecisionEntry &entry);
  void addTotals(unsigned converted, unsigned casts, unsigned folded);
  /// Writes the report; emits at `loc` and fails when the file cannot be
  /// written.
  llvm::LogicalResult write(llvm::StringRef path, mlir::Location loc) const;

private:
  struct Row {
    std::string function, name, location;
    PrecisionEntry entry;
  };
  std::string precision, level;
  std::vector<Row> rows;
  unsigned converted = 0, casts = 0, folded = 0;
};

} // namespace amp

#endif // AMP_LIB_TRANSFORMS_PRECISIONREPORT_H
