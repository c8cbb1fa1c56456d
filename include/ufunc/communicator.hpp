// ufunc::communicator: the processes (ranks) a sharded array spans when a job
// runs one process per GPU or per host (mpiexec, srun). This header needs no MPI:
// a communicator is made by ufunc/mpi.hpp (`ufunc::mpi_communicator`), which is
// the only header that includes <mpi.h>, or without MPI by
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
#include "error.hpp"

namespace ufunc {
namespace detail {

/// What a communicator's collectives run on. Every member but rank/size is
/// collective: every rank calls it, in the same order.
struct comm_transport {
  virtual ~comm_transport() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// This rank's index among the ranks on its host (which GPU it takes).
  virtual int local_rank() const noexcept = 0;
  /// recv[r * bytes, (r + 1) * bytes) = rank r's send (`bytes` equal on every
  /// rank); communication_error when the transport fails.
  virtual void allgather(const void* send, std::size_t bytes, void* recv) const = 0;
  /// On `root`, recv[r * bytes, (r + 1) * bytes) = rank r's send; recv unused elsewhere.
  virtual void gather(const void* send, std::size_t bytes, void* recv, int root) const = 0;
  /// recv = root's send[rank * bytes, (rank + 1) * bytes); send unused off the root.
  virtual void scatter(const void* send, std::size_t bytes, void* recv, int root) const = 0;
  /// Ends this rank and, with it, the job (the last resort: MPI_Abort; over files
  /// the others' next collective throws).
  virtual void abort(int code) const noexcept = 0;

  /// State a backend keeps per communicator (an NCCL communicator per device),
  /// made by make() on first use and freed with the transport.
  template <class Make>
  std::shared_ptr<void> attachment(int key, Make&& make) const {
    std::lock_guard<std::mutex> lock(attached_mutex_);
    auto it = attached_.find(key);
    if (it == attached_.end()) it = attached_.emplace(key, make()).first;
    return it->second;
  }

 private:
  mutable std::mutex attached_mutex_;
  mutable std::map<int, std::shared_ptr<void>> attached_;
};

}  // namespace detail

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
