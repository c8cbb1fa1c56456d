// ufunc::device_set and ufunc::sharded_array: an N-d array split along axis 0
// into one contiguous shard per device. A vocabulary header: the types, their
// per-device streams and the device guard; the operations on them (factories,
// elementwise calls, reductions, matmul) are in sharded.hpp.
#pragma once

#include <initializer_list>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "communicator.hpp"
#include "config.hpp"
#include "detail/arg_traits.hpp"
#include "detail/memory.hpp"
#include "detail/sharded.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "detail/shard_streams.hpp"  // its pieces (detail::)

namespace ufunc {

/// The devices an array is sharded over, in shard order: `device_set{0, 1}`, or
/// default-constructed, every visible CUDA device (on the host backend, one host
/// shard, {0}). On the host target the ids only label host shards (any
/// distinct non-negative ids: `device_set{0, 1, 2}` makes three shards in host
/// memory, which is how the sharded code paths are tested without GPUs). The
/// ids are checked (range, repeats, NCCL for more than one GPU) when an array
/// is made over the set, before anything is allocated.
class device_set {
 public:
  device_set() : ids_(detail::runtime<target::device>::default_device_ids()) {}
  device_set(std::initializer_list<int> ids) : ids_(ids) {}
  explicit device_set(std::vector<int> ids) : ids_(std::move(ids)) {}
  /// A device set spanning the ranks of `comm`, one shard per rank (a job of
  /// one process per GPU or host: ufunc/mpi.hpp makes the communicator). This
  /// rank's shard is on `device`; by default (-1) its local rank modulo the
  /// visible devices (on the host target, host shard 0). `ids()` lists this
  /// rank's device only, `ranks()` the ranks. On GPUs, make that device current
  /// in the rank's threads (the CUDA runtime's set-device call on set[0]), so
  /// that plain arrays the rank makes are there too.
  explicit device_set(communicator comm, int device = -1) : ids_{device}, comm_(std::move(comm)) {
    if (device < 0) {
      const int n = static_cast<int>(detail::runtime<target::device>::default_device_ids().size());
      ids_[0] = comm_.local_rank() % (n > 0 ? n : 1);
    }
  }

  /// The devices of this process's shards (one per device).
  int size() const noexcept { return static_cast<int>(ids_.size()); }
  int operator[](int i) const { return ids_[static_cast<std::size_t>(i)]; }
  const std::vector<int>& ids() const noexcept { return ids_; }
  /// The communicator a set made over one spans (else this process alone).
  const ufunc::communicator& comm() const noexcept { return comm_; }
  /// Whether the set spans the ranks of a communicator (one shard per rank).
  bool spans_processes() const noexcept { return comm_.spans_processes(); }
  /// The ranks the set spans (1 in one process) and this process's rank.
  int ranks() const noexcept { return comm_.size(); }
  int rank() const noexcept { return comm_.rank(); }
  /// "{0,1}"; over a communicator "{0} on rank 1 of 3".
  std::string str() const {
    std::string s = detail::ids_str(ids_);
    if (spans_processes()) s += " on rank " + std::to_string(rank()) + " of " + std::to_string(ranks());
    return s;
  }
  friend bool operator==(const device_set& a, const device_set& b) { return a.ids_ == b.ids_ && a.comm_ == b.comm_; }
  friend bool operator!=(const device_set& a, const device_set& b) { return !(a == b); }

