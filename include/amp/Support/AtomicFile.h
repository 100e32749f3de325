//===- AtomicFile.h - Write a file whole or not at all ----------*- C++ -*-===//
//
// amp's tools never leave a user's file half-written or emptied: output goes
// to a temporary file beside the target and is renamed over it only once
// it is complete, so a failed run leaves an existing file as it was.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_ATOMICFILE_H
#define AMP_SUPPORT_ATOMICFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace amp {

/// Writes what `write` prints to `path` (standard output for "-") through
/// the runtime's amprt::writeFileWhole: in place for something that exists
/// and is not a regular file (/dev/null, /dev/full, a FIFO), since a rename
/// would replace the device; otherwise through a temporary file in the same
/// folder, renamed over `path` (or over the file a symlink at `path` names,
/// keeping the link, and taking the replaced file's permissions). On failure
/// the error says why ("No space left on device"; callers name the file),
/// and no temporary file is left behind.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace amp

#endif // AMP_SUPPORT_ATOMICFILE_H
