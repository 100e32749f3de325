//===- Dataset.cpp - Fashion-MNIST IDX files and synthetic data -----------===//

#include "amptrain/Dataset.h"
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <sys/stat.h>
#ifdef AMPTRAIN_HAVE_ZLIB
#include <zlib.h>
#endif

namespace amp::train {

namespace {

Status fail(const std::string &path, const std::string &why) {
  return failure(path + ": " + why);
}

/// Reads a whole plain file.
Expected<std::vector<uint8_t>> readPlain(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> data;
  uint8_t buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    data.insert(data.end(), buffer, buffer + n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return fail(path, "read error");
  return data;
}

#ifdef AMPTRAIN_HAVE_ZLIB
/// Reads a whole gzip file.
Expected<std::vector<uint8_t>> readGzip(const std::string &path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> data;
  uint8_t buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0)
    data.insert(data.end(), buffer, buffer + n);
  int error = 0;
  // zlib owns the message: copy it before gzclose frees it.
  std::string message = gzerror(file, &error);
  if (message.rfind(path + ": ", 0) == 0) // zlib names the file too
    message.erase(0, path.size() + 2);
  int closed = gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END))
    return fail(path, "corrupt gzip data: " + message);
  if (closed == Z_BUF_ERROR || closed == Z_DATA_ERROR)
    return fail(path, "corrupt gzip data: truncated, or a bad checksum");
  return data;
}
#endif

bool exists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

/// A regular file: opening a FIFO to read would wait for a writer forever,
/// and a directory or device is no data file.
Status checkRegular(const std::string &path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return fail(path, "not a regular file (a directory, FIFO or device)");
  return Status::success();
}

/// Reads IDX file `name` of `dir`: the plain file when it is there, else
/// the gzipped one; `path` is set to the file read, for errors.
Expected<std::vector<uint8_t>>
readIdx(const std::string &dir, const std::string &name, std::string &path) {
  path = dir + "/" + name;
  bool gzipped = !exists(path);
  if (gzipped)
    path += ".gz";
  if (Status bad = checkRegular(path))
    return bad;
  if (!gzipped)
    return readPlain(path);
#ifdef AMPTRAIN_HAVE_ZLIB
  return readGzip(path);
#else
  return fail(path, "this build has no zlib: gunzip it first");
#endif
}

uint32_t bigEndian(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
         (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

Status readImages(const std::string &dir, const std::string &name,
                  Split &split) {
  std::string path;
  auto data = readIdx(dir, name, path);
  if (!data)
    return data.status();
  if (data->size() < 16)
    return fail(path, "truncated IDX header");
  if (bigEndian(data->data()) != 0x00000803)
    return fail(path, "wrong magic number (not an IDX image file)");
  uint32_t count = bigEndian(data->data() + 4);
  uint32_t rows = bigEndian(data->data() + 8),
           cols = bigEndian(data->data() + 12);
  // 32-bit fields: the pixel count of one image fits 64 bits, all of
  // them may not.
  uint64_t pixels = uint64_t(rows) * cols, need = 0;
  if (rows == 0 || cols == 0 ||
      __builtin_mul_overflow(uint64_t(count), pixels, &need) ||
      need > data->size() - 16)
    return fail(path, "bad IDX header: " + std::to_string(count) +
                          " images of " + std::to_string(rows) + "x" +
                          std::to_string(cols) + " do not fit in its " +
                          std::to_string(data->size()) + " bytes");
  split.count = count;
  split.features = int64_t(rows) * cols;
  split.x.resize(uint64_t(count) * rows * cols);
  for (uint64_t i = 0; i < split.x.size(); ++i)
    split.x[i] = (*data)[16 + i] / 255.0f;
  return Status::success();
}

Status readLabels(const std::string &dir, const std::string &name,
                  Split &split) {
  std::string path;
  auto data = readIdx(dir, name, path);
  if (!data)
    return data.status();
  if (data->size() < 8)
    return fail(path, "truncated IDX header");
  if (bigEndian(data->data()) != 0x00000801)
    return fail(path, "wrong magic number (not an IDX label file)");
  uint32_t count = bigEndian(data->data() + 4);
  if (data->size() < 8 + uint64_t(count))
    return fail(path, "truncated: the header promises " +
                          std::to_string(count) + " labels");
  if ((int64_t)count != split.count)
    return fail(path, std::to_string(count) + " labels for " +
                          std::to_string(split.count) + " images");
  split.y.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    split.y[i] = (*data)[8 + i];
    if (split.y[i] > 9)
      return fail(path, "label " + std::to_string(split.y[i]) +
                            " outside the 10 classes");
  }
  return Status::success();
}

} // namespace

Expected<Dataset> loadFashionMnist(const std::string &dir) {
  Dataset d;
  d.classes = 10;
  if (auto e = readImages(dir, kFashionMnistFiles[0], d.train))
    return e;
  if (auto e = readLabels(dir, kFashionMnistFiles[1], d.train))
    return e;
  if (auto e = readImages(dir, kFashionMnistFiles[2], d.test))
    return e;
  if (d.test.features != d.train.features)
    return fail(dir + "/" + kFashionMnistFiles[2],
                "test images of " + std::to_string(d.test.features) +
                    " pixels, training images of " +
                    std::to_string(d.train.features));
  if (auto e = readLabels(dir, kFashionMnistFiles[3], d.test))
    return e;
  return d;
}

Dataset makeSynthetic(int64_t features, int64_t classes, int64_t trainCount,
                      int64_t testCount, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // A fixed random linear teacher decides the labels.
  std::vector<float> teacher(features * classes);
  for (float &w : teacher)
    w = normal(rng);
  auto fill = [&](Split &s, int64_t count) {
    s.count = count;
    s.features = features;
    s.x.resize(count * features);
    s.y.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t f = 0; f < features; ++f)
        s.x[i * features + f] = normal(rng);
      int32_t best = 0;
      float bestScore = -1e30f;
      for (int64_t c = 0; c < classes; ++c) {
        float score = 0;
        for (int64_t f = 0; f < features; ++f)
          score += s.x[i * features + f] * teacher[f * classes + c];
        if (score > bestScore) {
          bestScore = score;
          best = (int32_t)c;
        }
      }
      s.y[i] = best;
    }
  };
  Dataset d;
  d.classes = classes;
  fill(d.train, trainCount);
  fill(d.test, testCount);
  return d;
}

bool readsGzip() {
#ifdef AMPTRAIN_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

} // namespace amp::train