 private:
  std::vector<int> ids_;
  ufunc::communicator comm_;
};

template <class T, class Target>
class sharded_array;
namespace detail {
/// The engine's way to make a sharded array whose every rank's rows it knows
/// (the inputs' split), without the collective of from_shards.
struct sharded_access {
  template <class T, class Target>
  static sharded_array<T, Target> assemble(device_set d, std::vector<array<T, Target>> shards,
                                           const std::vector<index_t>& global_rows);
  /// The same in one process (shards complete: made on the sharded streams, drained).
  template <class T, class Target>
  static sharded_array<T, Target> assemble(device_set d, std::vector<array<T, Target>> shards) {
    return sharded_array<T, Target>::adopt(std::move(d), std::move(shards));
  }
};
}  // namespace detail

/// An N-d array (rank >= 1) split along axis 0 into one contiguous shard per
/// device of a `device_set`: shard i is an ordinary `ufunc::array` in device
/// i's memory holding rows [row_offset(i), row_offset(i) + rows(i)), allocated
/// on that device's sharded stream. Made by `ufunc::shard`, `ufunc::empty`,
/// `ufunc::zeros`, `ufunc::full` (given a device_set) or `from_shards`, and by
/// the sharded operations (sharded.hpp). Move-only like `array`. (One case has
/// rank 0: a reduction over every axis given `axes`/`keepdims`-style controls
/// returns its 0-d result as one shard on the first device.)
///
/// Over a device set that spans processes (`device_set(comm)`), each rank holds
/// its own shard only: `shards()`, `rows()` are this rank's, `shape()` and
/// `global_rows()` the whole array's, and every operation on it is collective
/// (every rank calls it, in the same order).
template <class T, class Target>
class sharded_array {
 public:
  using value_type = T;
  using target_type = Target;
  using shard_type = array<T, Target>;

  sharded_array() = default;
  sharded_array(sharded_array&&) noexcept = default;
  sharded_array& operator=(sharded_array&& o) noexcept {
    if (this != &o) {
      release();
      shape_ = o.shape_;
      devices_ = std::move(o.devices_);
      rows_ = std::move(o.rows_);
      global_rows_ = std::move(o.global_rows_);
      shards_ = std::move(o.shards_);
    }
    return *this;
  }
  sharded_array(const sharded_array&) = delete;
  sharded_array& operator=(const sharded_array&) = delete;
  ~sharded_array() { release(); }

  /// Takes shards made by the caller, one per device of `d` in its order, each
  /// in that device's memory (allocated with the device current): their ranks
  /// and dims after axis 0 must agree (any rows each: an uneven split of the
  /// caller's choice). Waits for each shard's own stream (`array::stream()`, on
  /// which `asarray`/`to_device` copy), so that the sharded streams read them
  /// complete; work the caller enqueued on other streams must be done first.
  /// Over a set spanning processes each rank passes its own shard (collective:
  /// the ranks exchange their rows, and shape_error on every rank when their
  /// dims after axis 0 differ).
  static sharded_array from_shards(device_set d, std::vector<shard_type> shards) {
    for (const auto& sh : shards) detail::sync_stream<Target>(sh.stream());
    if (!d.spans_processes()) return adopt(std::move(d), std::move(shards));
    auto s = adopt(device_set(d.ids()), std::move(shards));
    auto rows = s.exchange_rows(d, "ufunc::sharded_array::from_shards");
    s.span(std::move(d), std::move(rows));
    return s;
  }

 private:
  /// The shards of this process as the array's (checks, rows, shape), no wait.
  static sharded_array adopt(device_set d, std::vector<shard_type> shards) {
    if (static_cast<int>(shards.size()) != d.size())
      throw shape_error("ufunc::sharded_array::from_shards: " + std::to_string(shards.size()) + " shards for " +
                        std::to_string(d.size()) + " devices " + d.str());
    detail::check_device_ids(d.ids(), -1, "ufunc::sharded_array::from_shards");
    sharded_array s;
    if (shards.size() == 1 && shards[0].ndim() == 0) {  // a reduction's 0-d result on one device
      s.rows_.push_back(1);
      s.shape_ = shards[0].shape();
      s.devices_ = std::move(d);
      s.shards_ = std::move(shards);
      return s;
    }
    index_t n = 0;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      const ufunc::shape& si = shards[i].shape();
      const ufunc::shape& s0 = shards[0].shape();
      bool same = si.size() == s0.size() && si.size() >= 1;
      for (int k = 1; same && k < si.size(); ++k) same = si[k] == s0[k];
      if (!same)
        throw shape_error("ufunc::sharded_array::from_shards: shard " + std::to_string(i) + " has shape " + si.str() +
                          " but shard 0 has " + s0.str() + " (shards differ in axis 0 only, rank >= 1)");
      s.rows_.push_back(si[0]);
      n += si[0];
    }
    s.shape_ = detail::with_rows(shards[0].shape(), n);
    s.devices_ = std::move(d);
    s.shards_ = std::move(shards);
    return s;
  }
  /// This process's part made the part of an array over `d` (a set spanning
  /// processes) whose every rank's rows are `global_rows`.
  void span(device_set d, std::vector<index_t> global_rows) {
    devices_ = std::move(d);
    global_rows_ = std::move(global_rows);
    shape_[0] = 0;
    for (index_t r : global_rows_) shape_[0] += r;
  }

