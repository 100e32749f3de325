//===- PassPipelineBase.td - Pipelines over ODS passes -----*- tablegen -*-===//
//
// A pass pipeline whose options are its passes' own. amp-tblgen
// -gen-pass-pipeline-decls writes the pipeline's options struct, one option
// per distinct argument of its passes with the pass's type, default,
// description and flags, and for each pass a copyPipelineOptions that fills
// the pass's options struct from it; -gen-pass-pipeline-doc writes its
// reference. An option is so declared once, on its pass, and reaches that
// pass from the pipeline without a hand-written copy.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PASSPIPELINEBASE_TD
#define AMP_TRANSFORMS_PASSPIPELINEBASE_TD

include "mlir/Pass/PassBase.td"

// The pipeline option `pipelineOption` carries the pass option whose
// argument is `passArg`, under the pipeline option's name and description
// (its type must be the pass option's).
class PipelineRename<string passArg, Option pipelineOption> {
  string passArgument = passArg;
  Option option = pipelineOption;
}

// A pass the pipeline configures. Each of its options is the pipeline
// option of the same argument, unless it is renamed or its argument is in
// `fixedArgs`: those the pipeline's builder sets, not its user.
class PipelinePass<PassBase passDef, list<PipelineRename> renames = [],
                   list<string> fixedArgs = []> {
  PassBase pass = passDef;
  list<PipelineRename> renamed = renames;
  list<string> fixed = fixedArgs;
}

// A pipeline registered as `--<arg>`. The options struct is the def's name
// followed by "Options".
class PassPipeline<string arg> {
  string argument = arg;
  string summary = "";
  string description = "";
  // The pipeline's own options, which no pass takes.
  list<Option> options = [];
  list<PipelinePass> passes = [];
}

#endif // AMP_TRANSFORMS_PASSPIPELINEBASE_TD
