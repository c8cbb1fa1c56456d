// CUDA backend of streamed calls (issue 14): moves host operands through the
// device in chunks planned by detail/stream_plan.hpp, on several streams, so the
// host-to-device copy of chunk k+1, the kernel of chunk k and the device-to-host
// copy of chunk k-1 overlap. Pageable host memory goes through page-locked
// staging buffers that the calling thread (with OpenMP helpers) fills and
// drains while the device works on other chunks (around the CPU caches:
// host/staging_copy.hpp); page-locked memory (a pinned_array, or memory the
// caller registered) is copied directly.
//
// Late outputs: a pageable host output is written only by `drain`, from
// staging, so its memory may arrive late (detail::late_host_outputs): a call
// that allocates its result std::vectors itself constructs them (their zero
// fill is single-threaded) while the first chunks are copied in and computed:
// in a small call on the calling thread, in steps, while the other OpenMP
// threads stage, enqueue and drain the chunks behind the fill (late_build::
// in_team); in a larger one on the process's helper thread
// (host/helper_thread.hpp) or, when that is busy or late_alloc_on_thread is
// off, on the calling thread when the pipeline first asks for their bases,
// once, before the first drain. Its exception (bad_alloc) reaches the caller
// like any other, after the drain.
//
// Resources: staging buffers come from a process-wide cache (page-locked memory
// is slow to allocate), chunk buffers from the device's stream-ordered pool
// (which keeps freed memory cached), streams and events from a per-thread set.
// Nothing is allocated per chunk.
//
// Failures: any error (a CUDA error, out_of_memory) first drains every pipeline
// stream, then returns the staging buffers and frees the chunk buffers, then
// reaches the caller. Inputs are only read. Host outputs then hold the results
// of the chunks copied back before the failure, in order from the first row, and
// whatever they held before (or a partial chunk) after them: when chunk k fails
// to enqueue, a page-locked output holds chunks 0..k-1 (their copies were
// enqueued, and the drain waits for them), a pageable one chunks 0..k-buffers
// (those moved out of staging; the later ones die in their staging blocks).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>
#include <cstddef>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../host/parallel.hpp"
#include "../host/staging_copy.hpp"
#include "../memory.hpp"
#include "../stream_plan.hpp"