 public:
  /// The global shape (axis 0 is the sum of the shards' rows, over every rank).
  const ufunc::shape& shape() const noexcept { return shape_; }
  index_t size() const noexcept { return shape_.count(); }
  int ndim() const noexcept { return shape_.size(); }
  const device_set& devices() const noexcept { return devices_; }
  int num_shards() const noexcept { return static_cast<int>(shards_.size()); }
  /// The shards, in device order (shard i on devices()[i]).
  std::vector<shard_type>& shards() noexcept { return shards_; }
  const std::vector<shard_type>& shards() const noexcept { return shards_; }
  shard_type& shard(int i) { return shards_.at(static_cast<std::size_t>(i)); }
  const shard_type& shard(int i) const { return shards_.at(static_cast<std::size_t>(i)); }
  /// Rows of each of this process's shards, and the first global row of each.
  const std::vector<index_t>& rows() const noexcept { return rows_; }
  std::vector<index_t> row_offsets() const {
    auto off = detail::row_offsets(rows_);
    if (devices_.spans_processes()) {
      index_t first = 0;
      for (int r = 0; r < devices_.rank(); ++r) first += global_rows_[static_cast<std::size_t>(r)];
      for (auto& o : off) o += first;
    }
    return off;
  }
  /// Rows of every shard of the whole array, in order: rows() in one process,
  /// one entry per rank over a set spanning processes.
  const std::vector<index_t>& global_rows() const noexcept { return devices_.spans_processes() ? global_rows_ : rows_; }
  /// "(7,3) over devices {0,1,2} as rows {3,2,2}"; across processes
  /// "(7,3) over 3 ranks as rows {3,2,2}".
  std::string sharding() const {
    if (devices_.spans_processes())
      return shape_.str() + " over " + std::to_string(devices_.ranks()) + " ranks as rows " +
             detail::rows_str(global_rows_);
    return detail::sharding_str(shape_, devices_.ids(), rows_);
  }

  /// All elements in row-major order on the host (waits for each shard's
  /// stream). Across processes: collective, every rank gets the whole array.
  std::vector<T> to_host() const {
    static_assert(!std::is_same_v<T, bool>, "ufunc::sharded_array<bool>::to_host: use char elements");
    if (devices_.spans_processes()) return gather(-1);
    std::vector<T> h(static_cast<std::size_t>(size()));
    local_to_host(h.data());
    return h;
  }
  /// The whole array on rank `root` only: across processes a gather (collective;
  /// every rank passes the same root; the other ranks get an empty vector). In
  /// one process, to_host() (root 0). value_error for a root out of range or
  /// not the same on every rank.
  std::vector<T> to_host(int root) const {
    static_assert(!std::is_same_v<T, bool>, "ufunc::sharded_array<bool>::to_host: use char elements");
    const int ranks = devices_.ranks();
    if (root < 0 || root >= ranks)
      throw value_error("ufunc::sharded_array::to_host: root " + std::to_string(root) + " for " +
                        std::to_string(ranks) + " ranks");
    if (!devices_.spans_processes()) return to_host();
    for (int r : devices_.comm().allgather(root))
      if (r != root)
        throw value_error("ufunc::sharded_array::to_host: the ranks disagree on the root (" + std::to_string(r) +
                          " and " + std::to_string(root) + ")");
    return gather(root);
  }

 private:
  friend struct detail::sharded_access;

