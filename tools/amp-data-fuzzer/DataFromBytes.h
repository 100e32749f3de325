//===- DataFromBytes.h - Fashion-MNIST from fuzzer bytes --------*- C++ -*-===//
//
// amp-data-fuzzer's decoder: bytes choose the four IDX files of a data
// folder (sizes, pixels, labels, plain or gzipped) and what damages them
// (truncation, a flipped header byte, a wrapping count, a label past the
// classes, a missing file, a directory in its place, a corrupt gzip
// stream). An input with no damage is a valid folder that must load as
// written.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMP_DATA_FUZZER_DATAFROMBYTES_H
#define AMP_TOOLS_AMP_DATA_FUZZER_DATAFROMBYTES_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace amp::fuzz {

/// How a file lies in the folder.
enum class FileForm { Plain, Gzip, Missing, Directory };

struct DataFile {
  std::string name; // without ".gz"
  FileForm form = FileForm::Plain;
  /// The bytes on disk (gzipped already for FileForm::Gzip).
  std::vector<uint8_t> bytes;
  /// What was done to it, for the printout of a failing input.
  std::string damage;
};

/// The content of one split as written before any damage.
struct SplitContent {
  uint32_t count = 0, rows = 0, cols = 0;
  std::vector<uint8_t> pixels, labels;
};

struct DecodedData {
  /// Train images, train labels, test images, test labels.
  std::vector<DataFile> files;
  SplitContent train, test;
  /// No file damaged, every label a class and both splits of one image
  /// size: the folder must load, equal to `train` and `test`.
  bool valid = true;
};

/// `gzip`: whether files may be gzipped (the build reads them).
DecodedData decodeData(llvm::ArrayRef<uint8_t> bytes, bool gzip);

/// What `data` lays out, a line per file.
std::string describe(const DecodedData &data);

} // namespace amp::fuzz

#endif // AMP_TOOLS_AMP_DATA_FUZZER_DATAFROMBYTES_H
