//===- TGDialect.cpp - The training-graph dialect -------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace amp::tg;

#include "amp/Dialect/TG/IR/TGOpsDialect.cpp.inc"

void TGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/TG/IR/TGOps.cpp.inc"
      >();
  attachPrecisionPolicy(getContext());
}

Operation *TGDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

namespace amp::tg {

ParseResult parseTypePair(OpAsmParser &parser, Type &lhs, Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  rhs = lhs;
  return success();
}

void printTypePair(OpAsmPrinter &printer, Operation *, Type lhs, Type rhs) {
  printer << lhs;
  if (rhs != lhs)
    printer << ", " << rhs;
}

} // namespace amp::tg

//===----------------------------------------------------------------------===//
// tg.role / tg.init on function arguments and results
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kArgRoles[] = {
    "param", "opt_state", "input", "label", "lr", "loss_scale", "good_steps"};
static constexpr StringLiteral kResultRoles[] = {
    "param", "opt_state", "loss_scale", "good_steps",
    "loss",  "logits",    "output"};
static constexpr StringLiteral kInits[] = {"glorot_uniform", "he_normal",
                                           "zeros", "ones"};

/// Checks that `attr` is a string from `allowed`, naming them otherwise.
static LogicalResult checkNamedString(Operation *op, NamedAttribute attr,
                                      ArrayRef<StringLiteral> allowed,
                                      StringRef where) {
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (value && llvm::is_contained(allowed, value.getValue()))
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << "'" << attr.getName().getValue() << "' on "
                            << where << " must be one of ";
  llvm::interleaveComma(allowed, diag,
                        [&](StringRef s) { diag << "\"" << s << "\""; });
  return diag << ", got " << attr.getValue();
}

LogicalResult TGDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  std::string where = "argument " + std::to_string(argIndex);
  StringRef name = attr.getName().getValue();
  if (name == kRoleAttrName)
    return checkNamedString(op, attr, kArgRoles, where);
  if (name == kInitAttrName) {
    if (failed(checkNamedString(op, attr, kInits, where)))
      return failure();
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto role = func
                    ? func.getArgAttrOfType<StringAttr>(argIndex, kRoleAttrName)
                    : StringAttr();
    if (!role || role.getValue() != "param")
      return op->emitError()
             << "'tg.init' on " << where << " needs tg.role = \"param\"";
    return success();
  }
  return op->emitError() << "unknown tg attribute '" << name << "' on " << where
                         << " (expected tg.role or tg.init)";
}

LogicalResult TGDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  std::string where = "result " + std::to_string(resultIndex);
  if (attr.getName().getValue() == kRoleAttrName)
    return checkNamedString(op, attr, kResultRoles, where);
  return op->emitError() << "unknown tg attribute '"
                         << attr.getName().getValue() << "' on " << where
                         << " (expected tg.role)";
}

LogicalResult TGDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  return op->emitError() << "unknown tg attribute '"
                         << attr.getName().getValue()
                         << "' (tg.role and tg.init belong on function "
                            "arguments and results)";
}
