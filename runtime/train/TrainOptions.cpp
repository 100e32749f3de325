//===- TrainOptions.cpp - amp-train's command line ------------------------===//

#include "TrainOptions.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace amp::train {

namespace {

/// One flag: its name, whether it takes a value, and where the value goes.
struct Flag {
  const char *name;
  bool takesValue;
  std::function<Status(CommandLine &, const std::string &)> set;
};

Status badValue(const std::string &flag, const std::string &text,
                const char *want) {
  return failure("--" + flag + "=" + text + ": expected " + want);
}

template <typename T> Flag integerFlag(const char *name, T RunOptions::*field) {
  return {name, true, [=](CommandLine &c, const std::string &text) -> Status {
            char *end = nullptr;
            errno = 0;
            long long value = std::strtoll(text.c_str(), &end, 10);
            if (text.empty() || *end || errno == ERANGE ||
                value < (long long)std::numeric_limits<T>::min() ||
                value > (long long)std::numeric_limits<T>::max())
              return badValue(name, text, "an integer");
            c.run.*field = (T)value;
            return Status::success();
          }};
}

Flag numberFlag(const char *name, double RunOptions::*field) {
  return {name, true, [=](CommandLine &c, const std::string &text) -> Status {
            char *end = nullptr;
            double value = std::strtod(text.c_str(), &end);
            if (text.empty() || *end)
              return badValue(name, text, "a number");
            c.run.*field = value;
            return Status::success();
          }};
}

/// A flag whose value names something: given empty ("--report="), it
/// would quietly mean "not given".
Flag stringFlag(const char *name, std::string RunOptions::*field) {
  return {name, true, [=](CommandLine &c, const std::string &text) -> Status {
            if (text.empty())
              return badValue(name, text, "a value");
            c.run.*field = text;
            return Status::success();
          }};
}

Flag boolFlag(const char *name, bool RunOptions::*field) {
  return {name, false, [=](CommandLine &c, const std::string &text) -> Status {
            if (text != "" && text != "true" && text != "1" &&
                text != "false" && text != "0")
              return badValue(name, text, "true or false");
            c.run.*field = text == "" || text == "true" || text == "1";
            return Status::success();
          }};
}

const std::vector<Flag> &flags() {
  static const std::vector<Flag> table = {
      stringFlag("precision", &RunOptions::precision),
      stringFlag("device", &RunOptions::device),
      integerFlag("steps", &RunOptions::steps),
      integerFlag("epochs", &RunOptions::epochs),
      integerFlag("batch", &RunOptions::batch),
      integerFlag("log-every", &RunOptions::logEvery),
      integerFlag("seed", &RunOptions::seed),
      stringFlag("data", &RunOptions::data),
      numberFlag("lr", &RunOptions::lr),
      stringFlag("report", &RunOptions::reportPath),
      numberFlag("init-scale", &RunOptions::initScale),
      stringFlag("comm", &RunOptions::comm),
      numberFlag("comm-timeout", &RunOptions::commTimeout),
      boolFlag("data-parallel", &RunOptions::dataParallel),
      boolFlag("reduce-amax", &RunOptions::reduceAmax),
      stringFlag("grad-comm", &RunOptions::gradComm),
      integerFlag("bucket-bytes", &RunOptions::bucketBytes),
      stringFlag("inject-fault", &RunOptions::injectFault),
      stringFlag("save", &RunOptions::saveDir),
      integerFlag("save-every", &RunOptions::saveEvery),
      integerFlag("min-scale-skips", &RunOptions::minScaleSkips),
      boolFlag("trap-nonfinite", &RunOptions::trapNonFinite),
      stringFlag("resume", &RunOptions::resumeDir),
      boolFlag("resume-other-precision", &RunOptions::resumeOtherPrecision),
      {"manifest", true,
       [](CommandLine &c, const std::string &text) -> Status {
         if (text.empty())
           return badValue("manifest", text, "a path");
         c.manifest = text;
         return Status::success();
       }},
      {"help", false, [](CommandLine &c, const std::string &) {
         c.help = true;
         return Status::success();
       }}};
  return table;
}

/// amp-run's flags that compile: a compiled step has no use for them.
bool isCompilerFlag(const std::string &name) {
  for (const char *flag :
       {"entry", "eval-entry", "loss-scaling", "lists-file", "lower-options",
        "emit-obj", "emit-obj-cpu", "validate", "validate-fix",
        "validate-annotate", "validate-tol-f16", "validate-tol-bf16",
        "validate-max-flushed"})
    if (name == flag)
      return true;
  return false;
}

} // namespace

