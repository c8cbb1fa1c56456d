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

  int size() const noexcept { return static_cast<int>(ids_.size()); }
  int operator[](int i) const { return ids_[static_cast<std::size_t>(i)]; }
  const std::vector<int>& ids() const noexcept { return ids_; }
  /// "{0,1}".
  std::string str() const { return detail::ids_str(ids_); }
  friend bool operator==(const device_set& a, const device_set& b) { return a.ids_ == b.ids_; }
  friend bool operator!=(const device_set& a, const device_set& b) { return !(a == b); }

 private:
  std::vector<int> ids_;
};

/// An N-d array (rank >= 1) split along axis 0 into one contiguous shard per
/// device of a `device_set`: shard i is an ordinary `ufunc::array` in device
/// i's memory holding rows [row_offset(i), row_offset(i) + rows(i)), allocated
/// on that device's sharded stream. Made by `ufunc::shard`, `ufunc::empty`,
/// `ufunc::zeros`, `ufunc::full` (given a device_set) or `from_shards`, and by
/// the sharded operations (sharded.hpp). Move-only like `array`. (One case has
/// rank 0: a reduction over every axis given `axes`/`keepdims`-style controls
/// returns its 0-d result as one shard on the first device.)
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
      shards_ = std::move(o.shards_);
    }
    return *this;
  }
  sharded_array(const sharded_array&) = delete;
  sharded_array& operator=(const sharded_array&) = delete;
  ~sharded_array() { release(); }

  /// Takes shards made by the caller, one per device of `d` in its order, each
  /// in that device's memory (allocated with the device current; on its
  /// sharded stream, or synchronised with it): their ranks and dims after
  /// axis 0 must agree (any rows each: an uneven split of the caller's choice).
  static sharded_array from_shards(device_set d, std::vector<shard_type> shards) {
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

  /// The global shape (axis 0 is the sum of the shards' rows).
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
  /// Rows of each shard, and the first global row of each.
  const std::vector<index_t>& rows() const noexcept { return rows_; }
  std::vector<index_t> row_offsets() const { return detail::row_offsets(rows_); }
  /// "(7,3) over devices {0,1,2} as rows {3,2,2}".
  std::string sharding() const { return detail::sharding_str(shape_, devices_.ids(), rows_); }

  /// All elements in row-major order on the host (waits for each shard's stream).
  std::vector<T> to_host() const {
    static_assert(!std::is_same_v<T, bool>, "ufunc::sharded_array<bool>::to_host: use char elements");
    std::vector<T> h(static_cast<std::size_t>(size()));
    std::size_t at = 0;
    for (std::size_t i = 0; i < shards_.size(); ++i) {
      detail::device_guard<Target> g(devices_[static_cast<int>(i)]);
      const std::size_t n = static_cast<std::size_t>(shards_[i].size());
      detail::memory<Target>::copy_to_host(h.data() + at, shards_[i].data(), n * sizeof(T), shards_[i].stream());
      at += n;
    }
    return h;
  }

 private:
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
  std::vector<shard_type> shards_;
};

}  // namespace ufunc
