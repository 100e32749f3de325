//===- Dataset.cpp - Fashion-MNIST IDX files and synthetic data -----------===//

#include "Dataset.h"
#include <random>
#include <zlib.h>

using namespace amp::run;

namespace {

llvm::Error fail(const std::string &path, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + why.str());
}

/// Reads a whole gzip (or plain) file.
llvm::Expected<std::vector<uint8_t>> readGzip(const std::string &path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return fail(path, "cannot open (is dataset-fashion-mnist installed?)");
  std::vector<uint8_t> data;
  uint8_t buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0)
    data.insert(data.end(), buffer, buffer + n);
  int error = 0;
  const char *message = gzerror(file, &error);
  gzclose(file);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END))
    return fail(path, llvm::Twine("corrupt gzip data: ") + message);
  return data;
}

uint32_t bigEndian(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
         (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

llvm::Error readImages(const std::string &path, Split &split) {
  auto data = readGzip(path);
  if (!data)
    return data.takeError();
  if (data->size() < 16)
    return fail(path, "truncated IDX header");
  if (bigEndian(data->data()) != 0x00000803)
    return fail(path, "wrong magic number (not an IDX image file)");
  uint32_t count = bigEndian(data->data() + 4);
  uint32_t rows = bigEndian(data->data() + 8), cols = bigEndian(data->data() + 12);
  uint64_t need = 16 + uint64_t(count) * rows * cols;
  if (rows == 0 || cols == 0 || data->size() < need)
    return fail(path, "truncated: the header promises " + std::to_string(count) +
                          " images of " + std::to_string(rows) + "x" +
                          std::to_string(cols));
  split.count = count;
  split.features = int64_t(rows) * cols;
  split.x.resize(uint64_t(count) * rows * cols);
  for (uint64_t i = 0; i < split.x.size(); ++i)
    split.x[i] = (*data)[16 + i] / 255.0f;
  return llvm::Error::success();
}

llvm::Error readLabels(const std::string &path, Split &split) {
  auto data = readGzip(path);
  if (!data)
    return data.takeError();
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
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Dataset> amp::run::loadFashionMnist(const std::string &dir) {
  Dataset d;
  d.classes = 10;
  if (auto e = readImages(dir + "/train-images-idx3-ubyte.gz", d.train))
    return std::move(e);
  if (auto e = readLabels(dir + "/train-labels-idx1-ubyte.gz", d.train))
    return std::move(e);
  if (auto e = readImages(dir + "/t10k-images-idx3-ubyte.gz", d.test))
    return std::move(e);
  if (auto e = readLabels(dir + "/t10k-labels-idx1-ubyte.gz", d.test))
    return std::move(e);
  return d;
}

Dataset amp::run::makeSynthetic(int64_t features, int64_t classes,
                                int64_t trainCount, int64_t testCount,
                                unsigned seed) {
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
