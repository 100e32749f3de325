//===- Dataset.h - Training data for amp-run and amp-train ------*- C++ -*-===//

#ifndef AMPTRAIN_DATASET_H
#define AMPTRAIN_DATASET_H

#include "amptrain/Result.h"
#include <cstdint>
#include <string>
#include <vector>

namespace amp::train {

/// Examples as flat float features in [0, 1] (or N(0, 1) for synthetic
/// data) and integer labels.
struct Split {
  int64_t count = 0, features = 0;
  std::vector<float> x;
  std::vector<int32_t> y;
};

struct Dataset {
  Split train, test;
  int64_t classes = 0;
};

/// The IDX files of a Fashion-MNIST folder, in the order read: training
/// images and labels, test images and labels (each plain or with ".gz").
inline constexpr const char *kFashionMnistFiles[4] = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

/// Reads Fashion-MNIST's IDX files (kFashionMnistFiles) from `dir`:
/// train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
/// t10k-labels-idx1-ubyte, each gzipped (`.gz`, as Debian ships them) or plain
/// (where the runtime was built without zlib, as on a GPU machine with no zlib
/// headers). A missing, truncated or mismatched file is a failure naming it.
Expected<Dataset> loadFashionMnist(const std::string &dir);

/// Seeded random examples: `features` per example, N(0, 1), labels in
/// [0, classes) that depend on the features (so a model can learn them).
Dataset makeSynthetic(int64_t features, int64_t classes, int64_t trainCount,
                      int64_t testCount, unsigned seed);

/// Whether gzipped IDX files can be read (the runtime found zlib).
bool readsGzip();

/// Text for a byte-level language model: a file's bytes, the first 90% to
/// train on and the last 10% held out for validation.
struct TextCorpus {
  std::string train, validation;
};

/// The English text --data=text reads with no FILE: the Jargon File (1.7 MB),
/// as Debian's jargon-text package installs it.
inline constexpr const char *kInstalledText =
    "/usr/share/doc/jargon-text/jargon.txt.gz";

/// Reads the text at `path` (gzipped when its name ends in ".gz"): a
/// regular file that is not empty and fits in memory, split 90/10. A
/// missing, unreadable, corrupt or truncated file is a failure naming it.
Expected<TextCorpus> loadText(const std::string &path);

} // namespace amp::train

#endif // AMPTRAIN_DATASET_H
