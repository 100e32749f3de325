//===- TGDialect.cpp - The training-graph dialect -------------------------===//

#include "amp/Dialect/ArithConstants.h"
#include "amp/Dialect/TG/IR/TG.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace amp::tg;

#include "amp/Dialect/TG/IR/TGEnums.cpp.inc"
#include "amp/Dialect/TG/IR/TGOpsDialect.cpp.inc"

void TGDialect::initialize() {
  addOperationsWithPrecision<
#define GET_OP_LIST
#include "amp/Dialect/TG/IR/TGOps.cpp.inc"
      >();
  attachTensorCoreShapes(getContext());
}

Operation *TGDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  return amp::materializeArithConstant(builder, value, type, loc);
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

namespace amp::tg {

namespace {
/// Where a role may stand: on arguments, on results, or both (the state a
/// step returns for the next one).
enum RoleUse : unsigned { OnArgument = 1, OnResult = 2 };
} // namespace

static unsigned roleUse(Role role) {
  switch (role) {
  case Role::Param:
  case Role::OptState:
  case Role::LossScale:
  case Role::GoodSteps:
  case Role::AmaxHistory:
    return OnArgument | OnResult;
  case Role::Input:
  case Role::Label:
  case Role::LearningRate:
  case Role::Communicator:
    return OnArgument;
  case Role::Loss:
  case Role::Logits:
  case Role::Output:
  case Role::Applied:
    return OnResult;
  }
  llvm_unreachable("unknown tg role");
}

bool isArgumentRole(Role role) { return roleUse(role) & OnArgument; }

bool isResultRole(Role role) { return roleUse(role) & OnResult; }

bool isCarriedRole(Role role) {
  return isArgumentRole(role) && isResultRole(role);
}

static std::optional<Role> roleOf(StringAttr name) {
  return name ? symbolizeRole(name.getValue()) : std::nullopt;
}

std::optional<Role> getArgumentRole(FunctionOpInterface func, unsigned index) {
  return roleOf(
      func.getArgAttrOfType<StringAttr>(index, TGDialect::kRoleAttrName));
}

std::optional<Role> getResultRole(FunctionOpInterface func, unsigned index) {
  return roleOf(
      func.getResultAttrOfType<StringAttr>(index, TGDialect::kRoleAttrName));
}

DictionaryAttr roleAttributes(MLIRContext *context, Role role,
                              Attribute initValue) {
  NamedAttrList attrs;
  attrs.append(TGDialect::kRoleAttrName,
               StringAttr::get(context, stringifyRole(role)));
  if (initValue)
    attrs.append(TGDialect::kInitValueAttrName, initValue);
  return attrs.getDictionary(context);
}

std::optional<double> getInitValue(FunctionOpInterface func, unsigned index) {
  Attribute value = func.getArgAttr(index, TGDialect::kInitValueAttrName);
  if (auto number = dyn_cast_or_null<FloatAttr>(value))
    return number.getValueAsDouble();
  if (auto number = dyn_cast_or_null<IntegerAttr>(value))
    return (double)number.getInt();
  return std::nullopt;
}

} // namespace amp::tg

/// The names of the enumerants of an ODS enum that `keep` accepts, in
/// declaration order (for "must be one of" messages).
template <typename Enum>
static SmallVector<StringRef>
enumNames(unsigned maxValue, std::optional<Enum> (*symbolize)(uint32_t),
          StringRef (*stringify)(Enum), bool (*keep)(Enum)) {
  SmallVector<StringRef> names;
  for (unsigned v = 0; v <= maxValue; ++v)
    if (std::optional<Enum> e = symbolize(v); e && keep(*e))
      names.push_back(stringify(*e));
  return names;
}

/// Checks that `attr` is a string naming an enumerant that `keep` accepts,
/// naming the accepted ones otherwise.
template <typename Enum>
static LogicalResult
checkEnumString(Operation *op, NamedAttribute attr, StringRef where,
                unsigned maxValue, std::optional<Enum> (*symbolize)(uint32_t),
                std::optional<Enum> (*symbolizeName)(StringRef),
                StringRef (*stringify)(Enum), bool (*keep)(Enum)) {
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (value)
    if (std::optional<Enum> e = symbolizeName(value.getValue()); e && keep(*e))
      return success();
  InFlightDiagnostic diag = op->emitError()
                            << "'" << attr.getName().getValue() << "' on "
                            << where << " must be one of ";
  llvm::interleaveComma(enumNames(maxValue, symbolize, stringify, keep), diag,
                        [&](StringRef s) { diag << "\"" << s << "\""; });
  return diag << ", got " << attr.getValue();
}

static LogicalResult checkRole(Operation *op, NamedAttribute attr,
                               StringRef where, bool (*keep)(Role)) {
  return checkEnumString<Role>(op, attr, where, getMaxEnumValForRole(),
                               symbolizeRole, symbolizeRole, stringifyRole,
                               keep);
}

/// `tg.init_value` gives the value a host fills a step-state argument with
/// before the first step: a number of the argument's element kind, on an
/// argument whose role is state (not a parameter, which takes `tg.init`,
/// and not data, which the host binds per batch).
static LogicalResult verifyInitValue(Operation *op, unsigned argIndex,
                                     NamedAttribute attr, StringRef where) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'tg.init_value' belongs on function arguments";
  std::optional<Role> role = getArgumentRole(func, argIndex);
  if (!role || *role == Role::Param || *role == Role::Input ||
      *role == Role::Label)
    return op->emitError()
           << "'tg.init_value' on " << where
           << " needs a state role (\"opt_state\", \"lr\", \"loss_scale\" or "
              "\"good_steps\"); parameters start from tg.init";
  auto tensor = dyn_cast<RankedTensorType>(func.getArgumentTypes()[argIndex]);
  if (!tensor)
    return op->emitError() << "'tg.init_value' on " << where
                           << " needs a ranked tensor argument";
  Type element = tensor.getElementType();
  bool fits =
      ((isa<FloatType>(element) && isa<FloatAttr>(attr.getValue()) &&
        cast<FloatAttr>(attr.getValue()).getType() == element) ||
       (element.isSignlessInteger() && isa<IntegerAttr>(attr.getValue()) &&
        cast<IntegerAttr>(attr.getValue()).getType() == element));
  if (!fits)
    return op->emitError() << "'tg.init_value' on " << where
                           << " must be a number of the argument's element "
                              "type "
                           << element << ", got " << attr.getValue();
  return success();
}

LogicalResult TGDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  std::string where = "argument " + std::to_string(argIndex);
  StringRef name = attr.getName().getValue();
  if (name == kRoleAttrName)
    return checkRole(op, attr, where, isArgumentRole);
  if (name == kInitAttrName) {
    if (failed(checkEnumString<Initializer>(
            op, attr, where, getMaxEnumValForInitializer(),
            symbolizeInitializer, symbolizeInitializer, stringifyInitializer,
            [](Initializer) { return true; })))
      return failure();
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || getArgumentRole(func, argIndex) != Role::Param)
      return op->emitError()
             << "'tg.init' on " << where << " needs tg.role = \"param\"";
    return success();
  }
  if (name == kInitValueAttrName)
    return verifyInitValue(op, argIndex, attr, where);
  return op->emitError() << "unknown tg attribute '" << name << "' on " << where
                         << " (expected tg.role, tg.init or tg.init_value)";
}

LogicalResult TGDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  std::string where = "result " + std::to_string(resultIndex);
  if (attr.getName().getValue() == kRoleAttrName)
    return checkRole(op, attr, where, isResultRole);
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