  /// Every rank's rows, exchanged (collective), with a check that the ranks'
  /// shards agree after axis 0.
  std::vector<index_t> exchange_rows(const device_set& d, const char* what) const {
    struct desc {
      index_t rows;
      int ndim;
      index_t dims[9];
    };
    desc mine{};
    mine.rows = shape_.size() > 0 ? shape_[0] : 0;
    mine.ndim = shape_.size();
    for (int k = 1; k < shape_.size() && k < 9; ++k) mine.dims[k] = shape_[k];
    const auto all = d.comm().allgather(mine);
    std::vector<index_t> rows;
    for (std::size_t r = 0; r < all.size(); ++r) {
      bool same = all[r].ndim == mine.ndim;
      for (int k = 1; same && k < mine.ndim && k < 9; ++k) same = all[r].dims[k] == mine.dims[k];
      if (!same || mine.ndim < 1)
        throw shape_error(std::string(what) + ": rank " + std::to_string(r) + "'s shard and rank " +
                          std::to_string(d.rank()) + "'s (shape " + shape_.str() +
                          ") differ after axis 0 or have rank 0 (shards differ in axis 0 only, rank >= 1)");
      rows.push_back(all[r].rows);
    }
    return rows;
  }
  /// This process's shards, one after the other, copied to `dst` (waits for each).
  void local_to_host(T* dst) const {
    std::size_t at = 0;
    for (std::size_t i = 0; i < shards_.size(); ++i) {
      detail::device_guard<Target> g(devices_[static_cast<int>(i)]);
      const std::size_t n = static_cast<std::size_t>(shards_[i].size());
      detail::memory<Target>::copy_to_host(dst + at, shards_[i].data(), n * sizeof(T), shards_[i].stream());
      at += n;
    }
  }
  /// to_host across processes: every rank's shard, padded to the longest row
  /// count, gathered to `root` (the other ranks get an empty vector) or, for a
  /// negative root, to every rank.
  std::vector<T> gather(int root) const {
    const index_t row = shape_.size() > 0 && shape_[0] > 0 ? shape_.count() / shape_[0] : 0;
    const std::size_t per = detail::padded_rank_elements(global_rows_, row);
    const bool here = root < 0 || devices_.rank() == root;
    std::vector<T> mine(per), all(here ? per * global_rows_.size() : 0), h;
    local_to_host(mine.data());
    if (root < 0)
      devices_.comm().allgather_bytes(mine.data(), per * sizeof(T), all.data());
    else
      devices_.comm().gather_bytes(mine.data(), per * sizeof(T), all.data(), root);
    if (!here) return h;
    h.reserve(static_cast<std::size_t>(size()));
    for (std::size_t r = 0; r < global_rows_.size(); ++r)
      h.insert(h.end(), all.begin() + static_cast<std::ptrdiff_t>(r * per),
               all.begin() + static_cast<std::ptrdiff_t>(r * per + static_cast<std::size_t>(global_rows_[r] * row)));
    return h;
  }

  void release() noexcept {
    // Each shard is freed with its device current (its pool's device).
    for (std::size_t i = 0; i < shards_.size(); ++i) {
      try {
        detail::device_guard<Target> g(devices_[static_cast<int>(i)]);
        shards_[i] = shard_type();
      } catch (...) {
        shards_[i] = shard_type();
      }
    }
    shards_.clear();
  }

  ufunc::shape shape_{0};
  device_set devices_{std::vector<int>{}};
  std::vector<index_t> rows_;
  std::vector<index_t> global_rows_;  ///< every rank's rows (a set spanning processes only)
  std::vector<shard_type> shards_;
};

namespace detail {
template <class T, class Target>
sharded_array<T, Target> sharded_access::assemble(device_set d, std::vector<array<T, Target>> shards,
                                                  const std::vector<index_t>& global_rows) {
  // (the engine's shards are complete: made on the sharded streams, drained)
  if (!d.spans_processes()) return sharded_array<T, Target>::adopt(std::move(d), std::move(shards));
  auto s = sharded_array<T, Target>::adopt(device_set(d.ids()), std::move(shards));
  s.span(std::move(d), global_rows);
  return s;
}
}  // namespace detail

}  // namespace ufunc
