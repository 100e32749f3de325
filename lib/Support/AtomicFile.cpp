//===- AtomicFile.cpp - Write a file whole or not at all ------------------===//
//
// The LLVM-stream face of the runtime's writer (runtime/common/
// AtomicWrite.h), so the compiler and the trainer write files one way.
//
//===----------------------------------------------------------------------===//

#include "amp/Support/AtomicFile.h"
#include "AtomicWrite.h"
#include <cstring>

using namespace llvm;

namespace amp {

Error writeFileAtomically(StringRef path,
                          function_ref<void(raw_ostream &)> write) {
  std::string text;
  raw_string_ostream os(text);
  write(os);
  if (path == "-") {
    outs() << text;
    outs().flush();
    if (!outs().has_error())
      return Error::success();
    std::error_code error = outs().error();
    outs().clear_error(); // or the stream's destructor aborts the process
    return errorCodeToError(error);
  }
  int error = amprt::writeFileWhole(path.str(), [&](std::FILE *out) {
    return std::fwrite(text.data(), 1, text.size(), out) == text.size();
  });
  if (error)
    return createStringError(std::strerror(error));
  return Error::success();
}

} // namespace amp
