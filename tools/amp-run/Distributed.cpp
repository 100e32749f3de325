//===- Distributed.cpp - amp-run as one rank of a data-parallel job -------===//

#include "Distributed.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <unistd.h>

using namespace amp::run;

std::string amp::run::detectLauncher() {
  // Open MPI's mpirun, MPICH/Hydra (PMI), and PMIx launchers (srun --mpi=pmix).
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name))
      return "mpi";
  return "self";
}

int amp::run::localRank() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return 0;
}

llvm::Expected<Fault> amp::run::parseFault(llvm::StringRef text) {
  Fault fault;
  if (text.empty())
    return fault;
  auto bad = [&]() {
    return llvm::createStringError(
        "--inject-fault must be KIND@RANK:STEP with KIND inf, exit or hang "
        "(e.g. inf@1:3), got '" +
        text + "'");
  };
  auto [kind, where] = text.split('@');
  auto [rank, step] = where.split(':');
  if (kind == "inf")
    fault.kind = Fault::Inf;
  else if (kind == "exit")
    fault.kind = Fault::Exit;
  else if (kind == "hang")
    fault.kind = Fault::Hang;
  else
    return bad();
  if (rank.getAsInteger(10, fault.rank) || fault.rank < 0 ||
      step.getAsInteger(10, fault.step) || fault.step < 0)
    return bad();
  return fault;
}

void amp::run::injectProcessFault(const Fault &fault) {
  // One write: the ranks share the launcher's stderr.
  llvm::errs() << ("amp-run: injected fault: rank " +
                   std::to_string(fault.rank) +
                   (fault.kind == Fault::Exit ? " exits" : " hangs") +
                   " at step " + std::to_string(fault.step) + "\n");
  llvm::errs().flush();
  if (fault.kind == Fault::Exit)
    _exit(3); // as a crash would: no cleanup, no MPI_Finalize
  for (;;)
    pause();
}

uint64_t amp::run::fingerprint(llvm::StringRef text, uint64_t seed) {
  uint64_t hash = 1469598103934665603ull ^ seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}
