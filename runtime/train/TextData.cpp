//===- TextData.cpp - Text for byte-level language models -----------------===//
//
// --data=text[:FILE]: a file's bytes, the first 90% for training, the last
// 10% for validation. Training batches are random windows of context + 1
// bytes (drawn with the run's seeded generator): the input is a window's
// first `context` bytes, the label the byte after each of them.
//
//===----------------------------------------------------------------------===//

#include "DataFile.h"
#include "amptrain/Trainer.h"
#include <algorithm>

namespace amp::train {

Expected<TextCorpus> loadText(const std::string &path) {
  bool gzipped =
      path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  DataFile file;
  if (Status bad = file.openPath(path, gzipped))
    return bad;
  // Deflate expands at most 1032 times; the text is held once.
  uint64_t bound = gzipped ? file.size() * 1032 : file.size();
  auto [limit, holder] = memoryLimit();
  std::string text;
  std::string piece(1 << 20, '\0');
  for (;;) {
    size_t got = 0;
    if (Status bad = file.read(reinterpret_cast<uint8_t *>(piece.data()),
                               piece.size(), got))
      return bad;
    if (text.size() + got > bound || text.size() + got > limit / 2)
      return file.fail(
          std::string("more text than ") +
          (text.size() + got > bound ? "its size allows" : holder) +
          " to load");
    text.append(piece, 0, got);
    if (got < piece.size())
      break;
  }
  if (text.empty())
    return file.fail("no text: the file is empty");
  size_t cut = text.size() - text.size() / 10;
  return TextCorpus{text.substr(0, cut), text.substr(cut)};
}

TextBatches::TextBatches(const TextCorpus &text, const TensorSpec &input,
                         const TensorSpec &label, const Job &job,
                         std::mt19937 &rng)
    : text(text), inputType(input), labelType(label), job(job), rng(rng),
      batch(input.shape[0]), context(input.shape[1]), ranks(job.size()),
      x(batch * context), y(batch * context) {}

int64_t TextBatches::perEpoch() const {
  int64_t perStep = batch * context * ranks;
  return int64_t(text.train.size()) / perStep;
}

Expected<std::pair<TensorPtr, TensorPtr>> TextBatches::next(int64_t s) {
  std::uniform_int_distribution<int64_t> start(0, int64_t(text.train.size()) -
                                                      context - 1);
  // Every rank draws the global batch's windows (same seed) and takes its
  // own, as ExampleBatches slices the shuffled order.
  for (int64_t w = 0; w < globalBatch(); ++w) {
    int64_t at = start(rng), b = w - job.rank() * batch;
    if (b < 0 || b >= batch)
      continue;
    for (int64_t t = 0; t < context; ++t) {
      x[b * context + t] = (float)(uint8_t)text.train[at + t];
      y[b * context + t] = (float)(uint8_t)text.train[at + t + 1];
    }
  }
  (void)s; // the windows are the generator's, not the step's
  return batchFromFloats(job.context(), inputType, x.data(), labelType,
                         y.data());
}

} // namespace amp::train
