//===- AtomicFile.cpp - Write a file whole or not at all ------------------===//

#include "amp/Support/AtomicFile.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <optional>

using namespace llvm;

namespace amp {
namespace {

/// Flushes and closes `os`, then turns a write error into an Error (and
/// clears it, or the stream's destructor would abort the process).
Error finish(raw_fd_ostream &os) {
  os.close();
  if (!os.has_error())
    return Error::success();
  std::error_code error = os.error();
  os.clear_error();
  return errorCodeToError(error);
}

Error writeStandardOutput(function_ref<void(raw_ostream &)> write) {
  raw_fd_ostream &out = outs();
  write(out);
  out.flush();
  if (!out.has_error())
    return Error::success();
  std::error_code error = out.error();
  out.clear_error();
  return errorCodeToError(error);
}

Error writeInPlace(StringRef path, function_ref<void(raw_ostream &)> write) {
  std::error_code error;
  raw_fd_ostream out(path, error, sys::fs::OF_None);
  if (error)
    return errorCodeToError(error);
  write(out);
  return finish(out);
}

/// `permissions`: those of the file it replaces, if any.
Error writeThroughTemporary(StringRef target,
                            std::optional<sys::fs::perms> permissions,
                            function_ref<void(raw_ostream &)> write) {
  int fd = -1;
  SmallString<256> temporary;
  if (std::error_code error = sys::fs::createUniqueFile(
          target + ".tmp-%%%%%%", fd, temporary, sys::fs::OF_None))
    return errorCodeToError(error);
  if (permissions)
    sys::fs::setPermissions(fd, *permissions);
  Error written = [&] {
    raw_fd_ostream out(fd, /*shouldClose=*/true);
    write(out);
    return finish(out);
  }();
  if (!written) {
    if (std::error_code error = sys::fs::rename(temporary, target))
      written = errorCodeToError(error);
  }
  if (written)
    sys::fs::remove(temporary);
  return written;
}

} // namespace

Error writeFileAtomically(StringRef path,
                          function_ref<void(raw_ostream &)> write) {
  if (path == "-")
    return writeStandardOutput(write);
  sys::fs::file_status status;
  if (!sys::fs::status(path, status) && sys::fs::exists(status) &&
      !sys::fs::is_regular_file(status))
    return writeInPlace(path, write);
  // Through a symlink, the file it names is replaced, not the link.
  SmallString<256> target(path);
  std::optional<sys::fs::perms> permissions;
  if (sys::fs::exists(status)) {
    if (std::error_code error = sys::fs::real_path(path, target))
      return errorCodeToError(error);
    permissions = status.permissions();
  }
  return writeThroughTemporary(target, permissions, write);
}

} // namespace amp
