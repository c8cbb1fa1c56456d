// Host-only chunk planning for calls that stream host memory through the device
// (issue 14): which leading dims of the iteration shape become the chunked axis,
// how many of its rows one chunk holds under a device memory limit, and, per
// operand, which host bytes a chunk copies and how the chunk buffer is laid out.
// No CUDA here: tests/test_stream_plan.cpp checks it in every build.
//
// The iteration shape (an elementwise call's broadcast shape, a reduction's
// input shape) is seen as `rows x row_elems`: its first `split` dims merged into
// one chunked axis of `rows` rows, the rest kept as they are. A chunk is a range
// of rows. Per operand, along the chunked axis, either
//   - every dim is the operand's own (it "moves"): a host operand must then be
//     row-major contiguous, so a chunk's elements are one contiguous host range,
//     copied into a chunk buffer; or
//   - every dim is broadcast (it is "fixed"): a host operand is copied once, whole,
//     and every chunk reads it at stride 0.
// Device-resident operands are read in place: the chunk rebases them, which needs
// only that their chunked dims merge (one stride). A mixed operand (full along one
// chunked dim, broadcast along another) rules that split out; split 1 (dim 0
// alone) is never mixed, so a plan exists whenever every host operand is
// row-major contiguous.
//
// Reductions pass their reduced-dim mask: the chunked dims are then all kept
// (each chunk computes its own rows of the result: the result, described as an
// operand of keepdims shape, moves) or all reduced (each chunk computes a partial
// result of the whole result shape; the result operand is fixed, and the caller
// combines the partials in chunk order: partial 0, then op(acc, partial 1), ...).
// Kept dims are preferred; they are possible when dim 0 is kept.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "../error.hpp"
#include "../shape.hpp"
#include "memory.hpp"  // bytes_str

namespace ufunc::detail {

/// One operand as the chunk planner sees it.
struct stream_operand {
  bool is_array = false;  ///< false: a scalar, nothing to move or rebase
  bool host = false;      ///< lives in host memory: its chunks are copied to the device
  std::size_t elem_size = 0;
  shape shp;  ///< its own shape, right-aligned against the iteration shape
  std::array<index_t, shape::max_rank> strides{};  ///< in elements
};

/// Where one operand's elements of a chunk are and how the chunk buffer (or, for
/// a device operand, its memory) is walked: the chunk's iteration shape is
/// (rows of the chunk, dims split..ndim-1 of the iteration shape).
struct chunk_operand {
  index_t host_begin = 0;  ///< host operand: first element (from its base) to copy; device: element offset to rebase by
  index_t count = 0;       ///< host operand: elements to copy (0: nothing this chunk)
  shape shp;               ///< chunk-local shape (rank 1 + ndim - split; broadcast dims are 1)
  std::array<index_t, shape::max_rank> strides{};  ///< chunk-local strides (buffer layout for host operands)
};

/// The plan of one streamed call.
struct stream_plan {
  enum class role { scalar, device, moves, fixed };
  shape iter;             ///< the iteration shape (rank 0 is planned as shape {1})
  int split = 1;          ///< leading iteration dims merged into the chunked axis
  index_t rows = 1;       ///< product of iter[0..split)
  index_t rows_per_chunk = 1;
  index_t chunks = 0;     ///< 0 for an empty iteration shape
  int buffers = 1;        ///< chunk buffers per moving operand (pipeline depth)
  bool partial = false;   ///< reduction chunked along reduced dims: per-chunk partial results
  std::vector<bool> reduced;  ///< a reduction's reduced-dim mask over `iter` (empty for an elementwise call)
  std::size_t device_bytes = 0;  ///< device memory the plan's buffers take
  std::vector<role> roles;
  std::vector<index_t> op_row_elems;  ///< moving/fixed operand: elements per row (fixed: in all)
  std::vector<index_t> outer_stride;  ///< per operand: stride of the chunked axis (0 when broadcast along it)

