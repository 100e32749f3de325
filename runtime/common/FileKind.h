//===- FileKind.h - Whether a path may be opened to read --------*- C++ -*-===//
//
// Every file amp reads (a program, a lists-file, a data file) must be a
// regular file: opening a FIFO to read waits for a writer forever, and a
// directory or device is no input. Header-only and free of LLVM, so the
// compiler, amp-run and the training library say it the same way.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_FILEKIND_H
#define AMPRT_COMMON_FILEKIND_H

#include <cerrno>
#include <string>
#include <sys/stat.h>

namespace amprt {

/// What a refused non-regular input is called.
inline constexpr const char kNotRegularFile[] =
    "not a regular file (a directory, FIFO or device)";

enum class FileKind { Missing, Regular, Other };

/// What `path` names; errno says why when it is Missing.
inline FileKind kindOf(const std::string &path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return FileKind::Missing;
  return S_ISREG(info.st_mode) ? FileKind::Regular : FileKind::Other;
}

} // namespace amprt

#endif // AMPRT_COMMON_FILEKIND_H
