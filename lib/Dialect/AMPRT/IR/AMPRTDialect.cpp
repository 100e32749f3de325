//===- AMPRTDialect.cpp - Ops that are one runtime call -------------------===//

#include "amp/Dialect/AMPRT/IR/AMPRT.h"

using namespace mlir;
using namespace amp::rt;

#include "amp/Dialect/AMPRT/IR/AMPRTOpsDialect.cpp.inc"

void AMPRTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/AMPRT/IR/AMPRTOps.cpp.inc"
      >();
}
