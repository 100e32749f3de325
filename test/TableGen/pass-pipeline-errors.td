// amp-tblgen refuses a pipeline whose options cannot be one struct, or that
// names a pass option the pass does not have.
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DTYPE %s 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DDEFAULT %s 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DOWN %s 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DTWICE %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DRENAME_UNKNOWN %s 2>&1 | FileCheck %s --check-prefix=RENAME_UNKNOWN
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DRENAME_TYPE %s 2>&1 | FileCheck %s --check-prefix=RENAME_TYPE
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DFIXED_UNKNOWN %s 2>&1 | FileCheck %s --check-prefix=FIXED_UNKNOWN
// RUN: not amp-tblgen -gen-pass-pipeline-decls -I %mlir_include -I %amp_src/include -DFIELD %s 2>&1 | FileCheck %s --check-prefix=FIELD

include "amp/Transforms/PassPipelineBase.td"

def APass : Pass<"a-pass"> {
  let options = [Option<"level", "level", "int", "1", "How far">];
}
def StringLevelPass : Pass<"string-level-pass"> {
  let options = [Option<"level", "level", "std::string", "\"1\"", "How far">];
}
def OtherDefaultPass : Pass<"other-default-pass"> {
  let options = [Option<"level", "level", "int", "2", "How far">];
}
def DepthPass : Pass<"depth-pass"> {
  let options = [Option<"level", "depth", "int", "1", "How deep">];
}

#ifdef TYPE
// TYPE: error: pipeline option 'level' has another type, default or flags in StringLevelPass
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass>, PipelinePass<StringLevelPass>];
}
#endif

#ifdef DEFAULT
// DEFAULT: error: pipeline option 'level' has another type, default or flags in OtherDefaultPass
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass>, PipelinePass<OtherDefaultPass>];
}
#endif

#ifdef OWN
// OWN: error: pipeline option 'level' is the pipeline's own and APass's
def P : PassPipeline<"p"> {
  let options = [Option<"level", "level", "int", "1", "Mine">];
  let passes = [PipelinePass<APass>];
}
#endif

#ifdef TWICE
// TWICE: error: pipeline option 'x' is declared twice
def P : PassPipeline<"p"> {
  let options = [Option<"x", "x", "int", "1", "">, Option<"y", "x", "int", "1", "">];
}
#endif

#ifdef RENAME_UNKNOWN
// RENAME_UNKNOWN: error: APass has no option 'depth' to rename
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass, [
    PipelineRename<"depth", Option<"d", "d", "int", "1", "">>]>];
}
#endif

#ifdef RENAME_TYPE
// RENAME_TYPE: error: 'a-level' is not of the type of APass's 'level'
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass, [
    PipelineRename<"level", Option<"aLevel", "a-level", "bool", "false", "">>]>];
}
#endif

#ifdef FIXED_UNKNOWN
// FIXED_UNKNOWN: error: APass has no option 'depth' to fix
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass, [], ["depth"]>];
}
#endif

#ifdef FIELD
// FIELD: error: two pipeline options are the field 'level'
def P : PassPipeline<"p"> {
  let passes = [PipelinePass<APass>, PipelinePass<DepthPass>];
}
#endif
