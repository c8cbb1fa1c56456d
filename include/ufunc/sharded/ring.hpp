// Pairwise reductions with both operands sharded (issue 40): the y operands,
// sharded along the call's reduced axis (their axis 0 is axis k > 0 of the
// call), are not replicated; each device or rank reduces its own x_i against
// one y block at a time, the blocks taken in global order (the order of the
// shards of y: block b is shard b in one process, rank b's rows across
// processes), and the block partials are folded in that order
// (sharded/engine.hpp, ring_fold). This file moves the blocks:
// - one process, host shards: shard i reads block b where it is (no copy);
// - one process, GPUs: block b is copied from device b into one buffer on
//   device i (a peer copy on device i's sharded stream, behind the previous
//   block's work), so a device holds its own block and one other;
// - across processes: block b is broadcast from rank b (every rank calls the
//   broadcast of every block, in order: a collective per block); host shards
//   receive it in one host buffer, GPU shards in one host staging buffer and
//   one device buffer, their own block kept on the host once for sending. The
//   broadcast of block b + 1 runs on the CPU while the GPU works on block b.
// ring_slot holds one sharded leaf of such a call as a view per local shard (a
// row operand's own shard, or a y operand's current block); ring_in is the
// prepared argument pick_arg hands to the per-shard call.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../communicator.hpp"
#include "../config.hpp"
#include "../detail/memory.hpp"
#include "../detail/shard_streams.hpp"
#include "../detail/sharded.hpp"
#include "../sharded_array.hpp"
#include "../stream.hpp"
#include "../vec.hpp"

namespace ufunc::detail {

#if defined(UFUNC_TESTING)
namespace testing {
/// Test-only: the most bytes one y operand's slot held for blocks for one local
/// shard (its device buffer, and across processes the host memory; the shard
/// itself not counted) since the last reset (tests/ring_cases.hpp checks the
/// memory bound with it).
inline std::atomic<std::size_t>& ring_slot_peak() {
  static std::atomic<std::size_t> v{0};
  return v;
}
}  // namespace testing
#endif

/// One block of the y operands: its owner (a shard index in one process, a
/// rank across processes), its rows and its first row along the reduced axis.
struct ring_block {
  int owner;
  index_t rows, first;
};

/// The non-empty blocks of y operands whose shards (or ranks) hold `rows`, in
/// global order, and the rows of the largest.
inline std::vector<ring_block> ring_blocks(const std::vector<index_t>& rows, index_t& most) {
  std::vector<ring_block> b;
  index_t first = 0;
  most = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k] > 0) b.push_back({static_cast<int>(k), rows[k], first});
    first += rows[k];
    most = rows[k] > most ? rows[k] : most;
  }
  return b;
}

/// A sharded leaf of a call over y blocks, as the per-shard calls read it.
struct ring_slot_base {
  virtual ~ring_slot_base() = default;
  /// Whether it is a y operand (its blocks travel); else a row operand, each
  /// local shard reading its own shard.
  virtual bool moves() const noexcept = 0;
  /// In one process: shard i (its device current, stream st) reads block
  /// `owner` (shard owner's rows); `most` rows size the buffer.
  virtual void bring(int i, int owner, index_t rows, index_t most, stream_ref st) = 0;
  /// Across processes, GPU shards: this rank's block copied to host memory, once,
  /// before any block's work (it is broadcast from there).
  virtual void stage_own() = 0;
  /// Across processes: block `owner` (rank owner's rows) broadcast from that rank
  /// (collective: every rank calls it for every block, in order).
  virtual void post(const communicator& c, int owner, index_t rows, index_t most) = 0;
  /// Across processes, after post: the block where the local shard reads it (GPU
  /// shards: copied from the host to the device buffer on st, waited for).
  virtual void land(bool mine, index_t rows, index_t most, stream_ref st) = 0;
};

