//===- PrecisionPolicy.cpp - Lists, levels and the target type ------------===//

#include "amp/Transforms/PrecisionPolicy.h"
#include "FileKind.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>

using namespace mlir;

namespace amp {

namespace {
struct NamedClasses {
  std::mutex mutex;
  llvm::StringMap<PrecisionClass> classes;
};
NamedClasses &namedClasses() {
  static NamedClasses registry;
  return registry;
}
} // namespace

void registerPrecisionClass(StringRef opName, PrecisionClass cls) {
  NamedClasses &r = namedClasses();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.classes[opName] = cls;
}

/// The first key that the top-level object of `text` (valid JSON) holds
/// twice: llvm::json keeps only one of them.
static std::optional<std::string> repeatedTopLevelKey(StringRef text) {
  llvm::StringSet<> keys;
  int depth = 0;
  bool expectKey = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      std::string token;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size())
          ++i;
        token += text[i];
      }
      if (depth == 1 && expectKey && !keys.insert(token).second)
        return token;
      expectKey = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      expectKey = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expectKey = true;
    }
  }
  return std::nullopt;
}

/// Whether arrays and objects in `text` nest deeper than `limit` (brackets
/// inside strings do not count). llvm::json::parse recurses once per level:
/// a hostile file of ten million '[' would overflow any stack.
static bool nestsDeeperThan(StringRef text, unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

FailureOr<PrecisionLists> parseListsFile(StringRef text, std::string &error) {
  // A lists-file is one object of arrays of names: two levels.
  constexpr unsigned kMaxNesting = 64;
  if (nestsDeeperThan(text, kMaxNesting)) {
    error = "nests arrays or objects deeper than " +
            std::to_string(kMaxNesting) +
            " levels (a lists-file is one object of arrays of op names)";
    return failure();
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error = "is not valid JSON: " + llvm::toString(json.takeError());
    return failure();
  }
  if (std::optional<std::string> key = repeatedTopLevelKey(text)) {
    error = "names the key \"" + *key +
            "\" twice (a JSON reader would keep only one of them)";
    return failure();
  }
  const llvm::json::Object *object = json->getAsObject();
  if (!object) {
    error = "must be a JSON object with \"allow\", \"infer\", \"clear\" "
            "and \"deny\" arrays";
    return failure();
  }
  PrecisionLists lists;
  for (const auto &[key, value] : *object) {
    std::vector<std::string> *list =
        llvm::StringSwitch<std::vector<std::string> *>(key)
            .Case("allow", &lists.allow)
            .Case("infer", &lists.infer)
            .Case("clear", &lists.clear)
            .Case("deny", &lists.deny)
            .Default(nullptr);
    if (!list) {
      error = "has an unknown key \"" + key.str() +
              "\" (expected allow, infer, clear, deny)";
      return failure();
    }
    const llvm::json::Array *array = value.getAsArray();
    if (!array) {
      error = "\"" + key.str() + "\" must be an array of op names";
      return failure();
    }
    for (const llvm::json::Value &name : *array) {
      std::optional<StringRef> str = name.getAsString();
      if (!str) {
        error = "\"" + key.str() + "\" must hold only strings";
        return failure();
      }
      list->push_back(str->str());
    }
  }
  return lists;
}

/// A listed name must name an op that can take part: one of a loaded
/// dialect (ops of registered dialects the IR does not use cannot be
/// checked, and cannot occur either), never a terminator, whose types its
/// parent or successors fix.
static LogicalResult checkListedOp(MLIRContext *context, Location loc,
                                   StringRef name, StringRef source) {
  auto fail = [&]() {
    return emitError(loc) << "amp-auto-mixed-precision: '" << name << "' in "
                          << source << " ";
  };
  if (name.empty())
    return fail() << "is an empty op name";
  auto [dialect, op] = name.split('.');
  if (op.empty() || dialect.empty())
    return fail() << "is not a fully qualified op name (dialect.op)";
  if (!context->getLoadedDialect(dialect)) {
    if (llvm::is_contained(context->getAvailableDialects(), dialect) ||
        context->allowsUnregisteredDialects())
      return success();
    return fail() << "names no known dialect ('" << dialect << "')";
  }
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(name, context);
  if (!registered) {
    if (context->allowsUnregisteredDialects() &&
        context->getLoadedDialect(dialect)->allowsUnknownOperations())
      return success();
    return fail() << "names no op of dialect '" << dialect << "'";
  }
  if (registered->hasTrait<OpTrait::IsTerminator>())
    return fail() << "is a terminator: its types follow its parent op or "
                     "successors, so it cannot be listed";
  return success();
}

FailureOr<PrecisionPolicy>
PrecisionPolicy::create(MLIRContext *context, Location loc,
                        LowPrecision precision, PrecisionLevel level,
                        const PrecisionLists &optionLists,
                        StringRef listsFile) {
  PrecisionPolicy policy;
  {
    NamedClasses &r = namedClasses();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto &entry : r.classes)
      policy.named[entry.getKey()] = entry.getValue();
  }
  if (precision == LowPrecision::F16)
    policy.lowType = Float16Type::get(context);
  else
    policy.lowType = BFloat16Type::get(context);
  policy.level = level;

  SmallVector<std::pair<const PrecisionLists *, std::string>> sources = {
      {&optionLists, "the pass options"}};
  PrecisionLists fileLists;
  if (!listsFile.empty()) {
    if (amprt::kindOf(listsFile.str()) == amprt::FileKind::Other)
      return emitError(loc)
             << "amp-auto-mixed-precision: cannot read lists-file '"
             << listsFile << "': " << amprt::kNotRegularFile;
    auto buffer = llvm::MemoryBuffer::getFile(listsFile);
    if (!buffer)
      return emitError(loc)
             << "amp-auto-mixed-precision: cannot read "
                "lists-file '"
             << listsFile << "': " << buffer.getError().message();
    std::string error;
    FailureOr<PrecisionLists> parsed =
        parseListsFile((*buffer)->getBuffer(), error);
    if (failed(parsed))
      return emitError(loc) << "amp-auto-mixed-precision: lists-file '"
                            << listsFile << "' " << error;
    fileLists = *parsed;
    sources.push_back({&fileLists, "lists-file '" + listsFile.str() + "'"});
  }

  // An op may be named once across every list (TensorFlow rejects the same).
  llvm::StringMap<std::string> namedIn;
  for (auto &[lists, source] : sources) {
    std::pair<const std::vector<std::string> *, PrecisionClass> byClass[] = {
        {&lists->allow, PrecisionClass::Allow},
        {&lists->infer, PrecisionClass::Infer},
        {&lists->clear, PrecisionClass::Clear},
        {&lists->deny, PrecisionClass::Deny}};
    for (auto &[names, cls] : byClass) {
      for (const std::string &name : *names) {
        if (failed(checkListedOp(context, loc, name, source)))
          return failure();
        std::string where =
            (stringifyPrecisionClass(cls) + " list of " + source).str();
        auto [it, inserted] = namedIn.try_emplace(name, where);
        if (!inserted)
          return emitError(loc) << "amp-auto-mixed-precision: '" << name
                                << "' is named in the " << it->second
                                << " and in the " << where;
        policy.overrides[name] = cls;
      }
    }
  }
  return policy;
}

