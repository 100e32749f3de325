//===- Trainer.cpp - The training loop of amp-run and amp-train -----------===//

#include "amptrain/Trainer.h"
#include "AtomicWrite.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace amp::train {

Status checkRunOptions(const RunOptions &o) {
  if (o.precision != "f32" && o.precision != "f16" && o.precision != "bf16" &&
      o.precision != "fp8")
    return failure("--precision must be f32, f16, bf16 or fp8, got '" +
                   o.precision + "'");
  if (o.steps < 0 || o.epochs < 1 || o.batch < 0 || o.logEvery < 1)
    return failure("--steps, --batch must be >= 0 and --epochs, --log-every "
                   ">= 1");
  if (!std::isfinite(o.lr) || o.lr < 0)
    return failure("--lr must be a finite value >= 0, got " +
                   std::to_string(o.lr));
  if (!std::isfinite(o.initScale) || o.initScale <= 0)
    return failure("--init-scale must be a finite value > 0, got " +
                   std::to_string(o.initScale));
  if (o.comm != "auto" && o.comm != "self" && o.comm != "mpi" &&
      o.comm != "nccl")
    return failure("--comm must be auto, self, mpi or nccl, got '" + o.comm +
                   "'");
  if (!std::isfinite(o.commTimeout) || o.commTimeout <= 0)
    return failure("--comm-timeout must be a finite number of seconds > 0");
  if (o.saveEvery < 0)
    return failure("--save-every must be >= 0");
  if (o.minScaleSkips < 1)
    return failure("--min-scale-skips must be >= 1");
  if (o.saveEvery > 0 && o.saveDir.empty())
    return failure("--save-every needs --save=DIR");
  if (o.resumeOtherPrecision && o.resumeDir.empty())
    return failure("--resume-other-precision needs --resume=DIR");
  if (o.gradComm != "f32" && o.gradComm != "f16" && o.gradComm != "bf16")
    return failure("--grad-comm must be f32, f16 or bf16, got '" + o.gradComm +
                   "'");
  if (o.bucketBytes < 1)
    return failure("--bucket-bytes must be >= 1");
  return checkWritable("--report", o.reportPath);
}

//===----------------------------------------------------------------------===//
// Job
//===----------------------------------------------------------------------===//

int Job::fatal(const std::string &message) const {
  // One write per line: the ranks share the launcher's stderr, and a line
  // written in pieces interleaves with another rank's.
  std::string line = std::string(toolName) + ": error: ";
  if (worldSize > 1)
    line += "rank " + std::to_string(worldRank) + ": ";
  line += message + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  if (worldSize > 1)
    amprt_comm_abort(1);
  return 1;
}

/// The device --device names, or the GPU when one is usable; warns when a
/// driver is present but the CPU trains.
static std::string chooseDevice(const Job &job, const RunOptions &options) {
  if (!options.device.empty())
    return options.device;
  if (amprt_cuda_device_count() > 0)
    return "cuda";
  // A driver without a usable device (a backend that did not load, a
  // driver error) is not "no GPU": say why the CPU trains.
  std::string why = amprt_cuda_unavailable_reason();
  if (job.leader() && why.rfind("no CUDA driver", 0) != 0)
    std::fprintf(stderr,
                 "%s: warning: training on the CPU: a CUDA driver is present "
                 "but no device is usable: %s\n",
                 job.tool(), why.c_str());
  return "cpu";
}

