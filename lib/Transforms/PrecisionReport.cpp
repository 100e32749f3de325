//===- PrecisionReport.cpp - The JSON account of AMP decisions ------------===//

#include "PrecisionReport.h"
#include "PrecisionColoring.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace amp {

PrecisionReport::PrecisionReport(const PrecisionPolicy &policy,
                                 StringRef level)
    : level(level.str()) {
  llvm::raw_string_ostream(precision) << policy.getLowType();
}

void PrecisionReport::add(FunctionOpInterface function, Operation *op,
                          const PrecisionEntry &entry) {
  rows.push_back({function.getName().str(),
                  op->getName().getStringRef().str(),
                  formatLocation(op->getLoc()), entry});
}

void PrecisionReport::addTotals(unsigned c, unsigned k, unsigned f) {
  converted += c;
  casts += k;
  folded += f;
}

LogicalResult PrecisionReport::write(StringRef path, Location loc) const {
  std::error_code error;
  llvm::raw_fd_ostream file(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return emitError(loc) << "amp-auto-mixed-precision: cannot write report '"
                          << path << "': " << error.message();
  llvm::json::OStream json(file, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("precision", precision);
    json.attribute("level", level);
    json.attributeArray("ops", [&] {
      for (const Row &row : rows)
        json.object([&] {
          json.attribute("function", row.function);
          json.attribute("name", row.name);
          json.attribute("location", row.location);
          json.attribute("class", row.entry.cls);
          json.attribute("precision", row.entry.precision);
          json.attribute("reason", row.entry.reason);
        });
    });
    json.attributeObject("totals", [&] {
      json.attribute("ops", static_cast<int64_t>(rows.size()));
      json.attribute("converted", static_cast<int64_t>(converted));
      json.attribute("casts_inserted", static_cast<int64_t>(casts));
      json.attribute("casts_folded", static_cast<int64_t>(folded));
    });
  });
  file << "\n";
  if (file.has_error())
    return emitError(loc) << "amp-auto-mixed-precision: cannot write report '"
                          << path << "'";
  return success();
}

} // namespace amp
