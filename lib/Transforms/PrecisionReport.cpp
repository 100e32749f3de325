//===- PrecisionReport.cpp - The JSON account of AMP decisions ------------===//

#include "PrecisionReport.h"
#include "PrecisionColoring.h"
#include "amp/Support/AtomicFile.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace amp {

PrecisionReport::PrecisionReport(const PrecisionPolicy &policy, StringRef level,
                                 StringRef precisionName)
    : precision(precisionName.str()), level(level.str()) {
  if (precision.empty())
    llvm::raw_string_ostream(precision) << policy.getLowType();
}

void PrecisionReport::addFp8Operand(FunctionOpInterface function,
                                    Fp8Entry entry) {
  fp8Rows.push_back({function.getName().str(), std::move(entry)});
}

void PrecisionReport::add(FunctionOpInterface function, Operation *op,
                          const PrecisionEntry &entry) {
  rows.push_back({function.getName().str(), op->getName().getStringRef().str(),
                  formatLocation(op->getLoc()), entry});
}

void PrecisionReport::addTotals(unsigned c, unsigned k, unsigned f) {
  converted += c;
  casts += k;
  folded += f;
}

void PrecisionReport::setTensorCoreTotals(const TensorCoreChecks &checks) {
  tensorCoreContractions = checks.contractions;
  tensorCoreAligned = checks.aligned;
  tensorCorePaddable = checks.paddable;
}

void PrecisionReport::addCast(FunctionOpInterface function, CastEntry entry) {
  castRows.push_back({function.getName().str(), std::move(entry)});
}

void PrecisionReport::addConstant(FunctionOpInterface function,
                                  Operation *lowConstant,
                                  const ConversionCounts &counts) {
  std::string to;
  llvm::raw_string_ostream(to)
      << getElementTypeOrSelf(lowConstant->getResult(0).getType());
  constantRows.push_back({function.getName().str(),
                          formatLocation(lowConstant->getLoc()), to, counts});
}

void PrecisionReport::printOps(llvm::json::OStream &json) const {
  json.attributeArray("ops", [&] {
    for (const Row &row : rows)
      json.object([&] {
        json.attribute("function", row.function);
        json.attribute("name", row.name);
        json.attribute("location", row.location);
        json.attribute("class", row.entry.cls);
        json.attribute("precision", row.entry.precision);
        json.attribute("reason", row.entry.reason);
        if (row.entry.tensorCore)
          printTensorCore(json, *row.entry.tensorCore);
        if (!row.entry.paddedFrom.empty())
          json.attributeArray("tensor_core_padded", [&] {
            for (const auto &dim : row.entry.paddedFrom)
              json.object([&] {
                json.attribute("dimension", dim.first);
                json.attribute("from", dim.second);
              });
          });
      });
  });
}

void PrecisionReport::printTensorCore(llvm::json::OStream &json,
                                      const TensorCoreAlignment &alignment) {
  json.attribute("tensor_core_aligned", alignment.aligned());
  json.attribute("tensor_core_multiple", alignment.multiple);
  if (!alignment.aligned())
    json.attributeArray("tensor_core_padding", [&] {
      for (const MisalignedDim &dim : alignment.misaligned)
        json.object([&] {
          json.attribute("dimension", dim.name);
          json.attribute("size", dim.size);
          json.attribute("padded_size", dim.padded);
          json.attribute("parameter_owned", dim.parameterOwned);
        });
    });
  if (!alignment.dynamic.empty())
    json.attributeArray("tensor_core_dynamic", [&] {
      for (const std::string &name : alignment.dynamic)
        json.value(name);
    });
}

void PrecisionReport::printCasts(llvm::json::OStream &json) const {
  json.attributeArray("casts", [&] {
    for (const CastRow &row : castRows)
      json.object([&] {
        json.attribute("function", row.function);
        json.attribute("value", row.entry.value);
        json.attribute("location", row.entry.location);
        json.attribute("from", row.entry.from);
        json.attribute("to", row.entry.to);
        json.attribute("reason", row.entry.reason);
      });
  });
}

void PrecisionReport::printFp8Operands(llvm::json::OStream &json) const {
  json.attributeArray("fp8_operands", [&] {
    for (const auto &row : fp8Rows)
      json.object([&] {
        // (clang 14 cannot capture structured bindings)
        const std::string &function = row.first;
        const Fp8Entry &entry = row.second;
        json.attribute("function", function);
        json.attribute("op", entry.op);
        json.attribute("location", entry.location);
        json.attribute("operand", static_cast<int64_t>(entry.operand));
        json.attribute("format", entry.format);
        json.attribute("scaling", entry.scaling);
        if (entry.historyArgument >= 0)
          json.attribute("history_argument",
                         static_cast<int64_t>(entry.historyArgument));
        json.attribute("reason", entry.reason);
      });
  });
}

ConversionCounts
PrecisionReport::printConstants(llvm::json::OStream &json) const {
  ConversionCounts total;
  json.attributeArray("constants", [&] {
    for (const ConstantRow &row : constantRows) {
      total.values += row.counts.values;
      total.overflowed += row.counts.overflowed;
      total.flushedToZero += row.counts.flushedToZero;
      total.subnormal += row.counts.subnormal;
      json.object([&] {
        json.attribute("function", row.function);
        json.attribute("location", row.location);
        json.attribute("to", row.to);
        json.attribute("values", row.counts.values);
        json.attribute("overflowed", row.counts.overflowed);
        json.attribute("flushed_to_zero", row.counts.flushedToZero);
        json.attribute("subnormal", row.counts.subnormal);
      });
    }
  });
  return total;
}

void PrecisionReport::print(llvm::raw_ostream &os) const {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("precision", precision);
    json.attribute("level", level);
    printOps(json);
    printCasts(json);
    if (precision == "fp8")
      printFp8Operands(json);
    ConversionCounts total = printConstants(json);
    json.attributeObject("totals", [&] {
      json.attribute("ops", static_cast<int64_t>(rows.size()));
      json.attribute("converted", static_cast<int64_t>(converted));
      json.attribute("casts_inserted", static_cast<int64_t>(casts));
      json.attribute("casts_folded", static_cast<int64_t>(folded));
      json.attribute("constant_values", total.values);
      json.attribute("overflowed", total.overflowed);
      json.attribute("flushed_to_zero", total.flushedToZero);
      json.attribute("subnormal", total.subnormal);
      json.attribute("tensor_core_contractions",
                     static_cast<int64_t>(tensorCoreContractions));
      json.attribute("tensor_core_aligned",
                     static_cast<int64_t>(tensorCoreAligned));
      json.attribute("tensor_core_paddable",
                     static_cast<int64_t>(tensorCorePaddable));
    });
  });
  os << "\n";
}

LogicalResult PrecisionReport::write(StringRef path, Location loc) const {
  llvm::Error written =
      writeFileAtomically(path, [&](llvm::raw_ostream &os) { print(os); });
  if (!written)
    return success();
  return emitError(loc) << "amp-auto-mixed-precision: cannot write report '"
                        << path << "': " << llvm::toString(std::move(written));
}

} // namespace amp