template <class T, class Tg>
class ring_slot final : public ring_slot_base {
 public:
  ring_slot(const sharded_array<T, Tg>& a, bool moves)
      : a_(a), moves_(moves), cur_(a.shards().size()), buf_(a.shards().size()) {
    for (std::size_t i = 0; i < cur_.size(); ++i) cur_[i] = a.shard(static_cast<int>(i)).view();
    row_ = 1;
    for (int k = 1; k < a.shape().size(); ++k) row_ *= a.shape()[k];
  }
  ring_slot(const ring_slot&) = delete;
  ring_slot& operator=(const ring_slot&) = delete;
  ~ring_slot() override {
    for (std::size_t i = 0; i < buf_.size(); ++i) {
      if (!buf_[i].data()) continue;
      try {
        device_guard<Tg> g(a_.devices()[static_cast<int>(i)]);
        buf_[i] = array<T, Tg>();
      } catch (...) {
        buf_[i] = array<T, Tg>();
      }
    }
  }

  /// What local shard i reads now.
  array_view<const T, Tg> at(int i) const { return cur_[static_cast<std::size_t>(i)]; }
  bool moves() const noexcept override { return moves_; }

  void bring(int i, int owner, index_t rows, index_t most, stream_ref st) override {
    const auto& src = a_.shard(owner);
    if constexpr (!target_traits<Tg>::is_device) {
      (void)rows, (void)most, (void)st;
      cur_[static_cast<std::size_t>(i)] = src.view();
    } else {
      if (owner == i) {
        cur_[static_cast<std::size_t>(i)] = src.view();
        return;
      }
      T* dst = buffer(i, most, st);
      runtime<Tg>::copy_any(dst, src.data(), bytes(rows), st.get());  // peer copy, behind the previous block's work
      cur_[static_cast<std::size_t>(i)] = view_of(dst, rows);
    }
  }

  void stage_own() override {
    if constexpr (target_traits<Tg>::is_device) {
      const auto& mine = a_.shard(0);
      own_.reserve(static_cast<std::size_t>(mine.size()));
      held();
      memory<Tg>::copy_to_host(own_.data(), mine.data(), static_cast<std::size_t>(mine.size()) * sizeof(T),
                               shard_stream<Tg>(a_.devices()[0]));
    }
  }

  void post(const communicator& c, int owner, index_t rows, index_t most) override {
    const std::size_t n = bytes(rows);
    if (owner == c.rank()) {
      if constexpr (target_traits<Tg>::is_device) {
        own_.reserve(static_cast<std::size_t>(rows * row_));  // (staging failed: sent all the same, then reported)
        c.broadcast_bytes(own_.data(), n, owner);
      } else {
        c.broadcast_bytes(const_cast<T*>(a_.shard(0).data()), n, owner);  // read only on the root
        cur_[0] = a_.shard(0).view();
      }
      return;
    }
    host_.reserve(static_cast<std::size_t>(most * row_));
    held();
    c.broadcast_bytes(host_.data(), n, owner);
    if constexpr (!target_traits<Tg>::is_device) cur_[0] = view_of(host_.data(), rows);
  }

  void land(bool mine, index_t rows, index_t most, stream_ref st) override {
    if constexpr (target_traits<Tg>::is_device) {
      if (mine) {
        cur_[0] = a_.shard(0).view();
        return;
      }
      T* dst = buffer(0, most, st);
      memory<Tg>::copy_from_host(dst, host_.data(), bytes(rows), st);  // behind the previous block's work
      sync_stream<Tg>(st);  // (the next post writes host_)
      cur_[0] = view_of(dst, rows);
    } else {
      (void)mine, (void)rows, (void)most, (void)st;
    }
  }

 private:
  std::size_t bytes(index_t rows) const { return static_cast<std::size_t>(rows * row_) * sizeof(T); }
  array_view<const T, Tg> view_of(const T* p, index_t rows) const {
    return array_view<const T, Tg>(p, with_rows(a_.shape(), rows));
  }
  /// Local shard i's block buffer (`most` rows), made on first use (device i current).
  T* buffer(int i, index_t most, stream_ref st) {
    auto& b = buf_[static_cast<std::size_t>(i)];
    if (!b.data()) {
      b = array<T, Tg>(with_rows(a_.shape(), most), st);
      held();
    }
    return b.data();
  }
  /// (UFUNC_TESTING: what this slot holds, into ring_slot_peak.)
  void held() noexcept {
#if defined(UFUNC_TESTING)
    std::size_t dev = 0;  // the largest of the local shards' device buffers
    for (const auto& b : buf_) dev = std::max(dev, static_cast<std::size_t>(b.size()) * sizeof(T));
    const std::size_t n = (host_.n + own_.n) * sizeof(T) + dev;
    auto& peak = testing::ring_slot_peak();
    for (std::size_t p = peak.load(); n > p && !peak.compare_exchange_weak(p, n);) {
    }
#endif
  }

