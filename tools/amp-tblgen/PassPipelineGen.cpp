//===- PassPipelineGen.cpp - Pipeline options from pass options -----------===//
//
// -gen-pass-pipeline-decls and -gen-pass-pipeline-doc over PassPipeline defs
// (include/amp/Transforms/PassPipelineBase.td). A pipeline's options are its
// own plus every option of its passes, one per argument: two passes that
// name an argument alike share the pipeline option, so they must agree on
// its type, default and flags. The declarations are a PassPipelineOptions
// struct and, for each pass, copyPipelineOptions(from, PassOptions &to).
//
//===----------------------------------------------------------------------===//

#include "mlir/Support/IndentedOstream.h"
#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;
using mlir::tblgen::Pass;
using mlir::tblgen::PassOption;

namespace {

/// A pass option a pipeline option fills.
struct OptionTarget {
  const Record *pass;
  PassOption option;
};

/// One option of the pipeline: its declaration (the pass option's, or the
/// pipeline's own) and the pass options it fills.
struct PipelineOption {
  PassOption declaration;
  SmallVector<OptionTarget> targets;
};

/// A PassPipeline def, its options resolved.
class Pipeline {
public:
  explicit Pipeline(const Record *def);

  const Record *def;
  /// Keyed by argument, in declaration order.
  MapVector<StringRef, PipelineOption> options;
  /// The passes, in the def's order.
  SmallVector<const Record *> passes;

  StringRef argument() const { return def->getValueAsString("argument"); }
  std::string structName() const { return (def->getName() + "Options").str(); }

private:
  void addOwnOption(const Record *optionDef);
  void addPass(const Record *pipelinePass);
  void addTarget(const PassOption &declaration, OptionTarget target);
};

} // namespace

static bool sameValue(std::optional<StringRef> a, std::optional<StringRef> b) {
  return a.value_or("").trim() == b.value_or("").trim();
}

/// Whether two declarations can be one option: the same C++ type, kind,
/// default and flags (the description may differ; the first one's is used).
static bool compatible(const PassOption &a, const PassOption &b) {
  return a.getType() == b.getType() && a.isListOption() == b.isListOption() &&
         sameValue(a.getDefaultValue(), b.getDefaultValue()) &&
         sameValue(a.getAdditionalFlags(), b.getAdditionalFlags());
}

Pipeline::Pipeline(const Record *def) : def(def) {
  for (const Record *option : def->getValueAsListOfDefs("options"))
    addOwnOption(option);
  for (const Record *pipelinePass : def->getValueAsListOfDefs("passes"))
    addPass(pipelinePass);
  StringSet<> fields;
  for (const auto &entry : options)
    if (!fields.insert(entry.second.declaration.getCppVariableName()).second)
      PrintFatalError(def, "two pipeline options are the field '" +
                               entry.second.declaration.getCppVariableName() +
                               "'");
}

void Pipeline::addOwnOption(const Record *optionDef) {
  PassOption option(optionDef);
  if (!options.insert({option.getArgument(), {option, {}}}).second)
    PrintFatalError(def, "pipeline option '" + option.getArgument() +
                             "' is declared twice");
}

void Pipeline::addTarget(const PassOption &declaration, OptionTarget target) {
  auto [it, added] =
      options.insert({declaration.getArgument(), {declaration, {}}});
  if (!added && !compatible(it->second.declaration, declaration))
    PrintFatalError(def, "pipeline option '" + declaration.getArgument() +
                             "' has another type, default or flags in " +
                             target.pass->getName());
  if (!added && it->second.targets.empty())
    PrintFatalError(def, "pipeline option '" + declaration.getArgument() +
                             "' is the pipeline's own and " +
                             target.pass->getName() + "'s");
  it->second.targets.push_back(target);
}

void Pipeline::addPass(const Record *pipelinePass) {
  const Record *passDef = pipelinePass->getValueAsDef("pass");
  passes.push_back(passDef);
  Pass pass(passDef);
  StringMap<const Record *> renamed;
  for (const Record *rename : pipelinePass->getValueAsListOfDefs("renamed"))
    renamed[rename->getValueAsString("passArgument")] =
        rename->getValueAsDef("option");
  StringSet<> fixed;
  for (StringRef argument : pipelinePass->getValueAsListOfStrings("fixed"))
    fixed.insert(argument);

  for (const PassOption &option : pass.getOptions()) {
    StringRef argument = option.getArgument();
    if (fixed.erase(argument))
      continue;
    const Record *renamedTo = renamed.lookup(argument);
    renamed.erase(argument);
    PassOption declaration = renamedTo ? PassOption(renamedTo) : option;
    if (renamedTo && (declaration.getType() != option.getType() ||
                      declaration.isListOption() != option.isListOption()))
      PrintFatalError(def, "'" + declaration.getArgument() +
                               "' is not of the type of " + passDef->getName() +
                               "'s '" + argument + "'");
    addTarget(declaration, {passDef, option});
  }
  for (const auto &unknown : renamed)
    PrintFatalError(def, passDef->getName() + " has no option '" +
                             unknown.getKey() + "' to rename");
  for (const auto &unknown : fixed)
    PrintFatalError(def, passDef->getName() + " has no option '" +
                             unknown.getKey() + "' to fix");
}

static std::vector<Pipeline> pipelinesIn(const RecordKeeper &records) {
  std::vector<Pipeline> pipelines;
  for (const Record *def : records.getAllDerivedDefinitions("PassPipeline"))
    pipelines.emplace_back(def);
  return pipelines;
}

