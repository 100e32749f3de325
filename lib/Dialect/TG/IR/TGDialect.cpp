//===- TGDialect.cpp - The training-graph dialect -------------------------===//

#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace amp::tg;

#include "amp/Dialect/TG/IR/TGOpsDialect.cpp.inc"

void TGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/TG/IR/TGOps.cpp.inc"
      >();
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
