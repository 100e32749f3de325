//===- Dataset.h - Training data for amp-run --------------------*- C++ -*-===//

#ifndef AMP_TOOLS_AMPRUN_DATASET_H
#define AMP_TOOLS_AMPRUN_DATASET_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace amp::run {

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

/// Reads Fashion-MNIST's IDX files (gzip) from `dir`: train-images-idx3,
/// train-labels-idx1, t10k-images-idx3, t10k-labels-idx1. A missing,
/// truncated or mismatched file is an error naming it.
llvm::Expected<Dataset> loadFashionMnist(const std::string &dir);

/// Seeded random examples: `features` per example, N(0, 1), labels in
/// [0, classes) that depend on the features (so a model can learn them).
Dataset makeSynthetic(int64_t features, int64_t classes, int64_t trainCount,
                      int64_t testCount, unsigned seed);

} // namespace amp::run

#endif // AMP_TOOLS_AMPRUN_DATASET_H
