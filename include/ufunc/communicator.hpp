// ufunc::communicator: the processes (ranks) a sharded array spans when a job
// runs one process per GPU or per host (mpiexec, srun). This header needs no MPI:
// a communicator is made by ufunc/mpi.hpp (`ufunc::mpi_communicator`), which
// with its detail/mpi_transport.hpp alone includes <mpi.h>, or without MPI by
// ufunc/file_communicator.hpp (files in a shared directory). A default-constructed
// communicator is this process alone.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "detail/comm_transport.hpp"  // the transport interface (detail::)
#include "error.hpp"

namespace ufunc {

/// The ranks taking part in sharded operations across processes: one shard per
/// rank (`ufunc::device_set(comm)`). Copies share the same transport. Made by
/// `ufunc::mpi_communicator(MPI_Comm)` (ufunc/mpi.hpp) or `ufunc::file_communicator`
/// / `ufunc::communicator_from_env()` (ufunc/file_communicator.hpp); default-constructed, it
/// is this process alone (rank 0 of 1). The transport must outlive every array
/// and device set made over it, and (MPI) MPI must stay initialised meanwhile.
class communicator {
 public:
  communicator() = default;
  explicit communicator(std::shared_ptr<const detail::comm_transport> t) : t_(std::move(t)) {}

  /// This process's rank, 0 .. size() - 1.
  int rank() const noexcept { return t_ ? t_->rank() : 0; }
  /// The number of ranks.
  int size() const noexcept { return t_ ? t_->size() : 1; }
  /// This rank's index among the ranks on the same host.
  int local_rank() const noexcept { return t_ ? t_->local_rank() : 0; }
  /// Whether this spans processes (made over a transport), even one.
  bool spans_processes() const noexcept { return t_ != nullptr; }

  /// Every rank's `x`, in rank order (collective; T trivially copyable).
  template <class T>
  std::vector<T> allgather(const T& x) const {
    static_assert(std::is_trivially_copyable_v<T>, "ufunc::communicator::allgather: a trivially copyable value");
    std::vector<T> all(static_cast<std::size_t>(size()));
    allgather_bytes(&x, sizeof(T), all.data());
    return all;
  }
  /// recv[r * bytes, (r + 1) * bytes) = rank r's `bytes` bytes at `send`
  /// (collective; `bytes` equal on every rank; recv holds size() * bytes).
  void allgather_bytes(const void* send, std::size_t bytes, void* recv) const {
    if (t_)
      t_->allgather(send, bytes, recv);
    else if (bytes)
      std::memcpy(recv, send, bytes);
  }
  /// On `root`, recv (size() * bytes) gets every rank's `bytes` bytes at `send`,
  /// in rank order; elsewhere recv is not touched (collective).
  void gather_bytes(const void* send, std::size_t bytes, void* recv, int root) const {
    if (t_)
      t_->gather(send, bytes, recv, root);
    else if (bytes)
      std::memcpy(recv, send, bytes);
  }
  /// recv (bytes) gets bytes [rank * bytes, (rank + 1) * bytes) of root's `send`
  /// (size() * bytes there; not read elsewhere; collective).
  void scatter_bytes(const void* send, std::size_t bytes, void* recv, int root) const {
    if (t_)
      t_->scatter(send, bytes, recv, root);
    else if (bytes)
      std::memcpy(recv, send, bytes);
  }
  /// `bytes` bytes at `data` on every rank = root's (collective; `bytes` equal on every rank).
  void broadcast_bytes(void* data, std::size_t bytes, int root) const {
    if (t_) t_->broadcast(data, bytes, root);
  }
  /// Ends every rank of the job (MPI_Abort; over files this rank exits with `code`
  /// and each other rank's next collective throws); this process alone without a transport.
  [[noreturn]] void abort(int code) const noexcept {
    if (t_) t_->abort(code);
    std::abort();
  }

  /// The transport (null for this process alone): for the backends' collectives.
  const detail::comm_transport* transport() const noexcept { return t_.get(); }

  friend bool operator==(const communicator& a, const communicator& b) noexcept { return a.t_ == b.t_; }
  friend bool operator!=(const communicator& a, const communicator& b) noexcept { return !(a == b); }

 private:
  std::shared_ptr<const detail::comm_transport> t_;
};

}  // namespace ufunc