Expected<Job> Job::start(const char *tool, const RunOptions &options) {
  Job job;
  job.toolName = tool;
  std::string comm =
      options.comm == "auto" ? detectLauncher() : std::string(options.comm);
  if (comm == "nccl" && (options.device.empty() ? amprt_cuda_device_count() == 0
                                                : options.device != "cuda"))
    return failure("--comm=nccl all-reduces CUDA tensors: it needs "
                   "--device=cuda (on the CPU, use --comm=mpi)");
  Expected<Fault> fault = parseFault(options.injectFault);
  if (!fault)
    return fault.status();
  job.injected = *fault;
  // Start-up waits for the slowest rank's compilation; --comm-timeout
  // applies from the first step on.
  constexpr double kStartupTimeout = 600;
  if (amprt_comm_init(comm.c_str(), std::max(options.commTimeout,
                                             kStartupTimeout)) != AMPRT_OK)
    return failure("--comm=" + comm + ": " + amprt_last_error());
  job.worldRank = amprt_comm_rank();
  job.worldSize = amprt_comm_size();
  job.dataParallel = job.worldSize > 1 || options.dataParallel ||
                     options.gradCommGiven || options.bucketBytesGiven;
  if (job.injected.kind != Fault::None && job.injected.rank >= job.worldSize)
    return failure("--inject-fault names rank " +
                   std::to_string(job.injected.rank) + " of a job of " +
                   std::to_string(job.worldSize));
  job.device = chooseDevice(job, options);
  if (job.device != "cpu" && job.device != "cuda")
    return failure("--device must be cpu or cuda, got '" + job.device + "'");
  // Ranks on one machine take one GPU each.
  int ordinal = 0;
  if (job.device == "cuda" && job.worldSize > 1)
    ordinal = localRank() % std::max(1, amprt_cuda_device_count());
  Expected<ContextPtr> created = createContext(
      job.device == "cuda" ? AMPRT_DEVICE_CUDA : AMPRT_DEVICE_CPU, ordinal);
  if (!created)
    return failure("--device=" + job.device + ": " + created.message());
  job.ctx = std::move(*created);
  return job;
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

/// The host's memory, as the runtime's CPU context reports it.
static uint64_t hostMemory() {
  size_t bytes = SIZE_MAX;
  if (Expected<ContextPtr> host = createContext(AMPRT_DEVICE_CPU))
    amprt_memory_capacity(host->get(), &bytes);
  return bytes;
}

static const char kInstalledFashionMnist[] =
    "/usr/share/datasets/fashion-mnist";

/// The folder --data=`name` reads Fashion-MNIST from; none for another
/// name (synthetic, or a mistyped one).
static std::optional<std::string> fashionMnistFolder(const std::string &name) {
  const std::string prefix = "fashion-mnist";
  if (name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  if (name.size() == prefix.size())
    return std::string(kInstalledFashionMnist);
  if (name[prefix.size()] != ':')
    return std::nullopt;
  return name.substr(prefix.size() + 1);
}

std::optional<std::string> textFile(const std::string &data) {
  const std::string prefix = "text";
  if (data == prefix)
    return std::string(kInstalledText);
  if (data.compare(0, prefix.size() + 1, prefix + ":") != 0)
    return std::nullopt;
  return data.substr(prefix.size() + 1);
}

std::vector<FlagPath> dataInputs(const std::string &data) {
  std::vector<FlagPath> files;
  if (std::optional<std::string> text = textFile(data))
    files.push_back({"the data file", *text});
  std::optional<std::string> dir = fashionMnistFolder(data);
  if (!dir)
    return files;
  for (const char *name : kFashionMnistFiles)
    for (const char *suffix : {"", ".gz"})
      files.push_back({"the data file", *dir + "/" + name + suffix});
  return files;
}

Expected<Dataset> loadData(const RunOptions &options, int64_t features,
                           int64_t classes) {
  const std::string &name = options.data;
  if (name == "synthetic") {
    uint64_t examples = 4096 + 1024, bytes = 0;
    if (__builtin_mul_overflow(examples + (uint64_t)classes,
                               (uint64_t)features * 4, &bytes) ||
        bytes > hostMemory())
      return failure("synthetic data of " + std::to_string(features) +
                     " features per example would need more memory than "
                     "this machine has");
    return makeSynthetic(features, classes, 4096, 1024, options.seed);
  }
  std::optional<std::string> dir = fashionMnistFolder(name);
  if (!dir)
    return failure("--data must be synthetic, fashion-mnist[:DIR] or "
                   "text[:FILE], got '" +
                   name + "'");
  struct stat info;
  if (*dir == kInstalledFashionMnist && stat(dir->c_str(), &info) != 0)
    return failure(std::string("no Fashion-MNIST in ") +
                   kInstalledFashionMnist +
                   ": install dataset-fashion-mnist, or give "
                   "--data=fashion-mnist:DIR");
  Expected<Dataset> loaded = loadFashionMnist(*dir);
  if (!loaded)
    return loaded;
  if (loaded->train.features != features)
    return failure("the model's input holds " + std::to_string(features) +
                   " features per example; Fashion-MNIST has " +
                   std::to_string(loaded->train.features));
  return loaded;
}

ExampleBatches::ExampleBatches(const Split &train, const TensorSpec &input,
                               const TensorSpec &label, const Job &job,
                               std::mt19937 &rng)
    : train(train), inputType(input), labelType(label), job(job), rng(rng),
      batch(input.shape[0]), ranks(job.size()),
      features(input.numel() / input.shape[0]),
      epochSteps(train.count / (batch * ranks)), order(train.count),
      x(batch * features), y(batch) {
  std::iota(order.begin(), order.end(), 0);
}

Status ExampleBatches::restore(const std::vector<int64_t> &state) {
  if ((int64_t)state.size() != train.count)
    return failure("the checkpoint's example order has " +
                   std::to_string(state.size()) + " examples; this run's "
                   "training split has " + std::to_string(train.count));
  std::vector<bool> seen(train.count);
  for (int64_t e : state) {
    if (e < 0 || e >= train.count || seen[e])
      return failure("the checkpoint's example order is not an order of "
                     "the training split");
    seen[e] = true;
  }
  order = state;
  return Status::success();
}

Expected<std::pair<TensorPtr, TensorPtr>> ExampleBatches::next(int64_t s) {
  int64_t slot = s % epochSteps;
  if (slot == 0)
    std::shuffle(order.begin(), order.end(), rng);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t e = order[slot * globalBatch() + job.rank() * batch + b];
    std::copy_n(&train.x[e * features], features, &x[b * features]);
    y[b] = train.y[e];
  }
  if (job.fault().kind == Fault::Inf && job.fault().at(job.rank(), s))
    x[0] = INFINITY;
  return batchFromFloats(job.context(), inputType, x.data(), labelType,
                         y.data());
}

/// The text --data names, checked against a model of `context` bytes.
static Expected<TextCorpus> loadTextData(const RunOptions &options,
                                         int64_t context) {
  std::string path = *textFile(options.data);
  struct stat info;
  if (path == kInstalledText && stat(path.c_str(), &info) != 0)
    return failure(std::string("no text in ") + kInstalledText +
                   ": install jargon-text, or give --data=text:FILE");
  Expected<TextCorpus> text = loadText(path);
  if (!text)
    return text;
  for (auto [part, bytes] : {std::pair<const char *, size_t>{
                                 "training", text->train.size()},
                             {"validation", text->validation.size()}})
    if (int64_t(bytes) < context + 1)
      return failure(path + ": its " + part + " part (" +
                     std::to_string(bytes) + " bytes) is shorter than one " +
                     "window of the model's context + 1 (" +
                     std::to_string(context + 1) + " bytes)");
  return text;
}

Expected<RunData> prepareData(const Job &job, const TrainingStep &step,
                              const RunOptions &options, int64_t classes,
                              std::mt19937 &rng) {
  const TensorSpec &input = step.inputType(), &label = step.labelType();
  RunData data;
  if (textFile(options.data)) {
    if (job.fault().kind == Fault::Inf)
      return failure("--inject-fault=inf puts an infinity in a float "
                     "input; --data=text feeds bytes");
    Expected<TextCorpus> text = loadTextData(options, input.shape[1]);
    if (!text)
      return text.status();
    data.text = std::make_unique<TextCorpus>(std::move(*text));
    data.batches =
        std::make_unique<TextBatches>(*data.text, input, label, job, rng);
    return data;
  }
  Expected<Dataset> examples =
      loadData(options, input.numel() / input.shape[0], classes);
  if (!examples)
    return examples.status();
  data.examples = std::make_unique<Dataset>(std::move(*examples));
  data.batches = std::make_unique<ExampleBatches>(data.examples->train, input,
                                                  label, job, rng);
  return data;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

static std::string parentOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status checkWritable(const std::string &flag, const std::string &path) {
  if (path.empty())
    return Status::success();
  auto refuse = [&](const char *why) {
    return failure("cannot write " + flag + " '" + path + "': " + why);
  };
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode))
      return refuse(std::strerror(EISDIR));
    if (!S_ISREG(info.st_mode)) // a device or a pipe: written in place
      return access(path.c_str(), W_OK) == 0 ? Status::success()
                                             : refuse(std::strerror(errno));
  }
  std::string dir = parentOf(path);
  if (stat(dir.c_str(), &info) != 0)
    return refuse(std::strerror(errno));
  if (!S_ISDIR(info.st_mode))
    return refuse(std::strerror(ENOTDIR));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return refuse(std::strerror(errno));
  // The temporary file beside it has a longer name.
  long nameMax = pathconf(dir.c_str(), _PC_NAME_MAX);
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (nameMax > 0 &&
      name.size() + std::strlen(amprt::kTemporarySuffix) > size_t(nameMax))
    return refuse(std::strerror(ENAMETOOLONG));
  return Status::success();
}

