//===- Distributed.h - One rank of a data-parallel job ----------*- C++ -*-===//
//
// What amp-run and amp-train do differently under mpirun or srun: join the
// job's process group, check that every rank runs the same step, start
// every rank from rank 0's state, read its own shard of each global batch,
// and leave printing to rank 0. Fault injection (--inject-fault) exists so
// the tests can show that a rank that fails, dies or hangs ends every rank
// with an error.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_DISTRIBUTED_H
#define AMPTRAIN_DISTRIBUTED_H

#include "amptrain/Result.h"
#include <cstdint>
#include <string>
#include <string_view>

namespace amp::train {

/// The process group's transport for --comm=auto: "mpi" when a launcher
/// started this process (Open MPI, MPICH/PMI, Slurm with PMIx), else
/// "self".
std::string detectLauncher();

/// This process's rank among the ranks on its machine (the launcher's local
/// rank; 0 when none says), to give each its own GPU.
int localRank();

/// A fault one rank injects at one step (--inject-fault=KIND@RANK:STEP).
struct Fault {
  enum Kind { None, Inf, Exit, Hang, SaveExit } kind = None;
  int rank = 0;
  int64_t step = 0;
  bool at(int r, int64_t s) const {
    return kind != None && r == rank && s == step;
  }
};
/// Parses "inf@1:3", "exit@1:3", "hang@1:3" or "save-exit@0:3" (exit
/// halfway through writing the checkpoint of step 3) ("" is no fault).
Expected<Fault> parseFault(std::string_view text);
/// Exits (Exit, SaveExit) or blocks forever (Hang) after `tool` says so on
/// stderr.
[[noreturn]] void injectProcessFault(const Fault &fault, const char *tool);

/// FNV-1a of `bytes` (what the ranks compare to agree they run one step;
/// what a manifest records of its object).
uint64_t fingerprint(std::string_view bytes, uint64_t seed = 0);
/// fingerprint(bytes) as 16 hex digits, as reports and manifests write it.
std::string fingerprintHex(std::string_view bytes);

} // namespace amp::train

#endif // AMPTRAIN_DISTRIBUTED_H