namespace ufunc::detail::cuda_stream {

/// Pipeline depth: 3 buffers per moving operand (copy in, compute, copy out).
inline constexpr int buffers = 3;
/// The bounds of target_chunk_bytes; process-wide, read by every streamed call
/// (bench/bench_stream.cu sweeps them; H100, 2026-11-25, nothing else running: a
/// 2^20-float std::vector call took 818 / 655 / 592 / 589 us at a 1 / 2 / 4 / 8 MiB
/// minimum: per-chunk costs, the staging copies' thread wake-ups above all, outweigh
/// the overlap of more chunks at that size; a 4 GiB pinned one is flat from 16 to
/// 128 MiB. 2026-11-26, staging around the caches and the result vector built in
/// the team: 657 / 554 / 450 / 405 us, hence 8 MiB (bench/NOTES.md).
struct chunk_bounds {
  std::atomic<std::size_t> min_bytes{std::size_t(8) << 20};
  std::atomic<std::size_t> max_bytes{std::size_t(32) << 20};
  /// Host threads of one staging copy (0: every OpenMP thread). A tuning knob:
  /// libgomp's barriers collapse when the cores are oversubscribed (another
  /// process staging at the same time ran the calls 30-60 x slower, bench/NOTES.md),
  /// and a few threads may move the link's bytes as well as all of them.
  std::atomic<int> staging_threads{0};
  /// Staging copies of small calls (chunks <= buffers) around the CPU caches
  /// (host::copy_streaming into staging, host::copy_evicting_source out of it;
  /// false: plain memcpy). Larger calls always copy through the cache: their
  /// pace is the host copies', which streaming stores and evictions slow (H100,
  /// 2026-11-26: 4 GiB pageable in+out 0.238 s around the cache, 0.169 s
  /// through it), where a small call waits on each chunk's DMA, which lines in
  /// the CPU caches halve (2^20 floats into an existing vector: 344 vs 464 us).
  /// A tuning knob: bench_stream measures both.
  std::atomic<bool> staging_bypasses_cache{true};
  static chunk_bounds& get() {
    static chunk_bounds b;
    return b;
  }
};
/// Host bytes a chunk moves at most when the data fits the limit anyway: about
/// an eighth of the call's host bytes, so that even a few MiB run as several
/// overlapping chunks (the first copy in and the last copy out overlap nothing),
/// but at least chunk_bounds' minimum (per-chunk costs: launches, copy setup,
/// host threads woken) and at most its maximum.
inline std::size_t target_chunk_bytes(std::size_t host_bytes) {
  const auto& b = chunk_bounds::get();
  return std::min(b.max_bytes.load(std::memory_order_relaxed),
                  std::max(b.min_bytes.load(std::memory_order_relaxed), host_bytes / 8));
}
/// The host bytes a plan's operands move: what target_chunk_bytes is given.
inline std::size_t host_bytes_of(const std::vector<stream_operand>& ops) {
  std::size_t b = 0;
  for (const auto& o : ops)
    if (o.is_array && o.host) b += static_cast<std::size_t>(o.shp.count()) * o.elem_size;
  return b;
}
/// Page-locked memory the staging cache keeps when idle.
inline constexpr std::size_t cache_keep_bytes = std::size_t(1) << 30;

/// Page-locked staging blocks kept across calls; thread-safe.
class staging_cache {
 public:
  static staging_cache& get() {
    static staging_cache c;
    return c;
  }
  /// A block of at least `bytes` (the smallest idle one that is large enough, else a new one).
  void* acquire(std::size_t bytes, std::size_t& got) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      std::size_t best = idle_.size();  // the smallest idle block that is large enough
      for (std::size_t i = 0; i < idle_.size(); ++i)
        if (idle_[i].first >= bytes && (best == idle_.size() || idle_[i].first < idle_[best].first)) best = i;
      if (best < idle_.size()) {
        got = idle_[best].first;
        void* p = idle_[best].second;
        idle_bytes_ -= got;
        idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(best));
        ++out_;
        return p;
      }
    }
    got = bytes;
    void* p = pinned_memory::allocate(bytes);  // outside the lock: slow
    const std::lock_guard<std::mutex> lock(m_);
    ++out_;
    return p;
  }
  /// Blocks acquired and not yet released (0 whenever no streamed call runs:
  /// tests check that a failed call returned its staging buffers).
  std::size_t blocks_out() {
    const std::lock_guard<std::mutex> lock(m_);
    return out_;
  }
  void release(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    void* drop = nullptr;
    {
      const std::lock_guard<std::mutex> lock(m_);
      --out_;
      if (idle_bytes_ + bytes <= cache_keep_bytes) {
        idle_.emplace_back(bytes, p);
        idle_bytes_ += bytes;
      } else {
        drop = p;
      }
    }
    pinned_memory::deallocate(drop);
  }
  /// Frees every idle block (tests: a count of live allocations without the cache).
  void clear() noexcept {
    std::vector<std::pair<std::size_t, void*>> all;
    {
      const std::lock_guard<std::mutex> lock(m_);
      all.swap(idle_);
      idle_bytes_ = 0;
    }
    for (auto& b : all) pinned_memory::deallocate(b.second);
  }
  ~staging_cache() { clear(); }

 private:
  std::mutex m_;
  std::vector<std::pair<std::size_t, void*>> idle_;
  std::size_t idle_bytes_ = 0;
  std::size_t out_ = 0;
};

/// A staging block, returned to the cache on scope exit.
struct staging_block {
  void* p = nullptr;
  std::size_t bytes = 0;
  staging_block() = default;
  explicit staging_block(std::size_t want) { p = staging_cache::get().acquire(want, bytes); }
  staging_block(staging_block&& o) noexcept : p(std::exchange(o.p, nullptr)), bytes(o.bytes) {}
  staging_block& operator=(staging_block&&) = delete;
  ~staging_block() { staging_cache::get().release(p, bytes); }
};

/// A device chunk buffer from the stream-ordered pool, freed on `s` on scope exit
/// (after the pipeline drained, see pipeline_streams).
struct device_block {
  void* p = nullptr;
  stream_ref s;
  device_block() = default;
  device_block(std::size_t bytes, stream_ref st) : p(memory<target::cuda>::allocate(bytes, st)), s(st) {}
  device_block(device_block&& o) noexcept : p(std::exchange(o.p, nullptr)), s(o.s) {}
  device_block& operator=(device_block&&) = delete;
  ~device_block() { memory<target::cuda>::deallocate(p, s); }
};

