//===- amp-data-fuzzer.cpp - Hostile data folders against the loader -----===//
//
// Each input lays out a Fashion-MNIST folder (DataFromBytes.h) and loads it
// with amp::train::loadFashionMnist, the reader amp-run and amp-train use.
// Properties:
//  - a valid folder loads, equal to what was written (pixels / 255, labels);
//  - any folder either fails with one message that names a file of it, or
//    loads a dataset that holds together: both splits of one positive image
//    size, as many labels as images, every label a class, every feature in
//    [0, 1];
//  - nothing crashes, hangs or reads out of bounds (the sanitizer build).
// A violated property prints the folder's layout and aborts, which is what
// libFuzzer records as a crash. Built with libFuzzer in the sanitizer build
// and with DummyDataFuzzer.cpp's replay main everywhere else.
//
//===----------------------------------------------------------------------===//

#include "DataFromBytes.h"
#include "amptrain/Dataset.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace amp;

namespace {

const std::string &folder();

/// Removes what an input left under `name`: a file, its .gz, a directory.
void removeEntry(const std::string &name) {
  std::string path = folder() + "/" + name;
  for (const std::string &old : {path, path + ".gz"})
    if (unlink(old.c_str()) != 0)
      rmdir(old.c_str());
}

void removeFolder() {
  for (const char *name : train::kFashionMnistFiles)
    removeEntry(name);
  rmdir(folder().c_str());
}

/// The folder every input is laid out in, made once per process and
/// removed at exit.
const std::string &folder() {
  static const std::string dir = [] {
    const char *tmp = getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/amp-data-fuzzer-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      perror("amp-data-fuzzer: mkdtemp");
      exit(2);
    }
    return pattern;
  }();
  static bool cleanup = atexit(removeFolder) == 0;
  (void)cleanup;
  return dir;
}

[[noreturn]] void violation(const std::string &what,
                            const fuzz::DecodedData &data) {
  fprintf(stderr, "amp-data-fuzzer: property violated: %s\n%s", what.c_str(),
          describe(data).c_str());
  abort();
}

/// Writes `file` where an earlier input's was.
void layOut(const fuzz::DataFile &file, const fuzz::DecodedData &data) {
  removeEntry(file.name);
  std::string path = folder() + "/" + file.name;
  if (file.form == fuzz::FileForm::Missing)
    return;
  if (file.form == fuzz::FileForm::Directory) {
    if (mkdir(path.c_str(), 0755) != 0)
      violation("cannot make " + path, data);
    return;
  }
  if (file.form == fuzz::FileForm::Gzip)
    path += ".gz";
  FILE *out = fopen(path.c_str(), "wb");
  bool written = out && fwrite(file.bytes.data(), 1, file.bytes.size(), out) ==
                            file.bytes.size();
  if (!out || fclose(out) != 0 || !written)
    violation("cannot write " + path, data);
}

void checkSplit(const train::Split &split, const char *name,
                const fuzz::DecodedData &data) {
  std::string where = std::string(name) + " split: ";
  if (split.count < 0 || (int64_t)split.y.size() != split.count)
    violation(where + "labels and images differ in number", data);
  if (split.features <= 0 ||
      (int64_t)split.x.size() != split.count * split.features)
    violation(where + "features do not match the images", data);
  for (int32_t label : split.y)
    if (label < 0 || label >= 10)
      violation(where + "label " + std::to_string(label) + " loaded", data);
  for (float value : split.x)
    if (!(value >= 0 && value <= 1))
      violation(where + "a feature outside [0, 1]", data);
}

void checkEqual(const train::Split &split, const fuzz::SplitContent &written,
                const char *name, const fuzz::DecodedData &data) {
  std::string where = std::string(name) + " split: ";
  if (split.count != written.count ||
      split.features != int64_t(written.rows) * written.cols)
    violation(where + "not the size written", data);
  for (size_t i = 0; i < written.pixels.size(); ++i)
    if (split.x[i] != written.pixels[i] / 255.0f)
      violation(where + "pixel " + std::to_string(i) + " differs", data);
  for (size_t i = 0; i < written.labels.size(); ++i)
    if (split.y[i] != written.labels[i])
      violation(where + "label " + std::to_string(i) + " differs", data);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  folder();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  fuzz::DecodedData data =
      fuzz::decodeData(llvm::ArrayRef(bytes, size), train::readsGzip());
  if (getenv("AMP_FUZZ_PRINT"))
    fputs(describe(data).c_str(), stderr);
  for (const fuzz::DataFile &file : data.files)
    layOut(file, data);
  train::Expected<train::Dataset> loaded = train::loadFashionMnist(folder());
  if (!loaded) {
    std::string message = loaded.status().message();
    if (data.valid)
      violation("a valid folder was refused: " + message, data);
    if (message.rfind(folder() + "/", 0) != 0 ||
        message.find('\n') != std::string::npos)
      violation("the refusal does not name one file in one line: " + message,
                data);
    return 0;
  }
  checkSplit(loaded->train, "train", data);
  checkSplit(loaded->test, "test", data);
  if (loaded->train.features != loaded->test.features)
    violation("the splits' images differ in size", data);
  if (data.valid) {
    checkEqual(loaded->train, data.train, "train", data);
    checkEqual(loaded->test, data.test, "test", data);
  }
  return 0;
}
