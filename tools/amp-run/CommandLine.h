//===- CommandLine.h - amp-run's flags, bound to a RunConfig ----*- C++ -*-===//
//
// Each flag writes its field of one amp::run::RunConfig (cl::location), and
// the config's initial values are the defaults, so a flag is written once:
// a field of RunConfig, a member here, and the code that reads the field.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_RUN_COMMANDLINE_H
#define AMP_TOOLS_AMP_RUN_COMMANDLINE_H

#include "amp/Run/RunConfig.h"
#include "llvm/Support/CommandLine.h"

namespace amp::run {

namespace cl = llvm::cl;

/// LLVM's double parser, which takes an empty value ("--lr=") as 0: a
/// number flag given with no number is a mistake, not a zero.
struct NumberParser : cl::parser<double> {
  using cl::parser<double>::parser;
  bool parse(cl::Option &option, llvm::StringRef name, llvm::StringRef text,
             double &value);
};

template <typename T> using Flag = cl::opt<T, /*ExternalStorage=*/true>;
using NumberFlag = cl::opt<double, /*ExternalStorage=*/true, NumberParser>;

class CommandLine {
public:
  /// The flags, registered with LLVM's parser, writing into `config`.
  explicit CommandLine(RunConfig &config) : config(config) {}

  /// Parses argv into the config; false after saying why it cannot be
  /// taken (one "amp-run: error:" line).
  bool parse(int argc, char **argv);

private:
  /// --help lists amp-run's own flags; LLVM's and MLIR's (code generation
  /// for other targets, debugging aids) are still accepted, and listed by
  /// --help-hidden.
  void hideForeignOptions();
  /// After parsing: the --validate count, and which flags were given where
  /// the config needs to know; why they cannot be taken (empty when they
  /// can).
  std::string finish();

  RunConfig &config;
  train::RunOptions &run = config.run;

  cl::OptionCategory training{"Training"};
  cl::OptionCategory validation{
      "Validation (--validate): every low-precision op against f32"};
  cl::OptionCategory parallel{
      "Data parallelism (amp-run under mpirun or srun)"};
  cl::OptionCategory checkpoints{
      "Checkpoints: save a run and go on from it bit for bit"};

