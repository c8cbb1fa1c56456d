// ufunc::mpi_communicator: a ufunc::communicator over the ranks of an MPI
// communicator, for sharded arrays across processes (one shard per rank). With
// its detail/mpi_transport.hpp, the only ufunc header that includes <mpi.h>:
// programs that do not use MPI do not depend on it. Link the program with MPI
// (CMake: MPI::MPI_CXX).
#pragma once

#include <mpi.h>

#include <memory>

#include "communicator.hpp"
#include "detail/mpi_transport.hpp"  // the transport (detail::)
#include "error.hpp"

namespace ufunc {

/// A communicator over the ranks of `comm` (collective over `comm`; MPI must be
/// initialised, and stay so while the communicator, or any device set or
/// sharded array made over it, lives). The library works on its own duplicate
/// of `comm`.
inline communicator mpi_communicator(MPI_Comm comm = MPI_COMM_WORLD) {
  return communicator(std::make_shared<const detail::mpi_transport>(comm));
}

}  // namespace ufunc
