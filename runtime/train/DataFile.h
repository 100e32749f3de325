//===- DataFile.h - Data files read a piece at a time -----------*- C++ -*-===//
//
// The reading shared by the data loaders (Dataset.cpp's IDX files,
// TextData.cpp's text): plain or gzipped files, regular files only, read
// front to back in pieces, and the memory a load may take.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_DATAFILE_H
#define AMPTRAIN_DATAFILE_H

#include "FileKind.h"
#include "amptrain/Result.h"
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#ifdef AMPTRAIN_HAVE_ZLIB
#include <zlib.h>
#endif

namespace amp::train {

/// A data file read front to back, plain or gzipped (an IDX file's header
/// is checked before its body is read, and no more than it promises is
/// held; a text file is read a piece at a time up to a bound).
class DataFile {
public:
  DataFile() = default;
  DataFile(const DataFile &) = delete;
  DataFile &operator=(const DataFile &) = delete;
  ~DataFile() {
    if (plain)
      std::fclose(plain);
#ifdef AMPTRAIN_HAVE_ZLIB
    if (gz)
      gzclose(gz);
#endif
  }

  /// Opens IDX file `name` of `dir`: the plain file when it is there, else
  /// the gzipped one.
  Status open(const std::string &dir, const std::string &name) {
    std::string plainPath = dir + "/" + name;
    bool gzipped = amprt::kindOf(plainPath) == amprt::FileKind::Missing;
    return openPath(gzipped ? plainPath + ".gz" : plainPath, gzipped);
  }

  /// Opens the file at `filePath`, gzipped or plain.
  Status openPath(const std::string &filePath, bool gzipped) {
    path = filePath;
    struct stat info;
    if (stat(path.c_str(), &info) != 0)
      return fail(std::string("cannot open: ") + std::strerror(errno));
    if (!S_ISREG(info.st_mode))
      return fail(amprt::kNotRegularFile);
    bytes = uint64_t(info.st_size);
    if (!gzipped)
      plain = std::fopen(path.c_str(), "rb");
#ifdef AMPTRAIN_HAVE_ZLIB
    else
      gz = gzopen(path.c_str(), "rb");
#else
    else
      return fail("this build has no zlib: gunzip it first");
#endif
    if (!plain && !gz)
      return fail(std::string("cannot open: ") + std::strerror(errno));
    return Status::success();
  }

  /// Reads up to `size` bytes into `into`; `got` says how many, fewer only
  /// at the end of the file.
  Status read(uint8_t *into, size_t size, size_t &got) {
    if (plain) {
      got = std::fread(into, 1, size, plain);
      if (got < size && std::ferror(plain))
        return fail(std::string("read error: ") + std::strerror(errno));
      return Status::success();
    }
    return readGzip(into, size, got);
  }

  /// The file's size on disk.
  uint64_t size() const { return bytes; }
  bool gzipped() const { return !plain; }

  Status fail(const std::string &why) const {
    return failure(path + ": " + why);
  }

private:
  Status readGzip(uint8_t *into, size_t size, size_t &got) {
#ifdef AMPTRAIN_HAVE_ZLIB
    int n = gzread(gz, into, unsigned(size));
    got = n > 0 ? size_t(n) : 0;
    int error = Z_OK;
    std::string message = gzerror(gz, &error);
    if (n >= 0 && (error == Z_OK || error == Z_STREAM_END))
      return Status::success();
    if (message.rfind(path + ": ", 0) == 0) // zlib names the file too
      message.erase(0, path.size() + 2);
    if (error == Z_BUF_ERROR)
      message = "truncated";
    return fail("corrupt gzip data: " + message);
#else
    (void)into, (void)size, (void)got;
    return fail("this build has no zlib");
#endif
  }

  std::string path;
  uint64_t bytes = 0;
  std::FILE *plain = nullptr;
#ifdef AMPTRAIN_HAVE_ZLIB
  gzFile gz = nullptr;
#else
  void *gz = nullptr;
#endif
};

/// The most memory a load may take, and who sets it: the machine's
/// memory, or less where the process is limited (ulimit -v or -d).
inline std::pair<uint64_t, const char *> memoryLimit() {
  std::pair<uint64_t, const char *> limit = {UINT64_MAX, "this machine has"};
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    limit.first = uint64_t(pages) * uint64_t(pageSize);
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        uint64_t(rl.rlim_cur) < limit.first)
      limit = {uint64_t(rl.rlim_cur), "this process may hold"};
  }
  return limit;
}

} // namespace amp::train

#endif // AMPTRAIN_DATAFILE_H
