// amp-tblgen's pipeline generators: a pipeline option per distinct
// argument of its passes (shared where two passes name it alike, under the
// pipeline's name where renamed, absent where fixed), in declaration
// order, and a copy into each pass's options struct.
// RUN: amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include %s | FileCheck %s --check-prefix=DECL
// RUN: amp-tblgen -gen-pass-pipeline-doc -I %mlir_include -I %amp_src/include %s | FileCheck %s --check-prefix=DOC

include "amp/Transforms/PassPipelineBase.td"

def APass : Pass<"a-pass"> {
  let options = [
    Option<"level", "level", "int", "1", "How far">,
    ListOption<"names", "names", "std::string", "Names | or words">,
    Option<"verbose", "verbose", "bool", "false", "Talk">,
  ];
}

def BPass : Pass<"b-pass"> {
  let options = [
    Option<"depth", "level", "int", "1", "The same argument in another field">,
    Option<"count", "count", "unsigned", "2", "Renamed in the pipeline">,
    Option<"internal", "internal", "bool", "true", "Set by the builder">,
  ];
}

def TestPipeline : PassPipeline<"test-pipeline"> {
  let summary = "Runs a-pass and b-pass";
  let description = [{
    First line.
      Indented line.
  }];
  let options = [
    Option<"extra", "extra", "bool", "false", "The pipeline's own">,
  ];
  let passes = [
    PipelinePass<APass>,
    PipelinePass<BPass, [
      PipelineRename<"count",
        Option<"bCount", "b-count", "unsigned", "2", "b-pass's count">>,
    ], ["internal"]>,
  ];
}

// DECL-LABEL: struct TestPipelineOptions : public ::mlir::PassPipelineOptions<TestPipelineOptions> {
// DECL-NEXT:  static constexpr ::llvm::StringLiteral argument = "test-pipeline";
// DECL-NEXT:  static constexpr ::llvm::StringLiteral summary = R"PO(Runs a-pass and b-pass)PO";
// DECL-NEXT:  Option<bool> extra{*this, "extra", ::llvm::cl::desc(R"PO(The pipeline's own)PO"), ::llvm::cl::init(false)};
// DECL-NEXT:  Option<int> level{*this, "level", ::llvm::cl::desc(R"PO(How far)PO"), ::llvm::cl::init(1)};
// DECL-NEXT:  ListOption<std::string> names{*this, "names", ::llvm::cl::desc(R"PO(Names | or words)PO")};
// DECL-NEXT:  Option<bool> verbose{*this, "verbose", ::llvm::cl::desc(R"PO(Talk)PO"), ::llvm::cl::init(false)};
// DECL-NEXT:  Option<unsigned> bCount{*this, "b-count", ::llvm::cl::desc(R"PO(b-pass's count)PO"), ::llvm::cl::init(2)};
// DECL-NEXT: };
// DECL-NOT: internal
// DECL-LABEL: inline void copyPipelineOptions(const TestPipelineOptions &from, APassOptions &to) {
// DECL-NEXT:  to.level = from.level;
// DECL-NEXT:  to.names.assign(from.names.begin(), from.names.end());
// DECL-NEXT:  to.verbose = from.verbose;
// DECL-NEXT: }
// DECL-LABEL: inline void copyPipelineOptions(const TestPipelineOptions &from, BPassOptions &to) {
// DECL-NEXT:  to.depth = from.level;
// DECL-NEXT:  to.count = from.bCount;
// DECL-NEXT: }

// DOC: ### `-test-pipeline`
// DOC: _Runs a-pass and b-pass_
// DOC: {{^}}First line.
// DOC-NEXT: {{^}}  Indented line.
// DOC: | `extra` | `false` | the pipeline | The pipeline's own |
// DOC-NEXT: | `level` | `1` | `a-pass`, `b-pass` | How far |
// DOC-NEXT: | `names` |  | `a-pass` | Names \| or words |
// DOC-NEXT: | `verbose` | `false` | `a-pass` | Talk |
// DOC-NEXT: | `b-count` | `2` | `b-pass`'s `count` | b-pass's count |