Expected<CommandLine> parseCommandLine(int argc, char **argv) {
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (!line.step.empty())
        return failure("one step at a time: '" + line.step + "' and '" + arg +
                       "'");
      line.step = arg;
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    const Flag *flag = nullptr;
    for (const Flag &f : flags())
      if (name == f.name)
        flag = &f;
    if (!flag)
      return failure(isCompilerFlag(name)
                         ? "--" + name +
                               " is amp-run's: amp-train trains a "
                               "step amp-run already compiled"
                         : "unknown flag '" + arg + "' (see --help)");
    std::string value = eq == std::string::npos ? "" : body.substr(eq + 1);
    if (flag->takesValue && eq == std::string::npos) {
      if (i + 1 == argc)
        return failure("--" + name + " needs a value");
      value = argv[++i];
    }
    if (Status bad = flag->set(line, value))
      return bad;
    line.given[name] = value;
  }
  line.run.lrGiven = line.given.count("lr");
  line.run.gradCommGiven = line.given.count("grad-comm");
  line.run.bucketBytesGiven = line.given.count("bucket-bytes");
  if (line.help)
    return line;
  if (line.step.empty())
    return failure("no step given: amp-train STEP.o [--manifest=STEP.o.json] "
                   "[amp-run's training flags]");
  if (line.manifest.empty())
    line.manifest = line.step + ".json";
  return line;
}

Status applyManifest(CommandLine &line, const Manifest &m) {
  RunOptions &run = line.run;
  auto compiledIn = [&](const char *flag, const std::string &manifestSays) {
    return failure("--" + std::string(flag) + "=" + line.given[flag] +
                   ", but the step was compiled with " + manifestSays +
                   ": compile it again with amp-run to change it");
  };
  if (line.given.count("precision") && run.precision != m.precision)
    return compiledIn("precision", m.precision);
  run.precision = m.precision;
  if (line.given.count("init-scale") && m.lossScaling != "none" &&
      run.initScale != m.initScale)
    return compiledIn("init-scale", std::to_string(m.initScale));
  run.initScale = m.initScale;
  if (line.given.count("grad-comm") && run.gradComm != m.gradComm)
    return compiledIn("grad-comm", m.gradComm);
  if (line.given.count("bucket-bytes") && run.bucketBytes != m.bucketBytes)
    return compiledIn("bucket-bytes", std::to_string(m.bucketBytes));
  if ((run.dataParallel || run.gradCommGiven || run.bucketBytesGiven) &&
      !m.dataParallel)
    return failure("the step was compiled for one process: compile it with "
                   "amp-run --data-parallel to train it data-parallel");
  run.dataParallel = m.dataParallel;
  run.gradComm = m.gradComm;
  run.bucketBytes = m.bucketBytes;
  run.reduceAmax = m.reduceAmax;
  run.inputFile = m.source;
  return Status::success();
}

const char *usage() {
  return "amp-train: train a step compiled ahead of time\n"
         "\n"
         "usage: amp-train STEP.o|STEP.so [--manifest=STEP.o.json] [flags]\n"
         "\n"
         "STEP.o and its manifest come from amp-run --emit-obj=STEP.o. An\n"
         "object is linked into a shared library on load (with $CXX, else\n"
         "c++). The flags are amp-run's training flags: --steps --epochs\n"
         "--batch --data --lr --seed --report --log-every --device --comm\n"
         "--comm-timeout --inject-fault --save --save-every --resume\n"
         "--resume-other-precision --min-scale-skips --trap-nonfinite (it\n"
         "stops at the first non-finite step; amp-run also names the op);\n"
         "--precision, --init-scale, --grad-comm, --bucket-bytes and\n"
         "--data-parallel must match what the step was compiled with.\n";
}

} // namespace amp::train
