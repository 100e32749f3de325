//===- amp-train.cpp - Train a step compiled ahead of time ----------------===//
//
// Trains the object `amp-run --emit-obj=step.o` wrote, with its manifest
// step.o.json, on any machine that has the runtime: no LLVM, no MLIR. The
// flags, the training loop and the report are amp-run's (the training
// library), so the same step with the same flags gives the same losses.
//
//===----------------------------------------------------------------------===//

#include "TrainOptions.h"
#include "amptrain/Distributed.h"
#include "amptrain/Manifest.h"
#include "amptrain/Trainer.h"
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace amp::train;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "amp-train: error: %s\n", message.c_str());
  return 1;
}

/// Links `object` into a shared library in a fresh temporary folder with
/// $CXX (else c++) and returns its path.
Expected<std::string> linkShared(const std::string &object) {
  const char *tmp = std::getenv("TMPDIR");
  std::string dir =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/amp-train.XXXXXX";
  if (!mkdtemp(dir.data()))
    return failure("cannot make a temporary folder in '" + dir + "'");
  std::string library = dir + "/step.so";
  const char *cxx = std::getenv("CXX");
  std::string linker = cxx && *cxx ? cxx : "c++";
  std::vector<std::string> args = {linker, "-shared", "-o", library, object};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int status = 0;
  if (posix_spawnp(&pid, linker.c_str(), nullptr, nullptr, argv.data(),
                   environ) != 0 ||
      waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    rmdir(dir.c_str());
    return failure("linking '" + object + "' into a shared library with '" +
                   linker + "' failed (set CXX to a C++ compiler driver)");
  }
  return library;
}

/// The step's shared library, loaded; the temporary copy is removed (the
/// mapping stays).
Expected<void *> loadStep(const std::string &step) {
  bool isObject =
      step.size() > 2 && step.compare(step.size() - 2, 2, ".o") == 0;
  std::string library = step;
  if (isObject) {
    auto linked = linkShared(step);
    if (!linked)
      return linked.status();
    library = *linked;
  } else if (library.find('/') == std::string::npos) {
    library = "./" + library; // dlopen searches the path for bare names
  }
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string why = handle ? "" : dlerror();
  if (isObject) {
    std::remove(library.c_str());
    rmdir(library.substr(0, library.rfind('/')).c_str());
  }
  if (!handle)
    return failure("cannot load '" + step + "': " + why);
  return handle;
}

Expected<StepFn> entry(void *library, const std::string &name) {
  void *symbol = dlsym(library, name.c_str());
  if (!symbol)
    return failure("the step's object defines no @" + name +
                   " (its manifest names it)");
  return reinterpret_cast<StepFn>(symbol);
}

/// The object and its manifest, checked and loaded.
Expected<CompiledStep> loadCompiled(const CommandLine &line,
                                    const Manifest &manifest) {
  if (Status bad = checkObject(manifest, line.step))
    return bad;
  auto library = loadStep(line.step);
  if (!library)
    return library.status();
  CompiledStep compiled;
  auto train = entry(*library, manifest.train.name);
  if (!train)
    return train.status();
  compiled.train = *train;
  if (manifest.eval) {
    auto eval = entry(*library, manifest.eval->name);
    if (!eval)
      return eval.status();
    compiled.eval = EvalFunction{*manifest.eval, *eval};
  }
  compiled.fp8 = manifest.fp8;
  compiled.lossClasses = manifest.lossClasses;
  return compiled;
}

/// Under a launcher: every rank must train the same object with the same
/// flags.
Status agree(const Job &job, const Manifest &manifest, const RunOptions &run) {
  if (job.size() == 1)
    return Status::success();
  std::string text = manifest.objectFingerprint + manifest.optionsFingerprint +
                     run.data + ' ' + std::to_string(run.seed) + ' ' +
                     std::to_string(run.steps) + ' ' +
                     std::to_string(run.epochs) + ' ' + std::to_string(run.lr);
  if (amprt_comm_agree(fingerprint(text), "the compiled step and its flags") !=
      AMPRT_OK)
    return failure(amprt_last_error());
  return Status::success();
}

int trainMain(int argc, char **argv) {
  auto line = parseCommandLine(argc, argv);
  if (!line)
    return fail(line.message());
  if (line->help) {
    std::fputs(usage(), stdout);
    return 0;
  }
  auto manifest = Manifest::load(line->manifest);
  if (!manifest)
    return fail(manifest.message());
  if (Status bad = applyManifest(*line, *manifest))
    return fail(bad.message());
  if (Status bad = checkRunOptions(line->run))
    return fail(bad.message());
  std::vector<FlagPath> inputs = dataInputs(line->run.data);
  inputs.push_back({"the step", line->step});
  inputs.push_back({"--manifest", line->manifest});
  std::string checkpoint = line->run.saveDir.empty()
                               ? ""
                               : Checkpoint::pathIn(line->run.saveDir);
  if (Status bad = checkOutputsApart(
          inputs, {{"--report", line->run.reportPath},
                   {"--save's checkpoint", checkpoint}}))
    return fail(bad.message());
  auto compiled = loadCompiled(*line, *manifest);
  if (!compiled)
    return fail(compiled.message());
  auto job = Job::start("amp-train", line->run);
  if (!job)
    return fail(job.message());
  if (line->run.dataParallel != job->parallel() && job->size() > 1)
    return job->fatal("the step was compiled for one process: compile it "
                      "with amp-run --data-parallel to train it on " +
                      std::to_string(job->size()) + " ranks");
  if (Status bad = agree(*job, *manifest, line->run))
    return job->fatal(bad);
  size_t memory = 0;
  amprt_memory_capacity(job->context(), &memory);
  for (const FunctionSpec *f :
       {&manifest->train, manifest->eval ? &*manifest->eval : nullptr})
    if (f)
      if (Status bad = checkFits(*f, memory))
        return job->fatal(bad);
  auto step = TrainingStep::bind(manifest->train);
  if (!step)
    return job->fatal(step.status());
  return trainSteps(*job, *step, *compiled, line->run);
}

} // namespace

int main(int argc, char **argv) { return trainMain(argc, argv); }