  // Training.
  Flag<std::string> inputFile{cl::Positional, cl::Required,
                              cl::desc("<training step .mlir>"),
                              cl::location(run.inputFile)};
  Flag<std::string> entry{"entry", cl::desc("The training step function"),
                          cl::location(config.entry), cl::cat(training)};
  Flag<std::string> evalEntry{
      "eval-entry",
      cl::desc("Test-accuracy function (default: predict when present)"),
      cl::location(config.evalEntry), cl::cat(training)};
  Flag<std::string> device{"device",
                           cl::desc("cpu or cuda (default: cuda when a "
                                    "device is present, else cpu)"),
                           cl::location(run.device), cl::cat(training)};
  Flag<std::string> precision{
      "precision",
      cl::desc("f32, f16, bf16 or fp8 (bf16 with FP8 contraction operands)"),
      cl::location(run.precision), cl::cat(training)};
  Flag<int64_t> steps{"steps", cl::desc("Training steps (overrides epochs)"),
                      cl::location(run.steps), cl::cat(training)};
  Flag<int64_t> epochs{"epochs", cl::desc("Epochs"), cl::location(run.epochs),
                       cl::cat(training)};
  Flag<int64_t> batch{"batch",
                      cl::desc("Batch size (must equal the input argument's "
                               "leading dimension)"),
                      cl::location(run.batch), cl::cat(training)};
  Flag<std::string> data{"data", cl::desc("synthetic or fashion-mnist[:DIR]"),
                         cl::location(run.data), cl::cat(training)};
  NumberFlag lr{"lr", cl::desc("Learning rate"), cl::location(run.lr),
                cl::cat(training)};
  Flag<unsigned> seed{"seed", cl::desc("Random seed"), cl::location(run.seed),
                      cl::cat(training)};
  Flag<std::string> report{"report", cl::desc("Write a JSON report here"),
                           cl::location(run.reportPath), cl::cat(training)};
  NumberFlag initScale{"init-scale", cl::desc("Initial loss scale (f16)"),
                       cl::location(run.initScale), cl::cat(training)};
  Flag<int64_t> minScaleSkips{
      "min-scale-skips",
      cl::desc("Stop after N steps in a row skipped at the minimum loss "
               "scale (loss scaling cannot make them finite)"),
      cl::location(run.minScaleSkips), cl::cat(training)};
  Flag<bool> trapNonFinite{
      "trap-nonfinite",
      cl::desc("Stop at the first step that is not finite, even one loss "
               "scaling would skip, and name the op that made it (a mixed "
               "run names the op at every non-finite stop)"),
      cl::location(run.trapNonFinite), cl::cat(training)};
  Flag<LossScalingMode> lossScaling{
      "loss-scaling",
      cl::desc("How an f16 or fp8 step scales its loss (bf16 is not scaled)"),
      optionValues<LossScalingMode>(), cl::location(config.lossScaling),
      cl::cat(training)};
  Flag<std::string> listsFile{
      "lists-file",
      cl::desc("A precision lists-file for --amp-auto-mixed-precision "
               "(SPEC's JSON; --validate-fix writes one)"),
      cl::location(config.listsFile), cl::cat(training)};
  Flag<int64_t> logEvery{"log-every", cl::desc("Progress every N steps"),
                         cl::location(run.logEvery), cl::cat(training)};
  Flag<std::string> lowerOptions{
      "lower-options",
      cl::desc("Options for amp-lower-to-runtime, as its pipeline form "
               "takes them (\"fuse-bias-epilogues=0 reshape-views=0\"): A/B "
               "runs of a lowering choice"),
      cl::location(config.lowerOptions), cl::cat(training)};
  Flag<std::string> emitObj{
      "emit-obj",
      cl::desc("Also write the compiled step as an object file here"),
      cl::location(config.emitObj), cl::cat(training)};
  Flag<bool> compileOnly{
      "compile-only",
      cl::desc("Stop once the step is compiled (with --emit-obj, once its "
               "object and manifest are written): no data is read and "
               "nothing trains"),
      cl::location(config.compileOnly), cl::cat(training)};
  Flag<int64_t> accumulate{
      "accumulate", cl::value_desc("K"),
      cl::desc("Gradient accumulation: K micro-batches of the step's batch "
               "per optimizer step (each batch K times the model's), their "
               "gradients averaged in f32, one unscale, inf/NaN check and "
               "update (--amp-accumulate-gradients)"),
      cl::location(config.accumulate), cl::cat(training)};
  Flag<bool> padTensorCores{
      "pad-tensor-cores",
      cl::desc("Pad contractions' misaligned dimensions that a parameter "
               "owns (classes, hidden widths, channels) to Tensor Core "
               "multiples with zeros inside the step "
               "(--amp-pad-for-tensor-cores); the signature and every value "
               "are unchanged"),
      cl::location(config.padTensorCores), cl::cat(training)};
  Flag<std::string> emitObjCpu{
      "emit-obj-cpu",
      cl::desc("The CPU the --emit-obj object is compiled for: x86-64 (any "
               "x86-64 machine; the default), x86-64-v3, host, or any CPU "
               "LLVM names"),
      cl::location(config.emitObjCpu), cl::cat(training)};

