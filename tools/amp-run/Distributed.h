//===- Distributed.h - amp-run as one rank of a data-parallel job -*- C++
//-*-===//
//
// What amp-run does differently under mpirun or srun: it joins the job's
// process group, checks that every rank compiled the same step, starts every
// rank from rank 0's state, reads its own shard of each global batch, and
// leaves printing to rank 0. Fault injection (--inject-fault) exists so the
// tests can show that a rank that fails, dies or hangs ends every rank with
// an error.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMPRUN_DISTRIBUTED_H
#define AMP_TOOLS_AMPRUN_DISTRIBUTED_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace amp::run {

/// The process group's transport for --comm=auto: "mpi" when a launcher
/// started this process (Open MPI, MPICH/PMI, Slurm with PMIx), else
/// "self".
std::string detectLauncher();

/// This process's rank among the ranks on its machine (the launcher's local
/// rank; 0 when none says), to give each its own GPU.
int localRank();

/// A fault one rank injects at one step (--inject-fault=KIND@RANK:STEP).
struct Fault {
  enum Kind { None, Inf, Exit, Hang } kind = None;
  int rank = 0;
  int64_t step = 0;
  bool at(int r, int64_t s) const {
    return kind != None && r == rank && s == step;
  }
};
/// Parses "inf@1:3", "exit@1:3" or "hang@1:3" ("" is no fault).
llvm::Expected<Fault> parseFault(llvm::StringRef text);
/// Exits (Exit) or blocks forever (Hang) after saying so on stderr.
[[noreturn]] void injectProcessFault(const Fault &fault);

/// FNV-1a of `text` (what the ranks compare to agree they run one step).
uint64_t fingerprint(llvm::StringRef text, uint64_t seed = 0);

} // namespace amp::run

#endif // AMP_TOOLS_AMPRUN_DISTRIBUTED_H