std::optional<PrecisionClass>
PrecisionPolicy::getListedClass(OperationName name) const {
  if (!overrides.empty()) {
    auto it = overrides.find(name.getStringRef());
    if (it != overrides.end())
      return it->second;
  }
  if (!named.empty()) {
    auto it = named.find(name.getStringRef());
    if (it != named.end())
      return it->second;
  }
  return std::nullopt;
}

std::optional<PrecisionClass>
PrecisionPolicy::getModelClass(PrecisionPolicyOpInterface iface) const {
  if (!iface)
    return std::nullopt;
  return iface.getPrecisionClassUnder(
      lowType, [this](Operation *nested) { return getClass(nested); });
}

std::optional<PrecisionClass>
PrecisionPolicy::getClass(Operation *op,
                          PrecisionPolicyOpInterface iface) const {
  if (std::optional<PrecisionClass> listed = getListedClass(op->getName()))
    return listed;
  return getModelClass(iface);
}

bool PrecisionPolicy::isPrecisionOperand(Operation *op,
                                         PrecisionPolicyOpInterface iface,
                                         unsigned index) {
  if (iface)
    return iface.isPrecisionOperand(index);
  return isFloatTensor(op->getOperand(index).getType());
}

bool PrecisionPolicy::isPrecisionResult(Operation *op,
                                        PrecisionPolicyOpInterface iface,
                                        unsigned index) {
  if (iface)
    return iface.isPrecisionResult(index);
  return isFloatTensor(op->getResult(index).getType());
}

bool PrecisionPolicy::supports(Operation *op, PrecisionPolicyOpInterface iface,
                               FloatType type) {
  return iface ? iface.supportsPrecision(type) : hasOnlyRankedFloatTensors(op);
}

} // namespace amp