  const sharded_array<T, Tg>& a_;
  bool moves_;
  index_t row_ = 1;  ///< elements of one row (axis 0) of the leaf
  std::vector<array_view<const T, Tg>> cur_;  ///< per local shard
  std::vector<array<T, Tg>> buf_;             ///< per local shard: one block (GPUs)
  /// Host memory for a block (any T: std::vector<bool> has no data()).
  struct host_block {
    std::unique_ptr<T[]> p;
    std::size_t n = 0;
    void reserve(std::size_t k) {
      if (k > n) p.reset(new T[k]), n = k;
    }
    T* data() noexcept { return p.get(); }
  };
  host_block host_;  ///< across processes: a received block
  host_block own_;   ///< across processes, GPUs: this rank's block on the host
};

/// A sharded leaf of a call over y blocks as prepared for the per-shard calls:
/// pick_arg (sharded/engine.hpp) gives shard i's view (vec<D> of it when D > 0).
template <class T, class Tg, int D>
struct ring_in {
  std::shared_ptr<ring_slot<T, Tg>> slot;
  auto pick(int i) const {
    if constexpr (D > 0)
      return ufunc::vec<D>(slot->at(i));
    else
      return slot->at(i);
  }
};
template <class P>
struct is_ring_in : std::false_type {};
template <class T, class Tg, int D>
struct is_ring_in<ring_in<T, Tg, D>> : std::true_type {};

template <int D, class T, class Tg>
ring_in<T, Tg, D> make_ring_in(const sharded_array<T, Tg>& a, bool moves,
                               std::vector<std::shared_ptr<ring_slot_base>>& slots) {
  auto s = std::make_shared<ring_slot<T, Tg>>(a, moves);
  slots.push_back(s);
  return {std::move(s)};
}

/// The blocks of a call's y operands and the moves of every y leaf.
template <class Target>
class ring_run {
 public:
  ring_run(const device_set& d, const std::vector<index_t>& ring_rows, std::vector<std::shared_ptr<ring_slot_base>> slots)
      : d_(d), slots_(std::move(slots)) {
    blocks_ = ring_blocks(ring_rows, most_);
  }
  const std::vector<ring_block>& blocks() const noexcept { return blocks_; }

  /// One process: shard i reads block b.
  void bring(int i, const ring_block& b, stream_ref st) {
    for (auto& s : slots_)
      if (s->moves()) s->bring(i, b.owner, b.rows, most_, st);
  }
  /// Across processes: this rank's block staged on the host (GPU shards).
  void stage_own() {
    if constexpr (target_traits<Target>::is_device) {
      index_t mine = 0;
      for (const auto& b : blocks_)
        if (b.owner == d_.rank()) mine = b.rows;
      if (mine == 0) return;
      device_guard<Target> g(d_[0]);
      for (auto& s : slots_)
        if (s->moves()) s->stage_own();
    }
  }
  /// Across processes: block b from its rank to every rank (collective).
  void post(const ring_block& b) {
    for (auto& s : slots_)
      if (s->moves()) s->post(d_.comm(), b.owner, b.rows, most_);
  }
  /// Across processes: block b where the local shard reads it.
  void land(const ring_block& b, stream_ref st) {
    for (auto& s : slots_)
      if (s->moves()) s->land(b.owner == d_.rank(), b.rows, most_, st);
  }

 private:
  const device_set& d_;
  std::vector<std::shared_ptr<ring_slot_base>> slots_;
  std::vector<ring_block> blocks_;
  index_t most_ = 0;
};

}  // namespace ufunc::detail
