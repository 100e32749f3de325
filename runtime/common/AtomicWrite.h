//===- AtomicWrite.h - Write a file whole or not at all ---------*- C++ -*-===//
//
// The one way amp writes a user's file, shared by the training library
// (reports, manifests, objects) and the compiler (amp-opt's output, the
// precision report); header-only and free of LLVM so both can include it.
// Output goes to a temporary file beside the target, renamed over it once
// complete, so a failed or interrupted write leaves an existing file as it
// was. A device or FIFO is written in place: a rename would replace it.
//
//===----------------------------------------------------------------------===//

#ifndef AMPRT_COMMON_ATOMICWRITE_H
#define AMPRT_COMMON_ATOMICWRITE_H

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace amprt {

/// What the temporary file's name adds to the target's (mkstemp's X's).
inline constexpr const char kTemporarySuffix[] = ".tmp-XXXXXX";

/// Writes a file's content in pieces to `out`; false when a write failed
/// (errno says why).
using FileContent = std::function<bool(std::FILE *out)>;

namespace detail {

/// The file to replace: through a symlink, the file it names, so the link
/// stays a link.
inline std::string replacedFile(const std::string &path) {
  char resolved[PATH_MAX];
  struct stat link;
  if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode) &&
      realpath(path.c_str(), resolved))
    return resolved;
  return path;
}

/// Writes `content` to the open `out` and closes it; 0 or an errno.
inline int writeAndClose(std::FILE *out, const FileContent &content) {
  errno = 0;
  bool written = content(out);
  int error = errno ? errno : EIO;
  written = std::fflush(out) == 0 && written;
  if (!written)
    error = errno ? errno : error;
  if (std::fclose(out) != 0 && written) {
    written = false;
    error = errno;
  }
  return written ? 0 : error;
}

/// The process's umask, read without changing it (umask() would, for a
/// moment, for every thread); 022 where /proc does not say.
inline mode_t currentUmask() {
  mode_t mask = 022;
  if (std::FILE *status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned value = 0;
    while (std::fgets(line, sizeof line, status))
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = value & 0777;
        break;
      }
    std::fclose(status);
  }
  return mask;
}

} // namespace detail

/// Writes `content` to `path` whole or not at all; 0 or the errno of what
/// failed (no temporary file is left behind). A replaced file keeps its
/// permissions.
inline int writeFileWhole(const std::string &path, const FileContent &content) {
  struct stat info;
  bool exists = stat(path.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {
    std::FILE *out = std::fopen(path.c_str(), "w");
    return out ? detail::writeAndClose(out, content) : errno;
  }
  std::string target = detail::replacedFile(path);
  std::string temporary = target + kTemporarySuffix;
  int fd = mkstemp(temporary.data());
  if (fd < 0)
    return errno;
  // mkstemp makes the file 0600; a new file gets what umask allows.
  fchmod(fd, exists ? info.st_mode & 07777 : 0666 & ~detail::currentUmask());
  std::FILE *out = fdopen(fd, "w");
  if (!out) {
    int error = errno;
    close(fd);
    std::remove(temporary.c_str());
    return error;
  }
  int error = detail::writeAndClose(out, content);
  if (!error && std::rename(temporary.c_str(), target.c_str()) != 0)
    error = errno;
  if (error)
    std::remove(temporary.c_str());
  return error;
}

} // namespace amprt

#endif // AMPRT_COMMON_ATOMICWRITE_H
