//===- AMPDialect.cpp - The precision dialect -----------------------------===//

#include "amp/Dialect/AMP/IR/AMP.h"
#include "amp/Dialect/ArithConstants.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace amp;

#include "amp/Dialect/AMP/IR/AMPOpsDialect.cpp.inc"

void AMPDialect::initialize() {
  addOperationsWithPrecision<
#define GET_OP_LIST
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"
      >();
}

Operation *AMPDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  return amp::materializeArithConstant(builder, value, type, loc);
}

/// Checks that `attr` is a string naming one of `allowed`.
static LogicalResult verifyEnumAttr(Operation *op, NamedAttribute attr,
                                    ArrayRef<StringRef> allowed) {
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (value && llvm::is_contained(allowed, value.getValue()))
    return success();
  InFlightDiagnostic diag = op->emitError() << "'" << attr.getName().getValue()
                                            << "' must be one of ";
  llvm::interleaveComma(allowed, diag,
                        [&](StringRef s) { diag << "\"" << s << "\""; });
  return diag << ", got " << attr.getValue();
}

/// amp.tensor_core_padded: {dimension = size it had, ...}, sizes > 0.
static LogicalResult verifyPaddedSizes(Operation *op, NamedAttribute attr) {
  auto sizes = dyn_cast<DictionaryAttr>(attr.getValue());
  bool valid = sizes && llvm::all_of(sizes, [](NamedAttribute dim) {
                 auto size = dyn_cast<IntegerAttr>(dim.getValue());
                 return size && size.getValue().isStrictlyPositive();
               });
  if (valid)
    return success();
  return op->emitError() << "'" << attr.getName().getValue()
                         << "' must be a dictionary of sizes > 0 by "
                            "dimension name, got "
                         << attr.getValue();
}

static LogicalResult verifyMicroBatches(Operation *op, NamedAttribute attr) {
  auto count = dyn_cast<IntegerAttr>(attr.getValue());
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' belongs on a function";
  if (count && count.getValue().getSExtValue() >= 2)
    return success();
  return op->emitError() << "'" << attr.getName().getValue()
                         << "' must be an integer >= 2, got "
                         << attr.getValue();
}

LogicalResult AMPDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned result,
                                                      NamedAttribute attr) {
  if (attr.getName().getValue() != kProbeAttrName)
    return op->emitError() << "unknown amp attribute '"
                           << attr.getName().getValue() << "' on result #"
                           << result << " (expected amp.probe)";
  auto probe = dyn_cast<DictionaryAttr>(attr.getValue());
  auto kind = probe ? probe.getAs<StringAttr>("kind") : StringAttr();
  if (!kind ||
      !llvm::is_contained(
          ArrayRef<StringRef>{"result", "arithmetic", "input", "gradient"},
          kind.getValue()) ||
      !probe.getAs<IntegerAttr>("id"))
    return op->emitError()
           << "amp.probe on result #" << result
           << " must be a dictionary with kind = \"result\", \"arithmetic\", "
              "\"input\" or \"gradient\" and an integer id, got "
           << attr.getValue();
  return success();
}

LogicalResult AMPDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kPrecisionAttrName)
    return verifyEnumAttr(op, attr, {"f32", "f16", "bf16"});
  if (name == kColorAttrName)
    return verifyEnumAttr(op, attr, {"allow", "infer", "clear", "deny"});
  if (name == kTensorCorePaddedAttrName)
    return verifyPaddedSizes(op, attr);
  if (name == kMicroBatchesAttrName)
    return verifyMicroBatches(op, attr);
  return op->emitError() << "unknown amp attribute '" << name
                         << "' (expected amp.precision, amp.color, "
                            "amp.tensor_core_padded or amp.micro_batches)";
}