  /// First row and row count of chunk c.
  index_t first_row(index_t c) const { return c * rows_per_chunk; }
  index_t rows_of(index_t c) const { return std::min(rows_per_chunk, rows - first_row(c)); }
  /// Bytes of one chunk buffer of operand k (moves: rows_per_chunk rows; fixed: the operand).
  std::size_t buffer_bytes(std::size_t k, std::size_t elem_size) const {
    const index_t n = roles[k] == role::moves ? rows_per_chunk * op_row_elems[k] : op_row_elems[k];
    return static_cast<std::size_t>(n) * elem_size;
  }
  /// A partial reduction's chunk c: its first position in the flattened
  /// (C-order) reduced index space. The chunked dims are the leading reduced
  /// ones (a kept dim among them has extent 1), so one row of the chunked axis
  /// spans the reduced elements of the dims after the split. argmin/argmax add
  /// it to a chunk's indices, which count from the chunk's first element.
  index_t reduced_offset(index_t c) const {
    index_t inner = 1;
    for (int d = split; d < iter.size(); ++d)
      if (reduced[static_cast<std::size_t>(d)]) inner *= iter[d];
    return first_row(c) * inner;
  }
  /// The chunk's iteration shape.
  shape chunk_shape(index_t c) const {
    std::vector<index_t> d{rows_of(c)};
    for (int i = split; i < iter.size(); ++i) d.push_back(iter[i]);
    return shape(d);
  }
};

namespace stream_detail {

/// The operand's extent along iteration dim d (1 where it has no such dim).
inline index_t dim_of(const stream_operand& o, const shape& it, int d) {
  const int od = d - (it.size() - o.shp.size());
  return od >= 0 ? o.shp[od] : 1;
}
inline index_t stride_of(const stream_operand& o, const shape& it, int d) {
  const int od = d - (it.size() - o.shp.size());
  return od >= 0 && o.shp[od] != 1 ? o.strides[static_cast<std::size_t>(od)] : 0;
}

/// Row-major contiguous, ignoring size-1 dims (whose strides never matter).
inline bool contiguous(const stream_operand& o) {
  index_t want = 1;
  for (int d = o.shp.size() - 1; d >= 0; --d) {
    if (o.shp[d] == 1) continue;
    if (o.strides[static_cast<std::size_t>(d)] != want) return false;
    want *= o.shp[d];
  }
  return true;
}

enum class along { none, full, bcast, mixed };

/// How operand o relates to iteration dims [0, split) (dims of extent 1 ignored).
inline along status(const stream_operand& o, const shape& it, int split) {
  along a = along::none;
  for (int d = 0; d < split; ++d) {
    if (it[d] == 1) continue;
    const along here = dim_of(o, it, d) == 1 ? along::bcast : along::full;
    if (a == along::none) a = here;
    else if (a != here) return along::mixed;
  }
  return a;
}

/// True when iteration dims [0, split) walk o's memory as one dim (one stride).
inline bool merges(const stream_operand& o, const shape& it, int split) {
  int prev = -1;
  for (int d = 0; d < split; ++d) {
    if (it[d] == 1) continue;
    if (prev >= 0 && stride_of(o, it, prev) != stride_of(o, it, d) * it[d]) return false;
    prev = d;
  }
  return true;
}

/// The chunked axis' stride for o: that of its innermost non-trivial chunked dim.
inline index_t merged_stride(const stream_operand& o, const shape& it, int split) {
  for (int d = split - 1; d >= 0; --d)
    if (it[d] != 1) return stride_of(o, it, d);
  return 0;
}

inline bool split_ok(const std::vector<stream_operand>& ops, const shape& it, int split, const std::vector<bool>* red) {
  if (red) {  // chunked dims all kept or all reduced
    int kind = -1;
    for (int d = 0; d < split; ++d) {
      if (it[d] == 1) continue;
      const int k = (*red)[static_cast<std::size_t>(d)] ? 1 : 0;
      if (kind >= 0 && k != kind) return false;
      kind = k;
    }
  }
  for (const auto& o : ops) {
    if (!o.is_array) continue;
    const along a = status(o, it, split);
    if (a == along::mixed) return false;
    if (!merges(o, it, split)) return false;
    if (o.host && !contiguous(o)) return false;
  }
  return true;
}

}  // namespace stream_detail

/// Plans a streamed call over iteration shape `iter` with operands `ops` (host
/// operands must be row-major contiguous, else value_error naming the operand).
/// `reduced`: per iteration dim, true where a reduction reduces it (null for an
/// elementwise call). The plan's device buffers (buffers x one chunk of each
/// moving host operand, plus each fixed host operand once, plus for a partial
/// reduction `buffers` partial results of `partial_bytes` each; the running
/// result itself is the result operand, fixed along the chunked axis) stay within
/// `limit` bytes; `target_chunk_bytes` (0: none) caps the host bytes a chunk
/// moves, so that even data that fits is cut into several chunks to overlap.
/// Throws out_of_memory when one row does not fit the limit.
inline stream_plan plan_stream(const char* name, shape iter, const std::vector<stream_operand>& ops,
                               const std::vector<bool>* reduced, std::size_t limit, int buffers,
                               std::size_t target_chunk_bytes = 0, std::size_t partial_bytes = 0) {
  using namespace stream_detail;
  stream_plan p;
  std::vector<bool> red_storage;
  if (iter.size() == 0) {  // a 0-d call: one row of one element
    iter = shape{1};
    if (reduced) red_storage = {true};
  } else if (reduced) {
    red_storage = *reduced;
  }
  const std::vector<bool>* red = reduced ? &red_storage : nullptr;
  p.iter = iter;
  p.reduced = red_storage;
  p.buffers = buffers < 1 ? 1 : buffers;
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].is_array && ops[k].host && !contiguous(ops[k]))
      throw value_error(std::string(name) + ": operand " + std::to_string(k) + " of shape " + ops[k].shp.str() +
                        " is a strided view of host memory; only contiguous host data can stream to the device "
                        "(copy it into a contiguous array first)");

  // The finest valid split (most leading dims merged, so a row is smallest).
  // A reduction prefers kept chunked dims (no partials to combine), then
  // reduced ones; a split whose chunked dims all have extent 1 decides nothing
  // and is taken only when no other is valid.
  int best_kept = 0, best_red = 0, best_any = 0;
  for (int s = 1; s <= iter.size(); ++s) {
    if (!split_ok(ops, iter, s, red)) continue;
    int kind = -1;  // -1: every chunked dim has extent 1
    for (int d = 0; d < s && kind < 0; ++d)
      if (iter[d] != 1) kind = red && (*red)[static_cast<std::size_t>(d)] ? 1 : 0;
    if (kind == 0) best_kept = s;
    else if (kind == 1) best_red = s;
    else best_any = s;
  }
  p.split = best_kept ? best_kept : best_red ? best_red : best_any ? best_any : 1;
  p.partial = red && (best_kept ? false : best_red ? true : (*red)[0]);
  for (int d = 0; d < p.split; ++d) p.rows *= iter[d];
  index_t iter_row = 1;
  for (int d = p.split; d < iter.size(); ++d) iter_row *= iter[d];

  std::size_t fixed = 0, per_row = 0, moved_per_row = 0;
  p.roles.resize(ops.size());
  p.op_row_elems.assign(ops.size(), 0);
  p.outer_stride.assign(ops.size(), 0);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto& o = ops[k];
    if (!o.is_array) { p.roles[k] = stream_plan::role::scalar; continue; }
    const along a = status(o, iter, p.split);
    index_t inner = 1;
    for (int d = p.split; d < iter.size(); ++d) inner *= dim_of(o, iter, d);
    if (!o.host) {
      p.roles[k] = stream_plan::role::device;
      p.outer_stride[k] = merged_stride(o, iter, p.split);
      continue;
    }
    p.op_row_elems[k] = inner;
    // Every chunked dim of extent 1 (one row: a 0-d call, n = 1) decides nothing;
    // an elementwise call then moves its host operands like any row, so that a
    // host output is copied back (a fixed operand is copied in once, never out).
    if (a == along::full || (a == along::none && !red)) {
      p.roles[k] = stream_plan::role::moves;
      p.outer_stride[k] = inner;
      per_row += static_cast<std::size_t>(inner) * o.elem_size;
      moved_per_row += static_cast<std::size_t>(inner) * o.elem_size;
    } else {  // broadcast along every chunked dim (or all of them have extent 1)
      p.roles[k] = stream_plan::role::fixed;
      fixed += static_cast<std::size_t>(inner) * o.elem_size;
    }
  }
  const std::size_t nb = static_cast<std::size_t>(p.buffers);
  const std::size_t partials = p.partial ? nb * partial_bytes : 0;
  const std::size_t one_row = fixed + partials + nb * per_row;
  if (p.rows == 0 || iter_row == 0) {  // nothing to compute
    p.chunks = 0;
    p.rows_per_chunk = 1;
    p.device_bytes = 0;
    return p;
  }
  if (one_row > limit)
    throw out_of_memory(std::string(name) + ": streaming host data needs at least " + bytes_str(one_row) +
                        " of device buffers (" + std::to_string(nb) + " buffers of one row of " +
                        std::to_string(per_row) + " bytes, " + std::to_string(fixed + partials) +
                        " bytes of operands broadcast along the chunked axis and partial results), more than the "
                        "device memory limit of " + bytes_str(limit) + " (ufunc::set_device_memory_limit)");
  index_t rpc = p.rows;
  if (per_row > 0) {
    const std::size_t fit = (limit - fixed - partials) / (nb * per_row);
    rpc = static_cast<index_t>(std::min<std::size_t>(fit, static_cast<std::size_t>(p.rows)));
    if (target_chunk_bytes > 0 && moved_per_row > 0) {
      const std::size_t want = std::max<std::size_t>(1, target_chunk_bytes / moved_per_row);
      rpc = std::min<index_t>(rpc, static_cast<index_t>(std::min<std::size_t>(want, static_cast<std::size_t>(p.rows))));
    }
  }
  p.rows_per_chunk = std::max<index_t>(1, rpc);
  p.chunks = (p.rows + p.rows_per_chunk - 1) / p.rows_per_chunk;
  p.device_bytes = fixed + partials + nb * static_cast<std::size_t>(p.rows_per_chunk) * per_row;
  return p;
}