/// The pipeline's streams and events, made once per thread and device, reused.
struct stream_set {
  cudaStream_t st[buffers] = {};
  cudaEvent_t done[buffers] = {};
  cudaEvent_t start = nullptr;
  static stream_set& get() {
    thread_local std::array<stream_set, 64> per_device;
    int dev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
    auto& s = per_device.at(static_cast<std::size_t>(dev));
    if (!s.start) {
      for (int i = 0; i < buffers; ++i) {
        UFUNC_CUDA_CHECK(cudaStreamCreateWithFlags(&s.st[i], cudaStreamNonBlocking));
        UFUNC_CUDA_CHECK(cudaEventCreateWithFlags(&s.done[i], cudaEventDisableTiming));
      }
      UFUNC_CUDA_CHECK(cudaEventCreateWithFlags(&s.start, cudaEventDisableTiming));
    }
    return s;
  }
  stream_set() = default;
  stream_set(const stream_set&) = delete;
  stream_set& operator=(const stream_set&) = delete;
  ~stream_set() {  // at thread exit; errors at teardown are ignored
    for (int i = 0; i < buffers; ++i) {
      if (st[i]) (void)cudaStreamDestroy(st[i]);
      if (done[i]) (void)cudaEventDestroy(done[i]);
    }
    if (start) (void)cudaEventDestroy(start);
    (void)cudaGetLastError();
  }
};

/// Waits for every pipeline stream on scope exit, ignoring (and clearing)
/// errors: on the error path nothing may be freed while a copy still runs.
struct drain_on_exit {
  stream_set& ss;
  ~drain_on_exit() {
    for (auto* s : ss.st)
      if (cudaStreamSynchronize(s) != cudaSuccess) (void)cudaGetLastError();
  }
};

/// True when `p` is page-locked host memory the device can copy directly.
inline bool is_pinned(const void* p) {
  if (!p) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

/// Which side of a host copy is a staging buffer (see host/staging_copy.hpp).
enum class staging_side { dst, src };

/// How a call's staging copies run.
struct copy_policy {
  int max_threads = 0;        ///< at most this many threads when positive
  bool around_cache = false;  ///< staging lines kept out of the CPU caches (host/staging_copy.hpp)
};

/// One thread's piece of a staging copy.
inline void copy_piece(char* d, const char* s, std::size_t len, staging_side side, bool around_cache) {
  if (!around_cache) std::memcpy(d, s, len);
  else if (side == staging_side::dst) host::copy_streaming(d, s, len);
  else host::copy_evicting_source(d, s, len);
}

/// The piece one thread copies of a `bytes`-long staging copy shared by
/// `threads`: about one per thread, at least 64 KiB (smaller pieces cost more in
/// scheduling than they save) and at most 1 MiB (a late thread still finds work).
inline std::size_t staging_piece_bytes(std::size_t bytes, std::size_t threads) {
  constexpr std::size_t min_piece = std::size_t(64) << 10, max_piece = std::size_t(1) << 20;
  threads = std::max<std::size_t>(1, threads);
  return std::min(max_piece, std::max(min_piece, (bytes + threads - 1) / threads));
}

/// memcpy spread over the OpenMP threads (staging copies run on the host while
/// the device works; one core alone is slower than the link), in
/// staging_piece_bytes pieces: the half-MiB chunks of a small call are copied by
/// several cores too. At most `max_threads` threads when positive.
inline void host_copy(void* dst, const void* src, std::size_t bytes, staging_side side, const copy_policy& pol) {
  const int max_threads = pol.max_threads;
  const int knob = chunk_bounds::get().staging_threads.load(std::memory_order_relaxed);
  const int cap = knob > 0 && max_threads > 0 ? std::min(knob, max_threads) : std::max(knob, max_threads);
  const std::size_t slots =
      static_cast<std::size_t>(std::max(1, cap > 0 ? std::min(cap, host::parallel_slots()) : host::parallel_slots()));
  const std::size_t piece = staging_piece_bytes(bytes, slots);
  const index_t n = static_cast<index_t>((bytes + piece - 1) / piece);
  auto copy = [&](char* d, const char* s, std::size_t len) { copy_piece(d, s, len, side, pol.around_cache); };
  if (n <= 1) {
    if (bytes) copy(static_cast<char*>(dst), static_cast<const char*>(src), bytes);
    return;
  }
  host::parallel_n(
      n,
      [&](index_t i) {
        const std::size_t b = static_cast<std::size_t>(i) * piece;
        copy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, std::min(piece, bytes - b));
      },
      cap);
}

