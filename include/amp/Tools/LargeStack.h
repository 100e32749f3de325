//===- LargeStack.h - Run a tool on a large-stack thread --------*- C++ -*-===//
//
// MLIR's parser, verifier and many walks recurse once per nested region: a
// module nesting regions thousands deep overflows the 8 MiB main-thread
// stack. amp's tools do their work on a thread whose stack is 2 GiB of
// address space (reserved, touched only as deep as the input goes), which
// takes nesting about a million regions deep.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_LARGESTACK_H
#define AMP_TOOLS_LARGESTACK_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/thread.h"
#include <optional>

namespace amp {

inline int runWithLargeStack(llvm::function_ref<int()> work) {
  constexpr unsigned kStackBytes = 1u << 31;
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(kStackBytes),
                      [&] { result = work(); });
  worker.join();
  return result;
}

} // namespace amp

#endif // AMP_TOOLS_LARGESTACK_H
