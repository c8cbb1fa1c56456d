// Host backend of the sorts (ufunc::sort, argsort, topk, unique): a stable
// sort of each row with NumPy's order (NaN last), rows spread over the pool's
// threads (parallel.hpp). A single long row is cut into chunks sorted on the
// threads and merged pairwise (std::merge is stable), round by round. A stable
// sort has one result, so the result never depends on the thread count.
#pragma once

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "../../config.hpp"
#include "../../stream.hpp"
#include "../element.hpp"
#include "parallel.hpp"

namespace ufunc::detail {

/// a before b in NumPy's ascending order: NaNs after every number; -0.0 == +0.0.
template <class T>
UFUNC_HD bool sort_less(const T& a, const T& b) {
  if constexpr (is_half_v<T>) {
    return sort_less(static_cast<float>(a), static_cast<float>(b));
  } else {
    if (is_nan(b)) return !is_nan(a);
    return a < b;
  }
}

namespace host {

/// Stable-sorts p[0, n) by `before`; on several threads for long runs.
template <class Item, class Before>
void stable_sort_items(Item* p, index_t n, const Before& before) {
  constexpr index_t min_chunk = index_t(1) << 15;
  const int slots = parallel_slots();
  index_t chunks = 1;
  while (chunks < slots && n / (2 * chunks) >= min_chunk) chunks *= 2;
  if (chunks == 1) {
    std::stable_sort(p, p + n, before);
    return;
  }
  auto bound = [&](index_t c, index_t parts) { return n / parts * c + std::min(c, n % parts); };
  parallel_n(chunks, [&](index_t c) { std::stable_sort(p + bound(c, chunks), p + bound(c + 1, chunks), before); });
  const std::unique_ptr<Item[]> buf(new Item[static_cast<std::size_t>(n)]);  // (not std::vector<bool>)
  Item* from = p;
  Item* to = buf.get();
  // Round by round: adjacent runs of `width` chunks merged into one.
  for (index_t width = 1; width < chunks; width *= 2) {
    const index_t pairs = chunks / (2 * width);
    parallel_n(pairs, [&](index_t q) {
      const index_t a = bound(2 * q * width, chunks), m = bound((2 * q + 1) * width, chunks),
                    e = bound((2 * q + 2) * width, chunks);
      std::merge(from + a, from + m, from + m, from + e, to + a, before);
    });
    std::swap(from, to);
  }
  if (from != p) std::copy(from, from + n, p);
}

}  // namespace host

template <class Target>
struct sort_backend;

template <>
struct sort_backend<target::host> {
  /// Sorts each of `rows` rows of L keys (row-major at `keys`, NaNs canonical)
  /// stably, ascending (NaN last) or descending (NaN first), into keys_out
  /// (when not null) and the sorted positions 0..L-1 of each row into idx_out
  /// (when not null).
  template <class T>
  static void run(const T* keys, index_t rows, index_t L, T* keys_out, index_t* idx_out, bool descending, stream_ref) {
    auto row = [&](index_t r) {
      const T* k = keys + r * L;
      if (idx_out) {
        index_t* ix = idx_out + r * L;
        std::iota(ix, ix + L, index_t(0));
        if (descending) host::stable_sort_items(ix, L, [k](index_t a, index_t b) { return sort_less(k[b], k[a]); });
        else host::stable_sort_items(ix, L, [k](index_t a, index_t b) { return sort_less(k[a], k[b]); });
        if (keys_out)
          for (index_t j = 0; j < L; ++j) keys_out[r * L + j] = k[ix[j]];
      } else if (keys_out) {
        T* o = keys_out + r * L;
        std::copy(k, k + L, o);
        if (descending) host::stable_sort_items(o, L, [](const T& a, const T& b) { return sort_less(b, a); });
        else host::stable_sort_items(o, L, [](const T& a, const T& b) { return sort_less(a, b); });
      }
    };
    if (rows == 1) row(0);  // one long row: the threads share it (stable_sort_items)
    else host::parallel_n(rows, row);
  }

  /// Keys only, ascending: run without positions.
  template <class T>
  static void run_keys(const T* keys, index_t rows, index_t L, T* keys_out, stream_ref s) {
    run(keys, rows, L, keys_out, nullptr, false, s);
  }

  /// No float-key copy of its own: run takes the caller's canonical key-prep copy.
  static constexpr bool float_rows_prep = false;
  /// Sorts the keys themselves (argsort too: no order bits, no run_bits).
  static constexpr bool sorts_order_bits = false;
  static constexpr index_t select_below = 8;
  /// topk takes select() when k <= L / select_below, for every key type.
  template <class T>
  static bool selects(index_t k, index_t L, index_t) {
    return k <= L / select_below;
  }
  /// select() takes the canonical key-prep copy.
  static constexpr bool select_raw_keys = false;
  /// The first k of each row in the stable order (ascending, or descending with
  /// NaN first; ties: the lower position first) by a partial sort of the
  /// positions under that total order: O(L log k) a row. Values into vals,
  /// positions into idx (rows x k each).
  template <class T>
  static void select(const T* keys, index_t rows, index_t L, index_t k, T* vals, index_t* idx, bool descending,
                     stream_ref) {
    std::vector<std::unique_ptr<index_t[]>> scratch(static_cast<std::size_t>(host::parallel_slots()));
    for (auto& p : scratch) p.reset(new index_t[static_cast<std::size_t>(L)]);
    host::parallel_n_slots(rows, [&](index_t r, int slot) {
      const T* kr = keys + r * L;
      index_t* p = scratch[static_cast<std::size_t>(slot)].get();
      std::iota(p, p + L, index_t(0));
      auto first = [&](index_t a, index_t b) {
        const bool before = descending ? sort_less(kr[b], kr[a]) : sort_less(kr[a], kr[b]);
        const bool after = descending ? sort_less(kr[a], kr[b]) : sort_less(kr[b], kr[a]);
        return before || (!after && a < b);
      };
      std::partial_sort(p, p + k, p + L, first);
      for (index_t j = 0; j < k; ++j) {
        idx[r * k + j] = p[j];
        vals[r * k + j] = kr[p[j]];
      }
    });
  }
};

}  // namespace ufunc::detail