/// One operand of a streamed call as the pipeline moves it.
struct io {
  bool is_out = false;      ///< written by the call (copied back to the host)
  const void* host = nullptr;  ///< an input's host base
  void* host_out = nullptr;    ///< an output's host base (null: a late output, see late_outputs)
  std::size_t elem = 0;
};

/// Late host outputs (see the header comment and detail::late_host_outputs).
/// Only pageable memory the call allocated itself.
using late_outputs = detail::late_host_outputs;

/// Runs plan `p` over the operands `ops` (described for the planner by `sop`;
/// `moves` host operands are copied per chunk, `fixed` ones once, `device` ones
/// read in place). For each chunk, `compute(c, ptr, stream)` enqueues the
/// chunk's kernel(s) on `stream`: ptr[k] is operand k's chunk data on the device
/// (the chunk buffer of a host operand, the rebased address of a device one).
/// Ordered after the work enqueued on `s` before the call; returns when every
/// host output holds its data and every pipeline stream is idle. `late`
/// (optional) gives the bases of the outputs whose host_out is null, once,
/// before the first drain: they must be pageable.
template <class Compute>
void run_pipeline(const stream_plan& p, const std::vector<stream_operand>& sop, const std::vector<io>& ops_in,
                  const std::vector<const void*>& device_base, stream_ref s, const Compute& compute,
                  const late_outputs* late = nullptr) {
  using role = stream_plan::role;
  std::vector<io> ops = ops_in;  // a late output's base is filled in before the first drain
  const std::size_t nops = ops.size();
  const int nb = p.buffers;
  stream_set& ss = stream_set::get();
  const bool small = p.chunks <= nb;
  const late_build build =
      late ? late->start(small && host::parallel_slots() > 1) : late_build::at_first_drain;
  copy_policy pol;
  pol.around_cache = small && chunk_bounds::get().staging_bypasses_cache.load(std::memory_order_relaxed);
  // While a helper thread builds the late outputs, the staging copies leave it
  // a core, for the whole call (a team that changed size within it would
  // restart OpenMP threads). H100, 2026-11-26: with every core taken (OpenMP
  // threads spin between regions) the helper ran only once this thread blocked.
  if (late && build == late_build::helper) pol.max_threads = std::max(1, host::parallel_slots() - 1);
#if defined(UFUNC_TESTING)
  auto& tp = testing::pipeline();
  tp.chunks.store(p.chunks);
  tp.rows_per_chunk.store(p.rows_per_chunk);
  tp.chunk_elems.store(p.chunks > 0 ? p.chunk_shape(0).count() : 0);
  tp.buffers.store(nb);
  tp.late_build.store(late ? static_cast<int>(build) : -1);
#endif

  // Buffers first (declared before the drain guard, so freed after it ran).
  std::vector<std::vector<device_block>> dev(nops);
  std::vector<std::vector<staging_block>> stage(nops);
  std::vector<bool> pinned(nops, false);
  for (std::size_t k = 0; k < nops; ++k) {
    const auto r = p.roles[k];
    if (r != role::moves && r != role::fixed) continue;
    const std::size_t bytes = p.buffer_bytes(k, ops[k].elem);
    const int copies = r == role::moves ? nb : 1;
    pinned[k] = is_pinned(ops[k].is_out ? ops[k].host_out : ops[k].host);  // a late output (null): staged
    dev[k].reserve(static_cast<std::size_t>(copies));
    for (int b = 0; b < copies; ++b) dev[k].emplace_back(bytes, s);
    if (!pinned[k]) {
      stage[k].reserve(static_cast<std::size_t>(copies));
      for (int b = 0; b < copies; ++b) stage[k].emplace_back(bytes);
    }
  }
  // Every pipeline stream starts after the caller's stream (device operands,
  // the allocations above) and is drained on every exit.
  UFUNC_CUDA_CHECK(cudaEventRecord(ss.start, s.get()));
  drain_on_exit guard{ss};
  for (int b = 0; b < nb; ++b) UFUNC_CUDA_CHECK(cudaStreamWaitEvent(ss.st[b], ss.start, 0));

  // Fixed host operands: copied once, before any chunk (stream 0; the others wait).
  for (std::size_t k = 0; k < nops; ++k) {
    if (p.roles[k] != role::fixed) continue;
    const std::size_t bytes = p.buffer_bytes(k, ops[k].elem);
    if (ops[k].is_out) continue;  // a fixed output (a partial reduction's result) is the caller's
    const void* src = ops[k].host;
    if (!pinned[k]) {
      host_copy(stage[k][0].p, src, bytes, staging_side::dst, pol);
      src = stage[k][0].p;
    }
    UFUNC_CUDA_CHECK(cudaMemcpyAsync(dev[k][0].p, src, bytes, cudaMemcpyHostToDevice, ss.st[0]));
  }
  UFUNC_CUDA_CHECK(cudaEventRecord(ss.done[0], ss.st[0]));
  for (int b = 1; b < nb; ++b) UFUNC_CUDA_CHECK(cudaStreamWaitEvent(ss.st[b], ss.done[0], 0));

  auto chunk_bytes = [&](std::size_t k, index_t c) {
    return static_cast<std::size_t>(chunk_of(p, sop[k], k, c).count) * ops[k].elem;
  };
  auto host_at = [&](std::size_t k, index_t c, bool out) -> char* {
    const index_t begin = chunk_of(p, sop[k], k, c).host_begin;
    const char* base = static_cast<const char*>(out ? ops[k].host_out : ops[k].host);
    return const_cast<char*>(base) + static_cast<std::size_t>(begin) * ops[k].elem;
  };
  // Host outputs of chunk c, once its copy-out has finished: staging -> user memory.
  bool waiting_late = late != nullptr;
  auto take_late = [&](const std::vector<void*>& got) {
    waiting_late = false;
    for (std::size_t k = 0; k < nops && k < got.size(); ++k)
      if (ops[k].is_out && !ops[k].host_out) ops[k].host_out = got[k];
  };
  auto drain = [&](index_t c) {
    const int b = static_cast<int>(c % nb);
    if (waiting_late) take_late(late->bases());  // needed from here on (meanwhile chunks 0..nb-1 ran)
    UFUNC_CUDA_CHECK(cudaEventSynchronize(ss.done[b]));
    for (std::size_t k = 0; k < nops; ++k)
      if (ops[k].is_out && p.roles[k] == role::moves && !pinned[k])
        host_copy(host_at(k, c, true), stage[k][static_cast<std::size_t>(b)].p, chunk_bytes(k, c), staging_side::src,
                  pol);
  };
  // Chunk c's copies in, kernel(s) and copies out, on its slot's stream. With
  // `stage_here` its pageable inputs are staged first (each just before its
  // copy); without, they already are. May run on any thread (in_team below).
  // One pointer array per slot, made here: chunks of different slots may be
  // enqueued at once (in_team below), a slot's next chunk only after its drain.
  std::vector<std::vector<void*>> slot_ptr(static_cast<std::size_t>(nb), std::vector<void*>(nops, nullptr));
  auto enqueue = [&](index_t c, bool stage_here) {
    const auto bu = static_cast<std::size_t>(c % nb);
    cudaStream_t st = ss.st[bu];
    std::vector<void*>& ptr = slot_ptr[bu];
    for (std::size_t k = 0; k < nops; ++k) {
      const auto r = p.roles[k];
      if (r == role::device) {
        // Signed: a view with negative strides is rebased backwards.
        ptr[k] = const_cast<char*>(static_cast<const char*>(device_base[k])) +
                 static_cast<std::ptrdiff_t>(chunk_of(p, sop[k], k, c).host_begin) *
                     static_cast<std::ptrdiff_t>(ops[k].elem);
      } else if (r == role::fixed) {
        ptr[k] = dev[k][0].p;
      } else if (r == role::moves) {
        ptr[k] = dev[k][bu].p;
        if (!ops[k].is_out) {
          const std::size_t bytes = chunk_bytes(k, c);
          const void* src = host_at(k, c, false);
          if (!pinned[k]) {
            if (stage_here) host_copy(stage[k][bu].p, src, bytes, staging_side::dst, pol);
            src = stage[k][bu].p;
          }
          UFUNC_CUDA_CHECK(cudaMemcpyAsync(ptr[k], src, bytes, cudaMemcpyHostToDevice, st));
        }
      }
    }
#if defined(UFUNC_TESTING)
    // The test-only fault: fails here as a failed launch of chunk c's kernel would.
    UFUNC_CUDA_CHECK(tp.fault_chunk.load() == c ? cudaErrorInvalidValue : cudaSuccess);
#endif
    compute(c, ptr, stream_ref(st));
    for (std::size_t k = 0; k < nops; ++k) {
      if (!ops[k].is_out || p.roles[k] != role::moves) continue;
      void* dst = pinned[k] ? static_cast<void*>(host_at(k, c, true)) : stage[k][bu].p;
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst, ptr[k], chunk_bytes(k, c), cudaMemcpyDeviceToHost, st));
    }
    UFUNC_CUDA_CHECK(cudaEventRecord(ss.done[bu], st));
  };

  index_t first = 0;  // chunks enqueued before the loop below
  index_t drained = 0;  // chunks drained before the loops below
  if (late && build == late_build::in_team) {
    // A small call whose outputs this thread builds: it constructs them in
    // steps (a single-threaded zero fill) inside an OpenMP region whose other
    // threads stage every chunk's pageable inputs in pieces, the one finishing
    // a chunk's last piece enqueuing it, then drain every chunk in pieces, each
    // piece once its chunk's copies are done and the fill has passed its
    // elements; this thread joins them after the fill. No thread outside the
    // team (it would find every core taken); the fill overlaps the copies and
    // the drains follow it closely.
    struct piece {
      index_t c;
      std::size_t k, off, len;  // len 0: a chunk with nothing to stage
      bool out;                 // a drain piece
      std::size_t need;         // a drain piece: the output elements constructed first
    };
    std::vector<piece> pieces;
    std::vector<std::atomic<int>> left(static_cast<std::size_t>(p.chunks));
    std::vector<std::atomic<bool>> enqueued(static_cast<std::size_t>(p.chunks));
    std::vector<bool> late_k(nops, false);
    std::size_t late_elems = 0;  // every late output's element count (one shape)
    for (std::size_t k = 0; k < nops; ++k)
      if (ops[k].is_out && !ops[k].host_out) {
        late_k[k] = true;
        late_elems = static_cast<std::size_t>(sop[k].shp.count());
      }
    const std::size_t threads = static_cast<std::size_t>(std::max(1, host::parallel_slots() - 1));
    for (index_t c = 0; c < p.chunks; ++c) {
      int count = 0;
      for (std::size_t k = 0; k < nops; ++k) {
        if (ops[k].is_out || p.roles[k] != role::moves || pinned[k]) continue;
        const std::size_t bytes = chunk_bytes(k, c);
        const std::size_t len = staging_piece_bytes(bytes, threads);
        for (std::size_t off = 0; off < bytes; off += len, ++count)
          pieces.push_back({c, k, off, std::min(len, bytes - off), false, 0});
      }
      if (count == 0) {
        pieces.push_back({c, 0, 0, 0, false, 0});
        count = 1;
      }
      left[static_cast<std::size_t>(c)].store(count);
      enqueued[static_cast<std::size_t>(c)].store(false);
    }
    // Drain pieces after every staging piece: a thread reaching one waits only
    // on work already handed out.
    for (index_t c = 0; c < p.chunks; ++c)
      for (std::size_t k = 0; k < nops; ++k) {
        if (!ops[k].is_out || p.roles[k] != role::moves || pinned[k]) continue;
        const std::size_t bytes = chunk_bytes(k, c), e = ops[k].elem;
        const std::size_t begin = static_cast<std::size_t>(chunk_of(p, sop[k], k, c).host_begin);
        const std::size_t len = staging_piece_bytes(bytes, threads + 1);
        for (std::size_t off = 0; off < bytes; off += len) {
          const std::size_t l = std::min(len, bytes - off);
          pieces.push_back({c, k, off, l, true, late_k[k] ? begin + (off + l + e - 1) / e : 0});
        }
      }
    // The fill's steps: about 16, of at least 16384 elements (64 KiB of floats).
    const std::size_t step = std::max<std::size_t>(16384, (late_elems + 15) / 16);
    std::atomic<std::size_t> built{0};  // output elements constructed (their bases published with the first)
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    auto wait_until = [&](const auto& ready) {  // false: another thread failed
      while (!ready()) {
        if (stop.load(std::memory_order_relaxed)) return false;
        std::this_thread::yield();
      }
      return true;
    };
    const auto team = static_cast<index_t>(threads + 1);  // the full team always (a new size restarts threads)
    host::parallel_n(team, [&](index_t t) {
      try {
        if (t == 0) {  // the calling thread (item 0 of parallel_n's static schedule)
          late->reserve();
          std::size_t m = std::min(step, late_elems);
          late->construct_to(m);
          take_late(late->bases());  // ops[k].host_out, published by `built`
          built.store(m, std::memory_order_release);
          while (m < late_elems && !stop.load(std::memory_order_relaxed)) {
            m = std::min(late_elems, m + step);
            late->construct_to(m);
            built.store(m, std::memory_order_release);
          }
        }
        while (!stop.load(std::memory_order_relaxed)) {
          const std::size_t i = next.fetch_add(1);
          if (i >= pieces.size()) break;
          const piece& q = pieces[i];
          const auto bu = static_cast<std::size_t>(q.c % nb);
          const auto ci = static_cast<std::size_t>(q.c);
          if (!q.out) {
            if (q.len)
              copy_piece(static_cast<char*>(stage[q.k][bu].p) + q.off, host_at(q.k, q.c, false) + q.off, q.len,
                         staging_side::dst, pol.around_cache);
            if (left[ci].fetch_sub(1) == 1) {
              enqueue(q.c, false);
              enqueued[ci].store(true, std::memory_order_release);
            }
            continue;
          }
          // Its event is recorded by the enqueue (before that it may hold an
          // earlier record), and its elements exist once the fill passed them.
          if (!wait_until([&] { return enqueued[ci].load(std::memory_order_acquire); })) break;
          UFUNC_CUDA_CHECK(cudaEventSynchronize(ss.done[bu]));
          if (!wait_until([&] { return built.load(std::memory_order_acquire) >= q.need; })) break;
          copy_piece(host_at(q.k, q.c, true) + q.off, static_cast<char*>(stage[q.k][bu].p) + q.off, q.len,
                     staging_side::src, pol.around_cache);
        }
      } catch (...) {
        stop.store(true);  // stage, enqueue and drain no more; parallel_n rethrows after the region
        throw;
      }
    });
    waiting_late = false;
    first = drained = p.chunks;
  }
  for (index_t c = first; c < p.chunks; ++c) {
    if (c >= nb) drain(c - nb);  // slot c % nb's previous chunk is done: its buffers are free
    enqueue(c, true);
  }
  for (index_t c = std::max<index_t>(drained, p.chunks - nb); c < p.chunks; ++c) drain(c);
  // The caller's stream continues after the pipeline (device outputs written by it).
  for (int b = 0; b < nb; ++b) UFUNC_CUDA_CHECK(cudaStreamSynchronize(ss.st[b]));
}

}  // namespace ufunc::detail::cuda_stream

namespace ufunc::detail {
/// The CUDA target's pipeline (config.hpp): the calls detail/stream.hpp and the
/// streamed reductions make, over cuda_stream's.
template <>
struct pipeline<target::cuda> {
  static constexpr int buffers = cuda_stream::buffers;
  using io = cuda_stream::io;
  /// The chunk size the planner aims at for these operands.
  static std::size_t chunk_bytes(const std::vector<stream_operand>& ops) {
    return cuda_stream::target_chunk_bytes(cuda_stream::host_bytes_of(ops));
  }
  /// cuda_stream::run_pipeline.
  template <class Compute>
  static void run(const stream_plan& p, const std::vector<stream_operand>& sop, const std::vector<io>& ops,
                  const std::vector<const void*>& device_base, stream_ref s, const Compute& compute,
                  const late_host_outputs* late = nullptr) {
    cuda_stream::run_pipeline(p, sop, ops, device_base, s, compute, late);
  }
};
}  // namespace ufunc::detail