namespace {

/// What makes two paths the same file: a regular file's device and inode,
/// or, for one not there yet, its folder's and its name. Empty for a path
/// that names no file to protect (none, a device, a pipe).
std::string fileIdentity(const std::string &path) {
  struct stat info;
  if (path.empty())
    return "";
  if (stat(path.c_str(), &info) == 0)
    return S_ISREG(info.st_mode)
               ? std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino)
               : "";
  std::string dir = parentOf(path);
  if (stat(dir.c_str(), &info) != 0)
    return "";
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + "/" +
         name;
}

} // namespace

Status checkOutputsApart(const std::vector<FlagPath> &inputs,
                         const std::vector<FlagPath> &outputs) {
  std::vector<std::pair<std::string, const FlagPath *>> seen;
  for (const FlagPath &in : inputs)
    if (std::string id = fileIdentity(in.path); !id.empty())
      seen.emplace_back(id, &in);
  size_t inputCount = seen.size();
  for (const FlagPath &out : outputs) {
    std::string id = fileIdentity(out.path);
    if (id.empty())
      continue;
    for (size_t i = 0; i < seen.size(); ++i) {
      if (seen[i].first != id)
        continue;
      const FlagPath &other = *seen[i].second;
      bool input = i < inputCount;
      // "the input", "the --lists-file", "also --report".
      std::string article = !input                      ? "also "
                            : other.flag.rfind("--", 0) ? ""
                                                        : "the ";
      return failure("cannot write " + out.flag + " '" + out.path +
                     "': it is " + article + other.flag + " '" + other.path +
                     "'" + (input ? ", which writing it would destroy" : ""));
    }
    seen.emplace_back(id, &out);
  }
  return Status::success();
}

Status writeJson(const std::string &path, const std::string &flag,
                 const json::Value &value) {
  return writeFile(path, flag, json::print(value) + "\n");
}

Status writeFile(const std::string &path, const std::string &flag,
                 std::string_view text) {
  return writeFileFrom(path, flag, [&](std::FILE *out) {
    return std::fwrite(text.data(), 1, text.size(), out) == text.size();
  });
}

Status writeFileFrom(const std::string &path, const std::string &flag,
                     const amprt::FileContent &content) {
  if (int error = amprt::writeFileWhole(path, content))
    return failure("cannot write " + flag + " '" + path +
                   "': " + std::strerror(error));
  return Status::success();
}

} // namespace amp::train