/// Operand k's part of chunk c: host range to copy (host operands) or rebase
/// offset (device operands), and the chunk-local shape and strides (for host
/// operands those of the chunk buffer, which holds the rows back to back).
inline chunk_operand chunk_of(const stream_plan& p, const stream_operand& o, std::size_t k, index_t c) {
  using namespace stream_detail;
  chunk_operand r;
  const auto role = p.roles[k];
  if (role == stream_plan::role::scalar) return r;
  const index_t rows = p.rows_of(c), first = p.first_row(c);
  std::vector<index_t> d;
  const bool along = role == stream_plan::role::moves || (role == stream_plan::role::device && p.outer_stride[k] != 0);
  d.push_back(along ? rows : 1);
  for (int i = p.split; i < p.iter.size(); ++i) d.push_back(dim_of(o, p.iter, i));
  r.shp = shape(d);
  if (role == stream_plan::role::device) {
    r.host_begin = first * p.outer_stride[k];
    r.strides[0] = p.outer_stride[k];
    for (int i = p.split; i < p.iter.size(); ++i)
      r.strides[static_cast<std::size_t>(1 + i - p.split)] = stride_of(o, p.iter, i);
    return r;
  }
  // Host operands: the buffer is row-major over r.shp.
  const auto cs = contiguous_strides(r.shp);
  std::copy(cs.begin(), cs.end(), r.strides.begin());
  if (role == stream_plan::role::moves) {
    r.host_begin = first * p.op_row_elems[k];
    r.count = rows * p.op_row_elems[k];
  } else {
    r.strides[0] = 0;
    r.host_begin = 0;
    r.count = p.op_row_elems[k];
  }
  return r;
}