  // Validation. --validate's count is read by finish().
  cl::opt<std::string> validate{
      "validate", cl::ValueOptional, cl::value_desc("steps"),
      cl::desc("Instead of training, run N steps (default 5) of the mixed "
               "step beside the f32 step on the same batches and "
               "parameters, measure every op that runs in low precision "
               "against f32 (fed its f32 inputs), and print the ops that "
               "break"),
      cl::cat(validation)};
  Flag<std::string> validateFix{
      "validate-fix", cl::value_desc("lists.json"),
      cl::desc("Write a lists-file that denies the failing ops' names"),
      cl::location(config.validateFix), cl::cat(validation)};
  Flag<std::string> validateAnnotate{
      "validate-annotate", cl::value_desc("out.mlir"),
      cl::desc("Write the input program with amp.precision = \"f32\" on "
               "exactly the failing ops"),
      cl::location(config.validateAnnotate), cl::cat(validation)};
  NumberFlag validateTolF16{
      "validate-tol-f16",
      cl::desc("Largest relative RMS error of an f16 op (20 f16 roundings)"),
      cl::location(config.tolerances.relativeF16), cl::cat(validation)};
  NumberFlag validateTolBF16{
      "validate-tol-bf16",
      cl::desc("Largest relative RMS error of a bf16 op (20 bf16 roundings)"),
      cl::location(config.tolerances.relativeBF16), cl::cat(validation)};
  NumberFlag validateMaxFlushed{
      "validate-max-flushed",
      cl::desc("Largest fraction of an op's values that may flush to zero"),
      cl::location(config.tolerances.flushed), cl::cat(validation)};

  // Data parallelism.
  Flag<std::string> comm{
      "comm",
      cl::desc("Process group: auto (mpi when mpirun or srun started this "
               "process, else self), self, mpi, or nccl (MPI's job, CUDA "
               "tensors all-reduced by NCCL on the device)"),
      cl::location(run.comm), cl::cat(parallel)};
  NumberFlag commTimeout{
      "comm-timeout",
      cl::desc("Seconds a collective of a training step may wait for the "
               "other ranks before the job ends with an error (start-up "
               "waits up to 600 s for every rank to compile)"),
      cl::location(run.commTimeout), cl::cat(parallel)};
  Flag<bool> dataParallel{
      "data-parallel",
      cl::desc("Compile the step data-parallel on one rank too (implied by "
               "more than one rank and by --grad-comm / --bucket-bytes)"),
      cl::location(run.dataParallel), cl::cat(parallel)};
  Flag<std::string> gradComm{
      "grad-comm", cl::desc("Wire type of gradients: f32, f16 or bf16"),
      cl::location(run.gradComm), cl::cat(parallel)};
  Flag<int64_t> bucketBytes{"bucket-bytes",
                            cl::desc("Most bytes of gradients per collective"),
                            cl::location(run.bucketBytes), cl::cat(parallel)};
  Flag<bool> reduceAmax{
      "reduce-amax",
      cl::desc("With --precision=fp8, record the largest amax over the "
               "ranks in each amax history, so every rank's delayed scales "
               "agree (--reduce-amax=false keeps each rank's own)"),
      cl::location(run.reduceAmax), cl::cat(parallel)};
  Flag<std::string> injectFault{
      "inject-fault", cl::value_desc("KIND@RANK:STEP"),
      cl::desc("Testing aid: rank RANK puts an inf in its batch (inf), "
               "exits (exit) or hangs (hang) at step STEP, or exits halfway "
               "through writing the checkpoint after STEP steps (save-exit)"),
      cl::location(run.injectFault), cl::cat(parallel)};

  // Checkpoints.
  Flag<std::string> save{
      "save", cl::value_desc("DIR"),
      cl::desc("Write DIR/checkpoint.amp at the end (and every --save-every "
               "steps): params, optimizer, loss-scale and FP8 state, the "
               "step, the data order"),
      cl::location(run.saveDir), cl::cat(checkpoints)};
  Flag<int64_t> saveEvery{"save-every", cl::desc("Save every N steps too"),
                          cl::location(run.saveEvery), cl::cat(checkpoints)};
  Flag<std::string> resume{
      "resume", cl::value_desc("DIR"),
      cl::desc("Go on from DIR/checkpoint.amp (--steps and --epochs count "
               "from the original run's start)"),
      cl::location(run.resumeDir), cl::cat(checkpoints)};
  Flag<bool> resumeOtherPrecision{
      "resume-other-precision",
      cl::desc("Resume a checkpoint saved in another precision (params and "
               "optimizer state carry over; loss-scale state starts afresh)"),
      cl::location(run.resumeOtherPrecision), cl::cat(checkpoints)};
};

} // namespace amp::run

#endif // AMP_TOOLS_AMP_RUN_COMMANDLINE_H
