// Host-only planning of sharded arrays (sharded_array.hpp, sharded.hpp): the
// split of N rows over D shards, the checks of a device set, how a sharding is
// described in messages, and whether a plain operand can be replicated to every
// shard (it broadcasts against the per-shard shape without covering axis 0).
// No CUDA call, no allocation of array memory: tests/test_sharded.cpp checks it
// on every backend.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../error.hpp"
#include "../shape.hpp"

namespace ufunc::detail {

/// Rows of each of `d` shards for `n` rows: as even as possible, the first
/// `n % d` shards one row more (7 over 3: 3, 2, 2). Shards may get 0 rows when
/// n < d (they then hold empty arrays and take no part in reductions).
inline std::vector<index_t> split_rows(index_t n, int d) {
  if (d <= 0) throw value_error("ufunc::shard: a device set needs at least one device");
  if (n < 0) throw shape_error("ufunc::shard: negative row count " + std::to_string(n));
  std::vector<index_t> r(static_cast<std::size_t>(d), n / d);
  for (index_t i = 0; i < n % d; ++i) r[static_cast<std::size_t>(i)] += 1;
  return r;
}

/// The first row of each shard (exclusive prefix sums of `rows`).
inline std::vector<index_t> row_offsets(const std::vector<index_t>& rows) {
  std::vector<index_t> off(rows.size(), 0);
  for (std::size_t i = 1; i < rows.size(); ++i) off[i] = off[i - 1] + rows[i - 1];
  return off;
}

/// Elements of the longest of `rows` shards of `row` elements a row: what each
/// rank sends when shards of every rank travel in one fixed-size collective.
inline std::size_t padded_rank_elements(const std::vector<index_t>& rows, index_t row) {
  index_t most = 0;
  for (index_t r : rows) most = r > most ? r : most;
  return static_cast<std::size_t>(most * row);
}

/// `s` with its axis 0 replaced by `rows` (a shard's shape).
inline shape with_rows(const shape& s, index_t rows) {
  shape r = s;
  r[0] = rows;
  return r;
}

/// "{0,1}".
inline std::string ids_str(const std::vector<int>& ids) {
  std::string s = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "}";
}
inline std::string rows_str(const std::vector<index_t>& rows) {
  std::string s = "{";
  for (std::size_t i = 0; i < rows.size(); ++i) s += (i ? "," : "") + std::to_string(rows[i]);
  return s + "}";
}
/// How an array of shape `s` is sharded, for messages: "(7,3) over devices {0,1,2} as rows {3,2,2}".
inline std::string sharding_str(const shape& s, const std::vector<int>& ids, const std::vector<index_t>& rows) {
  return s.str() + " over devices " + ids_str(ids) + " as rows " + rows_str(rows);
}

/// Checks a device set's ids: at least one, none negative, none repeated, each
/// below `count` (the devices present; a negative count means no bound, as for
/// the host target, whose ids only label host shards). value_error names the set.
inline void check_device_ids(const std::vector<int>& ids, int count, const char* what) {
  if (ids.empty()) throw value_error(std::string(what) + ": the device set is empty");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || (count >= 0 && ids[i] >= count))
      throw value_error(std::string(what) + ": device " + std::to_string(ids[i]) + " of the set " + ids_str(ids) +
                        " is out of range (" + (count >= 0 ? std::to_string(count) + " devices present" : "negative") +
                        ")");
    for (std::size_t j = 0; j < i; ++j)
      if (ids[j] == ids[i])
        throw value_error(std::string(what) + ": device " + std::to_string(ids[i]) + " appears twice in the set " +
                          ids_str(ids));
  }
}

/// Whether a plain (unsharded) operand of shape `p` can be replicated to every
/// shard of a call whose sharded operands have rank `rank`: it must broadcast
/// against each shard's shape without covering the sharded axis, i.e. have a
/// lower rank, or the same rank with extent 1 on axis 0. (Its other dims must
/// still broadcast; broadcast_shapes checks that on the global shapes.)
inline bool replicable(const shape& p, int rank) {
  if (p.size() < rank) return true;
  return p.size() == rank && rank > 0 && p[0] == 1;
}

}  // namespace ufunc::detail
