//===- Distributed.cpp - A trainer as one rank of a data-parallel job -----===//

#include "amptrain/Distributed.h"
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace amp::train {

std::string detectLauncher() {
  // Open MPI's mpirun, MPICH/Hydra (PMI), and PMIx launchers (srun --mpi=pmix).
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name))
      return "mpi";
  return "self";
}

int localRank() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return 0;
}

/// `text` as a whole non-negative decimal number.
static bool parseCount(std::string_view text, int64_t &out) {
  if (text.empty() || text.size() > 18)
    return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

Expected<Fault> parseFault(std::string_view text) {
  Fault fault;
  if (text.empty())
    return fault;
  auto bad = [&]() -> Expected<Fault> {
    return failure("--inject-fault must be KIND@RANK:STEP with KIND inf, "
                   "exit, hang or save-exit (e.g. inf@1:3), got '" +
                   std::string(text) + "'");
  };
  size_t at = text.find('@'), colon = text.find(':', at);
  if (at == std::string_view::npos || colon == std::string_view::npos)
    return bad();
  std::string_view kind = text.substr(0, at);
  if (kind == "inf")
    fault.kind = Fault::Inf;
  else if (kind == "exit")
    fault.kind = Fault::Exit;
  else if (kind == "hang")
    fault.kind = Fault::Hang;
  else if (kind == "save-exit")
    fault.kind = Fault::SaveExit;
  else
    return bad();
  int64_t rank = 0;
  if (!parseCount(text.substr(at + 1, colon - at - 1), rank) ||
      rank > INT32_MAX || !parseCount(text.substr(colon + 1), fault.step))
    return bad();
  fault.rank = (int)rank;
  return fault;
}

void injectProcessFault(const Fault &fault, const char *tool) {
  // One write: the ranks share the launcher's stderr.
  std::string line =
      std::string(tool) + ": error: injected fault (--inject-fault): rank " +
      std::to_string(fault.rank) +
      (fault.kind == Fault::Hang ? " hangs"
       : fault.kind == Fault::SaveExit
           ? " exits with status 3 halfway through writing its checkpoint, "
             "as a killed run would,"
           : " exits with status 3, as a crashed rank would,") +
      " at step " + std::to_string(fault.step) + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  if (fault.kind != Fault::Hang)
    _exit(3); // as a crash would: no cleanup, no MPI_Finalize
  for (;;)
    pause();
}

uint64_t fingerprint(std::string_view bytes, uint64_t seed) {
  uint64_t hash = 14695981039346656037ull ^ seed; // FNV-1a offset basis
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string fingerprintHex(std::string_view bytes) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016" PRIx64, fingerprint(bytes));
  return hex;
}

} // namespace amp::train
