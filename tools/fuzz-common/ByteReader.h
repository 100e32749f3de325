//===- ByteReader.h - Choices read off a fuzzer input -----------*- C++ -*-===//
//
// The fuzzers' decoders (training steps, foreign IR, data files) turn bytes
// into choices the same way: one byte per choice, modulo the number of
// options; past the end every choice is 0, so a short input is a small
// program rather than an error.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_FUZZ_COMMON_BYTEREADER_H
#define AMP_TOOLS_FUZZ_COMMON_BYTEREADER_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace amp::fuzz {

class ByteReader {
public:
  explicit ByteReader(llvm::ArrayRef<uint8_t> bytes) : bytes(bytes) {}
  /// A choice in [0, n).
  unsigned pick(unsigned n) {
    if (pos >= bytes.size())
      return 0;
    return bytes[pos++] % n;
  }
  bool atEnd() const { return pos >= bytes.size(); }

private:
  llvm::ArrayRef<uint8_t> bytes;
  size_t pos = 0;
};

} // namespace amp::fuzz

#endif // AMP_TOOLS_FUZZ_COMMON_BYTEREADER_H
