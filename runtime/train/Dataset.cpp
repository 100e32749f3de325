//===- Dataset.cpp - Fashion-MNIST IDX files and synthetic data -----------===//

#include "amptrain/Dataset.h"
#include "DataFile.h"
#include <algorithm>
#include <new>
#include <random>

namespace amp::train {

namespace {

uint32_t bigEndian(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
         (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/// Opens IDX file `name` of `dir`, reads its header of `size` bytes and
/// checks its magic number (`kind` names the file's kind for the error).
Status openWithHeader(DataFile &file, const std::string &dir,
                      const std::string &name, uint8_t *header, size_t size,
                      uint32_t magic, const char *kind) {
  if (Status bad = file.open(dir, name))
    return bad;
  size_t got = 0;
  if (Status bad = file.read(header, size, got))
    return bad;
  if (got < size)
    return file.fail("truncated IDX header");
  if (bigEndian(header) != magic)
    return file.fail(std::string("wrong magic number (not an IDX ") + kind +
                     " file)");
  return Status::success();
}

/// Refuses a header whose promise of `bodyBytes` after its `headerBytes`
/// the file cannot keep, or whose loaded form (`loadedBytes`) would not fit
/// in this machine's memory, before any of the body is read: a header may
/// lie, and the body is then held whole.
Status checkPromise(const DataFile &file, const std::string &promise,
                    uint64_t headerBytes, uint64_t bodyBytes,
                    uint64_t loadedBytes) {
  uint64_t size = file.size() - headerBytes;
  if (!file.gzipped() && bodyBytes > size)
    return file.fail("bad IDX header: " + promise + " do not fit in its " +
                     std::to_string(file.size()) + " bytes");
  if (!file.gzipped() && bodyBytes < size)
    return file.fail("more bytes than the header promises (" + promise +
                     "): a count was changed, or files were joined");
  // Deflate expands at most 1032 times.
  if (file.gzipped() && bodyBytes / 1032 > file.size())
    return file.fail("bad IDX header: " + promise +
                     " cannot come from a gzip file of " +
                     std::to_string(file.size()) + " bytes");
  auto [limit, holder] = memoryLimit();
  if (loadedBytes <= limit)
    return Status::success();
  double gib = 1024.0 * 1024 * 1024;
  char sizes[128];
  std::snprintf(sizes, sizeof(sizes), "%.1f GiB to load; %s %.1f GiB",
                loadedBytes / gib, holder, limit / gib);
  return file.fail("the header promises " + promise + ", which needs " + sizes);
}

/// Reads the `count` body bytes the header promised, a piece at a time,
/// handing each piece to `take` (which may refuse it), then checks that the
/// file ends there.
template <typename Take>
Status readBody(DataFile &file, uint64_t count, const std::string &promise,
                Take take) {
  std::vector<uint8_t> piece(std::min<uint64_t>(count + 1, 1 << 20));
  for (uint64_t done = 0; done < count;) {
    size_t want = std::min<uint64_t>(piece.size(), count - done), got = 0;
    if (Status bad = file.read(piece.data(), want, got))
      return bad;
    if (Status bad = take(piece.data(), got))
      return bad;
    done += got;
    if (got < want)
      return file.fail("truncated: the header promises " + promise +
                       ", the file ends after " + std::to_string(done) +
                       " of their " + std::to_string(count) + " bytes");
  }
  size_t extra = 0;
  if (Status bad = file.read(piece.data(), 1, extra))
    return bad;
  if (extra)
    return file.fail("more bytes than the header promises (" + promise +
                     "): a count was changed, or files were joined");
  return Status::success();
}

/// Reads IDX image file `name` of `dir` into `split`; `features`, when not
/// 0, is the image size the other split has.
Status readImages(const std::string &dir, const std::string &name,
                  int64_t features, Split &split) {
  DataFile file;
  uint8_t header[16];
  if (Status bad =
          openWithHeader(file, dir, name, header, 16, 0x00000803, "image"))
    return bad;
  uint32_t count = bigEndian(header + 4);
  uint32_t rows = bigEndian(header + 8), cols = bigEndian(header + 12);
  std::string promise = std::to_string(count) + " images of " +
                        std::to_string(rows) + "x" + std::to_string(cols);
  // 32-bit fields: one image's pixel count fits 64 bits, all of them and
  // their floats may not.
  uint64_t pixels = uint64_t(rows) * cols, bytes = 0, floats = 0;
  if (rows == 0 || cols == 0)
    return file.fail("bad IDX header: " + promise + " have no pixels");
  if (__builtin_mul_overflow(uint64_t(count), pixels, &bytes) ||
      __builtin_mul_overflow(bytes, sizeof(float), &floats))
    return file.fail("bad IDX header: " + promise +
                     " would take more than 2^64 bytes");
  if (features && int64_t(pixels) != features)
    return file.fail(promise + ", but the training images have " +
                     std::to_string(features) + " pixels");
  if (Status bad = checkPromise(file, promise, 16, bytes, floats))
    return bad;
  split.count = count;
  split.features = int64_t(pixels);
  // Pages are only committed as the pieces arrive.
  split.x.clear();
  try {
    split.x.reserve(bytes);
  } catch (const std::bad_alloc &) {
    return file.fail("cannot hold " + promise + " in memory");
  }
  return readBody(file, bytes, promise, [&](const uint8_t *piece, size_t n) {
    size_t at = split.x.size();
    split.x.resize(at + n);
    for (size_t i = 0; i < n; ++i)
      split.x[at + i] = piece[i] / 255.0f;
    return Status::success();
  });
}

/// Reads IDX label file `name` of `dir` into `split`, whose images are read.
Status readLabels(const std::string &dir, const std::string &name,
                  Split &split) {
  DataFile file;
  uint8_t header[8];
  if (Status bad =
          openWithHeader(file, dir, name, header, 8, 0x00000801, "label"))
    return bad;
  uint32_t count = bigEndian(header + 4);
  if ((int64_t)count != split.count)
    return file.fail(std::to_string(count) + " labels for " +
                     std::to_string(split.count) + " images");
  std::string promise = std::to_string(count) + " labels";
  if (Status bad =
          checkPromise(file, promise, 8, count, count * sizeof(int32_t)))
    return bad;
  split.y.clear();
  split.y.reserve(count);
  return readBody(file, count, promise, [&](const uint8_t *piece, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (piece[i] > 9)
        return file.fail("label " + std::to_string(piece[i]) +
                         " outside the 10 classes");
      split.y.push_back(piece[i]);
    }
    return Status::success();
  });
}

} // namespace

Expected<Dataset> loadFashionMnist(const std::string &dir) {
  Dataset d;
  d.classes = 10;
  if (auto e = readImages(dir, kFashionMnistFiles[0], 0, d.train))
    return e;
  if (auto e = readLabels(dir, kFashionMnistFiles[1], d.train))
    return e;
  if (auto e = readImages(dir, kFashionMnistFiles[2], d.train.features, d.test))
    return e;
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
