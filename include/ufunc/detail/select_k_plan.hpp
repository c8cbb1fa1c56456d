// Host-only planning of ufunc::argmin_k / argmax_k / min_k / max_k (testable
// without nvcc): the shape of the result, and how a row (the reduced axis) is
// cut into chunks whose K-best lists are merged afterwards, when the outputs
// alone are too few to keep every thread (or SM) busy. Which layouts take the
// GPU's tiled pairwise kernel is pairwise_plan.hpp's test, as for the other
// pairwise reductions.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../error.hpp"
#include "../shape.hpp"

namespace ufunc::detail {

/// `s` with `axis` moved last and given extent k: the shape the engines write
/// (rows of k, one per output in the C order of the other dims).
inline shape select_k_rows_shape(const shape& s, int axis, index_t k) {
  std::vector<index_t> d;
  for (int a = 0; a < s.size(); ++a)
    if (a != axis) d.push_back(s[a]);
  d.push_back(k);
  return shape(d);
}

/// The row split: `chunks` chunks of `chunk_len` elements (the last one
/// shorter), chunks * chunk_len >= R > (chunks - 1) * chunk_len.
struct select_k_split {
  index_t chunks = 1;
  index_t chunk_len = 0;
};

/// The limits of a split, per engine.
struct select_k_split_limits {
  index_t per_block;    // outputs one block (work item) takes
  index_t want_blocks;  // blocks that keep the machine busy (SMs x resident blocks; the host: a fixed count)
  index_t min_chunk;    // no chunk shorter than this (where the row is longer)
  index_t align;        // chunk lengths a multiple of this (the GPU's tile)
  index_t max_chunk;    // the longest chunk (the kernels' 32-bit chunk-relative indices)
  index_t max_entries;  // at most this many partial entries (outputs x chunks x K), where the rows allow it
};

/// How `nout` rows of R elements are cut for lists of k: one chunk while
/// there are enough blocks of outputs; otherwise as many as fill the machine,
/// no shorter than min_chunk and with at most max_entries partial entries;
/// always enough that no chunk is longer than max_chunk. Depends on the sizes
/// and the limits only (the host's limits are constants: its plan does not
/// depend on the thread count, and the results never do).
inline select_k_split plan_select_k_split(index_t nout, index_t R, index_t k, const select_k_split_limits& lim) {
  select_k_split p;
  if (nout <= 0 || R <= 0) {
    p.chunk_len = std::max<index_t>(R, 1);
    return p;
  }
  const index_t blocks = (nout + lim.per_block - 1) / lim.per_block;
  index_t chunks = 1;
  if (blocks < lim.want_blocks) {
    chunks = (lim.want_blocks + blocks - 1) / blocks;
    chunks = std::min(chunks, std::max<index_t>(1, R / lim.min_chunk));
    chunks = std::min(chunks, std::max<index_t>(1, lim.max_entries / (nout * k)));
  }
  chunks = std::max(chunks, (R + lim.max_chunk - 1) / lim.max_chunk);
  index_t len = (R + chunks - 1) / chunks;
  len = (len + lim.align - 1) / lim.align * lim.align;
  len = std::min(len, lim.max_chunk);
  p.chunk_len = len;
  p.chunks = (R + len - 1) / len;
  return p;
}

/// The checks of a call, before anything runs: K no larger than the extent
/// of the axis (value_error, as topk's k).
inline void check_select_k(const char* name, int k, int axis_given, int axis, const shape& s) {
  if (index_t(k) > s[axis])
    throw value_error(std::string(name) + ": K = " + std::to_string(k) + " is more than the extent " +
                      std::to_string(s[axis]) + " of axis " + std::to_string(axis_given) + " of shape " + s.str());
}

}  // namespace ufunc::detail
