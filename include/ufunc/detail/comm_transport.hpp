// What a ufunc::communicator (communicator.hpp) runs its collectives on: the
// transport interface the MPI (detail/mpi_transport.hpp) and file
// (detail/file_transport.hpp) transports implement.
#pragma once

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

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
  /// data (bytes) = root's data on every rank. This default scatters size()
  /// copies from the root (a transport with a broadcast of its own overrides it).
  virtual void broadcast(void* data, std::size_t bytes, int root) const {
    const bool here = rank() == root;
    std::vector<unsigned char> all(here ? bytes * static_cast<std::size_t>(size()) : 0), mine(bytes);
    if (here && bytes)
      for (int r = 0; r < size(); ++r) std::memcpy(all.data() + static_cast<std::size_t>(r) * bytes, data, bytes);
    scatter(all.data(), bytes, mine.data(), root);
    if (!here && bytes) std::memcpy(data, mine.data(), bytes);
  }
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
  /// Forgets the state kept under `key` (freed when its last user lets go): the
  /// next attachment(key, make) makes it anew.
  void detach(int key) const {
    std::lock_guard<std::mutex> lock(attached_mutex_);
    attached_.erase(key);
  }

 private:
  mutable std::mutex attached_mutex_;
  mutable std::map<int, std::shared_ptr<void>> attached_;
};

}  // namespace detail
}  // namespace ufunc