/// Where late host outputs (below) are built while the pipeline runs.
enum class late_build {
  at_first_drain,  ///< on the calling thread, when the pipeline first needs them
  helper,          ///< on a helper thread (the staging copies leave it a core)
  in_team,         ///< on the calling thread inside an OpenMP region whose other
                   ///< threads stage and enqueue every chunk meanwhile
};

/// Host outputs whose memory a streamed call allocates while its pipeline runs
/// (its result std::vectors: pageable, contiguous, zero-filled on one thread).
/// The pipeline calls `start` once, before it enqueues anything, with `small`
/// true when every chunk fits its buffers at once (chunks <= buffers) and it
/// has more than one thread: it returns where they are built (in_team only
/// when small). `bases` waits for them (or builds them, on the calling thread)
/// and returns one base per operand index, outputs first (entries for other
/// operands are ignored); called once, before the first drain. Its exception
/// (bad_alloc) reaches the caller after the pipeline drained.
///
/// in_team builds them in steps, so that chunks drain behind the zero fill:
/// `reserve` allocates every output's storage (no element constructed; may
/// throw bad_alloc), `construct_to(m)` constructs elements [0, m) of each (m
/// grows from call to call, up to the outputs' element count), and `bases`,
/// called after the first construct_to, returns their bases, which stay put.
/// All three run on the calling thread.
struct late_host_outputs {
  std::function<late_build(bool small)> start;
  std::function<std::vector<void*>()> bases;
  std::function<void()> reserve;
  std::function<void(std::size_t m)> construct_to;
};

}  // namespace ufunc::detail
