// ufunc::file_communicator and ufunc::communicator_from_env: a ufunc::communicator
// without MPI, for launchers that only set environment variables (srun, a shell
// loop). Every collective goes through files in a directory that all ranks see
// (a local directory on one host; NFS or Lustre across hosts). POSIX only;
// nothing else in the library includes this header.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "detail/file_transport.hpp"  // the protocol and transport (detail::)
#include "error.hpp"

namespace ufunc {

/// A communicator of `size` ranks that meet through files in `directory`, a
/// directory every rank sees (created if missing; one per job running at a time;
/// a later job may reuse it). Collective: every rank of the job calls it, with
/// its own `rank` in [0, size) and the same `size` and directory. Each wait
/// (the rendezvous, a collective) ends after `timeout_s` seconds with
/// communication_error naming the ranks not heard from, so a rank that dies makes
/// the others fail instead of hang. local_rank() counts the ranks before this
/// one on the same host (gethostname). Throws value_error for bad arguments.
inline communicator file_communicator(const std::string& directory, int rank, int size, double timeout_s = 300) {
  return communicator(std::make_shared<const detail::file_transport>(directory, rank, size, timeout_s));
}


/// A file_communicator from the environment, for launchers that set variables
/// only. UFUNC_RANK and UFUNC_WORLD_SIZE give the rank and the rank count, or,
/// when neither is set, the first launcher's that is: SLURM_PROCID/SLURM_NTASKS,
/// OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE. UFUNC_RENDEZVOUS
/// is the directory (required). UFUNC_LOCAL_RANK, else the same launcher's local
/// rank (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID), else the
/// host names decide local_rank(); UFUNC_TIMEOUT (seconds, default 300) bounds
/// each wait. Throws value_error naming the missing variables, or a variable
/// whose value is not valid. Reads the environment: do not change it meanwhile.
inline communicator communicator_from_env() {
  struct family {
    const char *rank, *size, *local;
  };
  static const family families[] = {{"UFUNC_RANK", "UFUNC_WORLD_SIZE", "UFUNC_LOCAL_RANK"},
                                     {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
                                     {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
                                     {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"}};
  const family* f = nullptr;
  for (const auto& c : families)  // ufunc's own if either is set, else a launcher's by its rank
    if (std::getenv(c.rank) || (&c == &families[0] && std::getenv(c.size))) {
      f = &c;
      break;
    }
  const char* dir = std::getenv("UFUNC_RENDEZVOUS");
  std::vector<std::string> missing;
  if (!dir || !*dir) missing.push_back("UFUNC_RENDEZVOUS (the directory every rank shares)");
  if (!f) {
    missing.push_back("UFUNC_RANK (or SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK)");
    missing.push_back("UFUNC_WORLD_SIZE (or SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE)");
  } else {
    if (!std::getenv(f->rank)) missing.push_back(f->rank);
    if (!std::getenv(f->size)) missing.push_back(f->size);
  }
  if (!missing.empty()) {
    std::string m = "ufunc::communicator_from_env: not set: ";
    for (std::size_t i = 0; i < missing.size(); ++i) m += (i ? ", " : "") + missing[i];
    throw value_error(m);
  }
  const long long size = detail::env_integer(f->size, std::getenv(f->size), 1, INT32_MAX, "a rank count (>= 1)");
  const std::string in = "in [0, " + std::string(f->size) + "=" + std::to_string(size) + ")";
  const long long rank = detail::env_integer(f->rank, std::getenv(f->rank), 0, size - 1, in);
  long long local = -1;
  const char* local_name = std::getenv("UFUNC_LOCAL_RANK") ? "UFUNC_LOCAL_RANK" : f->local;
  if (const char* v = std::getenv(local_name)) local = detail::env_integer(local_name, v, 0, size - 1, in);
  double timeout = 300;
  if (const char* v = std::getenv("UFUNC_TIMEOUT")) {
    char* end = nullptr;
    timeout = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(timeout > 0) || !std::isfinite(timeout))
      throw value_error(std::string("ufunc::communicator_from_env: UFUNC_TIMEOUT=\"") + v +
                        "\" is not a positive number of seconds");
  }
  return communicator(std::make_shared<const detail::file_transport>(dir, static_cast<int>(rank), static_cast<int>(size),
                                                                     timeout, static_cast<int>(local)));
}

}  // namespace ufunc
