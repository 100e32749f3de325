//===- DataFromBytes.cpp - Fashion-MNIST folders from fuzzer bytes --------===//

#include "DataFromBytes.h"
#include "ByteReader.h"
#include "amptrain/Dataset.h"
#ifdef AMP_FUZZ_HAVE_ZLIB
#include <zlib.h>
#endif

namespace amp::fuzz {
namespace {

void addDamage(DataFile &file, const std::string &what) {
  file.damage += (file.damage.empty() ? "" : ", ") + what;
}

void putBigEndian(std::vector<uint8_t> &out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(uint8_t(value >> shift));
}

/// Small images keep an input fast; a split may be empty.
SplitContent decodeSplit(ByteReader &r, uint32_t rows, uint32_t cols,
                         bool &valid) {
  SplitContent split;
  split.count = r.pick(6);
  split.rows = rows;
  split.cols = cols;
  unsigned seed = r.pick(256);
  split.pixels.resize(size_t(split.count) * rows * cols);
  for (size_t i = 0; i < split.pixels.size(); ++i)
    split.pixels[i] = uint8_t(i * 37 + seed);
  for (uint32_t i = 0; i < split.count; ++i) {
    // One label in twelve choices names a class past the ten.
    split.labels.push_back(uint8_t(r.pick(12)));
    valid &= split.labels.back() < 10;
  }
  return split;
}

std::vector<uint8_t> imageFile(const SplitContent &split) {
  std::vector<uint8_t> out;
  for (uint32_t field : {0x803u, split.count, split.rows, split.cols})
    putBigEndian(out, field);
  out.insert(out.end(), split.pixels.begin(), split.pixels.end());
  return out;
}

std::vector<uint8_t> labelFile(const SplitContent &split) {
  std::vector<uint8_t> out;
  putBigEndian(out, 0x801);
  putBigEndian(out, split.count);
  out.insert(out.end(), split.labels.begin(), split.labels.end());
  return out;
}

#ifdef AMP_FUZZ_HAVE_ZLIB
std::vector<uint8_t> gzipped(const std::vector<uint8_t> &plain) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer, as gzip(1) writes.
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
               Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&stream, plain.size()) + 32);
  stream.next_in = const_cast<uint8_t *>(plain.data());
  stream.avail_in = plain.size();
  stream.next_out = out.data();
  stream.avail_out = out.size();
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}
#endif

/// Damages `file` as the next choice says (most choices, 0 among them,
/// leave it alone); returns whether the folder may still be valid.
bool damage(ByteReader &r, DataFile &file, size_t headerSize) {
  std::vector<uint8_t> &bytes = file.bytes;
  switch (r.pick(16)) {
  case 10: {
    size_t keep = bytes.empty() ? 0 : r.pick(256) % bytes.size();
    bytes.resize(keep);
    addDamage(file, "truncated to " + std::to_string(keep) + " bytes");
    return false;
  }
  case 11: {
    size_t at = r.pick(headerSize);
    bytes[at] ^= uint8_t(1 + r.pick(255));
    addDamage(file, "header byte " + std::to_string(at) + " flipped");
    return false;
  }
  case 12:
    // A count whose product with the image size wraps 64 bits.
    for (size_t at = 4; at < headerSize; ++at)
      bytes[at] = 0xff;
    addDamage(file, "every header count 0xffffffff");
    return false;
  case 13:
    file.form = FileForm::Missing;
    addDamage(file, "missing");
    return false;
  case 14:
    file.form = FileForm::Directory;
    addDamage(file, "a directory");
    return false;
  case 15:
    // Bytes past what the header promises: a changed count.
    bytes.insert(bytes.end(), 1 + r.pick(8), 0x5a);
    addDamage(file, "trailing bytes");
    return false;
  default:
    return true;
  }
}

/// Gzips `file` when chosen, and may then corrupt the stream.
bool maybeGzip(ByteReader &r, DataFile &file, bool gzip) {
#ifdef AMP_FUZZ_HAVE_ZLIB
  if (!gzip || file.form != FileForm::Plain || r.pick(2) == 0)
    return true;
  file.form = FileForm::Gzip;
  file.bytes = gzipped(file.bytes);
  switch (r.pick(8)) {
  case 6: {
    size_t at = 10 + r.pick(256) % (file.bytes.size() - 10);
    file.bytes[at] ^= uint8_t(1 + r.pick(255));
    addDamage(file, "gzip byte " + std::to_string(at) + " flipped");
    return false;
  }
  case 7:
    file.bytes.resize(r.pick(256) % file.bytes.size());
    addDamage(file, "gzip stream truncated");
    return false;
  default:
    return true;
  }
#else
  return true;
#endif
}

} // namespace

DecodedData decodeData(llvm::ArrayRef<uint8_t> bytes, bool gzip) {
  ByteReader r(bytes);
  DecodedData data;
  uint32_t rows = 1 + r.pick(4), cols = 1 + r.pick(4);
  data.train = decodeSplit(r, rows, cols, data.valid);
  // One input in eight has test images of another size.
  bool sameSize = r.pick(8) != 7;
  data.valid &= sameSize;
  data.test = decodeSplit(r, rows, sameSize ? cols : cols + 1, data.valid);
  struct Layout {
    const char *name;
    std::vector<uint8_t> bytes;
    size_t headerSize;
  } layouts[] = {{train::kFashionMnistFiles[0], imageFile(data.train), 16},
                 {train::kFashionMnistFiles[1], labelFile(data.train), 8},
                 {train::kFashionMnistFiles[2], imageFile(data.test), 16},
                 {train::kFashionMnistFiles[3], labelFile(data.test), 8}};
  for (Layout &layout : layouts) {
    DataFile file;
    file.name = layout.name;
    file.bytes = std::move(layout.bytes);
    data.valid &= damage(r, file, layout.headerSize);
    data.valid &= maybeGzip(r, file, gzip);
    data.files.push_back(std::move(file));
  }
  return data;
}

std::string describe(const DecodedData &data) {
  static const char *forms[] = {"plain", "gzip", "missing", "directory"};
  std::string text =
      "// train " + std::to_string(data.train.count) + " images of " +
      std::to_string(data.train.rows) + "x" + std::to_string(data.train.cols) +
      ", test " + std::to_string(data.test.count) + " of " +
      std::to_string(data.test.rows) + "x" + std::to_string(data.test.cols) +
      (data.valid ? ", valid\n" : ", not valid\n");
  for (const DataFile &file : data.files)
    text += "//   " + file.name + ": " + forms[int(file.form)] + ", " +
            std::to_string(file.bytes.size()) + " bytes" +
            (file.damage.empty() ? "" : ", " + file.damage) + "\n";
  return text;
}

} // namespace amp::fuzz
