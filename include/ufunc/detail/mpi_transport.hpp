// The MPI transport behind ufunc::mpi_communicator (mpi.hpp, which alone includes
// this header): every collective of ufunc::communicator as the MPI call of the
// same name on a duplicated communicator, MPI errors as communication_error.
#pragma once

#include <mpi.h>
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../communicator.hpp"
#include "../error.hpp"

namespace ufunc {
namespace detail {

/// The communicator's collectives as MPI calls on a duplicate of the caller's
/// communicator (the library's messages never match the caller's), which
/// returns errors instead of aborting (MPI_ERRORS_RETURN): they become
/// communication_error.
class mpi_transport final : public comm_transport {
 public:
  explicit mpi_transport(MPI_Comm comm) {
    int init = 0;
    MPI_Initialized(&init);
    if (!init) throw value_error("ufunc::mpi_communicator: MPI is not initialised (call MPI_Init first)");
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm node;  // the ranks sharing this host's memory: the local rank picks a GPU
    check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    MPI_Comm_rank(node, &local_);
    MPI_Comm_free(&node);
  }
  ~mpi_transport() override {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&comm_);
  }
  mpi_transport(const mpi_transport&) = delete;
  mpi_transport& operator=(const mpi_transport&) = delete;

  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  int local_rank() const noexcept override { return local_; }

  void allgather(const void* send, std::size_t bytes, void* recv) const override {
    // MPI counts are int: pieces of at most 1 GiB per rank.
    pieces(bytes, recv, true, [&](std::size_t off, int n, void* into) {
      check(MPI_Allgather(static_cast<const unsigned char*>(send) + off, n, MPI_BYTE, into, n, MPI_BYTE, comm_),
            "MPI_Allgather");
    });
  }
  void gather(const void* send, std::size_t bytes, void* recv, int root) const override {
    pieces(bytes, recv, root == rank_, [&](std::size_t off, int n, void* into) {
      check(MPI_Gather(static_cast<const unsigned char*>(send) + off, n, MPI_BYTE, into, n, MPI_BYTE, root, comm_),
            "MPI_Gather");
    });
  }
  void scatter(const void* send, std::size_t bytes, void* recv, int root) const override {
    constexpr std::size_t piece = std::size_t(1) << 30;  // per rank (MPI counts are int)
    if (bytes <= piece) {
      check(MPI_Scatter(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE, root, comm_),
            "MPI_Scatter");
      return;
    }
    std::vector<unsigned char> tmp(root == rank_ ? piece * static_cast<std::size_t>(size_) : 0);
    for (std::size_t off = 0; off < bytes; off += piece) {
      const std::size_t n = std::min(piece, bytes - off);
      if (root == rank_)  // each rank's part of this piece, packed in rank order
        for (int r = 0; r < size_; ++r)
          std::memcpy(tmp.data() + static_cast<std::size_t>(r) * n,
                      static_cast<const unsigned char*>(send) + static_cast<std::size_t>(r) * bytes + off, n);
      check(MPI_Scatter(tmp.data(), static_cast<int>(n), MPI_BYTE, static_cast<unsigned char*>(recv) + off,
                        static_cast<int>(n), MPI_BYTE, root, comm_),
            "MPI_Scatter");
    }
  }
  void broadcast(void* data, std::size_t bytes, int root) const override {
    constexpr std::size_t piece = std::size_t(1) << 30;  // MPI counts are int
    for (std::size_t off = 0; off < bytes; off += piece)
      check(MPI_Bcast(static_cast<unsigned char*>(data) + off, static_cast<int>(std::min(piece, bytes - off)), MPI_BYTE,
                      root, comm_),
            "MPI_Bcast");
  }
  void abort(int code) const noexcept override { MPI_Abort(comm_, code); }

 private:
  /// Runs step(offset, n, into) over pieces of at most 1 GiB per rank of a
  /// collective whose result (size() * bytes at recv, where `receives`) is in
  /// rank order: a piece lands in a buffer first when there are several.
  template <class Step>
  void pieces(std::size_t bytes, void* recv, bool receives, Step&& step) const {
    constexpr std::size_t piece = std::size_t(1) << 30;
    if (bytes <= piece) {
      step(0, static_cast<int>(bytes), recv);
      return;
    }
    std::vector<unsigned char> tmp(receives ? piece * static_cast<std::size_t>(size_) : 0);
    for (std::size_t off = 0; off < bytes; off += piece) {
      const std::size_t n = std::min(piece, bytes - off);
      step(off, static_cast<int>(n), tmp.data());
      if (receives)
        for (int r = 0; r < size_; ++r)
          std::memcpy(static_cast<unsigned char*>(recv) + static_cast<std::size_t>(r) * bytes + off,
                      tmp.data() + static_cast<std::size_t>(r) * n, n);
    }
  }
  static void check(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw communication_error(std::string("ufunc: ") + call + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_ = 0;
};

}  // namespace detail
}  // namespace ufunc