//===----------------------------------------------------------------------===//
// -gen-pass-pipeline-decls
//===----------------------------------------------------------------------===//

/// `Option<T> name{*this, "arg", desc(...), init(...), flags};`, as
/// mlir-tblgen declares a pass's option.
static void emitOptionDecl(const PassOption &option, raw_ostream &os) {
  os << formatv(
      "  {0}<{1}> {2}{{*this, \"{3}\", ::llvm::cl::desc(R\"PO({4})PO\")",
      option.isListOption() ? "ListOption" : "Option", option.getType(),
      option.getCppVariableName(), option.getArgument(),
      option.getDescription().trim());
  if (std::optional<StringRef> init = option.getDefaultValue())
    if (!init->trim().empty())
      os << ", ::llvm::cl::init(" << *init << ")";
  if (std::optional<StringRef> flags = option.getAdditionalFlags())
    os << ", " << *flags;
  os << "};\n";
}

static void emitOptionsStruct(const Pipeline &pipeline, raw_ostream &os) {
  os << formatv("/// The options of --{0}, generated from its passes' (see "
                "{1}'s def).\n",
                pipeline.argument(), pipeline.def->getName());
  os << "struct " << pipeline.structName()
     << " : public ::mlir::PassPipelineOptions<" << pipeline.structName()
     << "> {\n";
  os << formatv("  static constexpr ::llvm::StringLiteral argument = "
                "\"{0}\";\n",
                pipeline.argument());
  os << formatv("  static constexpr ::llvm::StringLiteral summary = "
                "R\"PO({0})PO\";\n",
                pipeline.def->getValueAsString("summary").trim());
  for (const auto &entry : pipeline.options)
    emitOptionDecl(entry.second.declaration, os);
  os << "};\n\n";
}

/// copyPipelineOptions(from, to) for one pass: each option that reaches it.
static void emitCopy(const Pipeline &pipeline, const Record *pass,
                     raw_ostream &os) {
  os << formatv("/// --{0}'s options that {1} takes.\n", pipeline.argument(),
                Pass(pass).getArgument());
  os << formatv("inline void copyPipelineOptions(const {0} &from, "
                "{1}Options &to) {{\n",
                pipeline.structName(), pass->getName());
  for (const auto &entry : pipeline.options) {
    StringRef from = entry.second.declaration.getCppVariableName();
    for (const OptionTarget &target : entry.second.targets) {
      if (target.pass != pass)
        continue;
      StringRef to = target.option.getCppVariableName();
      if (target.option.isListOption())
        os << formatv("  to.{0}.assign(from.{1}.begin(), from.{1}.end());\n",
                      to, from);
      else
        os << formatv("  to.{0} = from.{1};\n", to, from);
    }
  }
  os << "}\n\n";
}

static bool emitDecls(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("Pass pipeline options", os, records);
  for (const Pipeline &pipeline : pipelinesIn(records)) {
    emitOptionsStruct(pipeline, os);
    for (const Record *pass : pipeline.passes)
      emitCopy(pipeline, pass, os);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// -gen-pass-pipeline-doc
//===----------------------------------------------------------------------===//

static std::string passesTaking(const PipelineOption &option) {
  if (option.targets.empty())
    return "the pipeline";
  std::string names;
  for (const OptionTarget &target : option.targets) {
    if (!names.empty())
      names += ", ";
    names += ("`" + Pass(target.pass).getArgument() + "`").str();
    if (target.option.getArgument() != option.declaration.getArgument())
      names += ("'s `" + target.option.getArgument() + "`").str();
  }
  return names;
}

/// A description as one table cell: one line, its bars escaped.
static std::string asTableCell(StringRef text) {
  std::string cell;
  for (char c : text.trim()) {
    if (c == '|')
      cell += '\\';
    cell += c == '\n' ? ' ' : c;
  }
  return cell;
}

/// As mlir-tblgen documents a pass, with the options as a table that says
/// which passes each reaches.
static void emitDoc(const Pipeline &pipeline, raw_ostream &os) {
  os << "### `-" << pipeline.argument() << "`\n\n";
  os << "_" << pipeline.def->getValueAsString("summary").trim() << "_\n\n";
  mlir::raw_indented_ostream(os).printReindented(
      pipeline.def->getValueAsString("description").rtrim(" \t"));
  os << "\n";
  os << "#### Options\n\n";
  os << "| Option | Default | Passed to | Description |\n";
  os << "|---|---|---|---|\n";
  for (const auto &entry : pipeline.options) {
    const PassOption &option = entry.second.declaration;
    // The C++ default, less the namespace every amp enum and constant has.
    StringRef init = option.getDefaultValue().value_or("").trim();
    init.consume_front("::amp::");
    os << formatv("| `{0}` | {1} | {2} | {3} |\n", option.getArgument(),
                  init.empty() ? "" : ("`" + init + "`").str(),
                  passesTaking(entry.second),
                  asTableCell(option.getDescription()));
  }
  os << "\n";
}

static bool emitDocs(const RecordKeeper &records, raw_ostream &os) {
  os << "<!-- Autogenerated by amp-tblgen; don't manually edit -->\n\n";
  for (const Pipeline &pipeline : pipelinesIn(records))
    emitDoc(pipeline, os);
  return false;
}

static mlir::GenRegistration
    genPipelineDecls("gen-pass-pipeline-decls",
                     "Generate pass pipeline options and their copies into "
                     "the passes' options",
                     emitDecls);

static mlir::GenRegistration
    genPipelineDoc("gen-pass-pipeline-doc",
                   "Generate pass pipeline documentation", emitDocs);
