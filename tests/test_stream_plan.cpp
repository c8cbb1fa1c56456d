// The streaming chunk planner (detail/stream_plan.hpp), host-only: on random
// iteration shapes with broadcast, strided and host/device operands, elementwise
// and reductions over every axis subset, the chunks must tile the iteration
// space exactly once, every operand element a chunk reads must be the one the
// unchunked call reads (host operands: inside the chunk's copied range; device
// operands: at the rebased offset), a reduction's chunked dims must be all kept
// or all reduced, and the device buffers must fit the limit (a limit of one row
// gives one row per chunk; one byte less throws out_of_memory).
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "ufunc/detail/stream_plan.hpp"

using ufunc::index_t;
using ufunc::shape;
using namespace ufunc::detail;

namespace {

std::vector<index_t> unravel(index_t i, const shape& s) {
  std::vector<index_t> m(static_cast<std::size_t>(s.size()));
  for (int d = s.size() - 1; d >= 0; --d) {
    m[static_cast<std::size_t>(d)] = i % s[d];
    i /= s[d];
  }
  return m;
}

/// The offset the unchunked call reads operand o at for iteration index m.
index_t true_offset(const stream_operand& o, const shape& it, const std::vector<index_t>& m) {
  index_t off = 0;
  for (int d = 0; d < o.shp.size(); ++d) {
    const int id = d + it.size() - o.shp.size();
    if (o.shp[d] != 1) off += m[static_cast<std::size_t>(id)] * o.strides[static_cast<std::size_t>(d)];
  }
  return off;
}

struct rig {
  shape it;
  std::vector<stream_operand> ops;
  std::vector<bool> red;  // empty: elementwise
};

stream_operand make_op(std::mt19937_64& rng, const shape& it, bool full, bool host) {
  stream_operand o;
  o.is_array = true;
  o.host = host;
  o.elem_size = std::uniform_int_distribution<int>(0, 1)(rng) ? 4 : 8;
  std::vector<index_t> d;
  int drop = full ? 0 : std::uniform_int_distribution<int>(0, it.size())(rng);
  for (int i = drop; i < it.size(); ++i) {
    const bool b = !full && std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    d.push_back(b ? 1 : it[i]);
  }
  o.shp = shape(d);
  const auto cs = ufunc::contiguous_strides(o.shp);
  for (std::size_t i = 0; i < cs.size(); ++i) o.strides[i] = cs[i];
  if (!host && o.shp.size() > 1 && std::uniform_int_distribution<int>(0, 1)(rng)) {
    // A device operand need not be contiguous: transposed strides, or gaps.
    if (std::uniform_int_distribution<int>(0, 1)(rng)) {
      std::reverse(o.strides.begin(), o.strides.begin() + o.shp.size());
      index_t st = 1;  // strides of the reversed order, so the view stays valid
      for (int i = 0; i < o.shp.size(); ++i) {
        o.strides[static_cast<std::size_t>(i)] = st;
        st *= o.shp[i];
      }
    } else {
      for (int i = 0; i < o.shp.size(); ++i) o.strides[static_cast<std::size_t>(i)] *= 3;
    }
  }
  return o;
}

rig random_rig(std::mt19937_64& rng, bool reduction) {
  rig r;
  const int nd = std::uniform_int_distribution<int>(0, 4)(rng);
  std::vector<index_t> d;
  for (int i = 0; i < nd; ++i) d.push_back(std::uniform_int_distribution<int>(1, 5)(rng) == 5 ? 1 : std::uniform_int_distribution<int>(2, 7)(rng));
  r.it = shape(d);
  if (reduction) {
    // Reductions: every axis subset, chosen at random; the result operand has
    // the keepdims shape and comes first.
    for (int i = 0; i < nd; ++i) r.red.push_back(std::uniform_int_distribution<int>(0, 1)(rng) == 1);
    stream_operand res;
    res.is_array = true;
    res.host = std::uniform_int_distribution<int>(0, 1)(rng);
    res.elem_size = 8;
    std::vector<index_t> rd;
    for (int i = 0; i < nd; ++i) rd.push_back(r.red[static_cast<std::size_t>(i)] ? 1 : r.it[i]);
    res.shp = shape(rd);
    const auto cs = ufunc::contiguous_strides(res.shp);
    for (std::size_t i = 0; i < cs.size(); ++i) res.strides[i] = cs[i];
    r.ops.push_back(res);
  } else {
    r.ops.push_back(make_op(rng, r.it, true, std::uniform_int_distribution<int>(0, 1)(rng)));
  }
  const int nin = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int k = 0; k < nin; ++k) {
    if (std::uniform_int_distribution<int>(0, 5)(rng) == 0) {
      r.ops.push_back(stream_operand{});  // a scalar
      continue;
    }
    r.ops.push_back(make_op(rng, r.it, std::uniform_int_distribution<int>(0, 2)(rng) == 0,
                            std::uniform_int_distribution<int>(0, 2)(rng) != 0));
  }
  return r;
}

/// Checks plan p of rig r against the brute-force walk of every element.
void check_plan(const rig& r, const stream_plan& p) {
  const shape it = r.it.size() == 0 ? shape{1} : r.it;
  const index_t total = it.count();
  REQUIRE(p.split >= 1);
  REQUIRE(p.split <= it.size());
  index_t rows = 1;
  for (int d = 0; d < p.split; ++d) rows *= it[d];
  CHECK(p.rows == rows);
  if (total == 0) {
    CHECK(p.chunks == 0);
    return;
  }
  CHECK(p.rows_per_chunk >= 1);
  CHECK(p.chunks == (rows + p.rows_per_chunk - 1) / p.rows_per_chunk);
  if (!r.red.empty()) {
    // Chunked dims are all kept or all reduced; partial iff reduced.
    int kind = -1;
    for (int d = 0; d < p.split; ++d) {
      if (it[d] == 1) continue;
      const int k = r.red[static_cast<std::size_t>(d)] ? 1 : 0;
      if (kind >= 0) CHECK(k == kind);
      kind = k;
    }
    if (kind >= 0) CHECK(p.partial == (kind == 1));
    // Kept first: when the first non-trivial dim is kept, no partials.
    for (int d = 0; d < it.size(); ++d)
      if (it[d] != 1) {
        if (!r.red[static_cast<std::size_t>(d)]) CHECK(!p.partial);
        break;
      }
  }
  std::vector<int> seen(static_cast<std::size_t>(total), 0);
  std::vector<int> result_chunk;  // reductions, kept mode: which chunk writes each result element
  if (!r.red.empty()) result_chunk.assign(static_cast<std::size_t>(r.ops[0].shp.count()), -1);
  for (index_t c = 0; c < p.chunks; ++c) {
    const shape cs = p.chunk_shape(c);
    REQUIRE(cs.size() == 1 + it.size() - p.split);
    CHECK(cs[0] == p.rows_of(c));
    CHECK(p.rows_of(c) >= 1);
    std::vector<chunk_operand> co;
    for (std::size_t k = 0; k < r.ops.size(); ++k) co.push_back(chunk_of(p, r.ops[k], k, c));
    for (index_t e = 0; e < cs.count(); ++e) {
      const auto lm = unravel(e, cs);
      // Global index: the chunk's row unravelled over the chunked dims.
      std::vector<index_t> m;
      shape lead(std::vector<index_t>(it.begin(), it.begin() + p.split));
      const auto rm = unravel(p.first_row(c) + lm[0], lead);
      m.insert(m.end(), rm.begin(), rm.end());
      m.insert(m.end(), lm.begin() + 1, lm.end());
      index_t flat = 0;
      for (int d = 0; d < it.size(); ++d) flat = flat * it[d] + m[static_cast<std::size_t>(d)];
      ++seen[static_cast<std::size_t>(flat)];
      if (p.partial && !r.red.empty()) {
        // argmin/argmax's index shift: the chunk's offset plus the element's
        // index over the chunk's reduced dims (its chunked axis, then the
        // reduced dims after the split) is its flattened reduced index.
        index_t global = 0, local = lm[0];
        for (int d = 0; d < it.size(); ++d)
          if (r.red[static_cast<std::size_t>(d)]) global = global * it[d] + m[static_cast<std::size_t>(d)];
        for (int d = p.split; d < it.size(); ++d)
          if (r.red[static_cast<std::size_t>(d)]) local = local * it[d] + lm[static_cast<std::size_t>(1 + d - p.split)];
        CHECK(p.reduced_offset(c) + local == global);
      }
      for (std::size_t k = 0; k < r.ops.size(); ++k) {
        const auto& o = r.ops[k];
        if (!o.is_array) {
          CHECK(p.roles[k] == stream_plan::role::scalar);
          continue;
        }
        const auto& ck = co[k];
        REQUIRE(ck.shp.size() == cs.size());
        index_t local = 0;
        for (int d = 0; d < cs.size(); ++d) {
          CHECK((ck.shp[d] == cs[d] || ck.shp[d] == 1));
          if (ck.shp[d] != 1) local += lm[static_cast<std::size_t>(d)] * ck.strides[static_cast<std::size_t>(d)];
        }
        const index_t want = true_offset(o, r.it.size() == 0 ? shape{1} : r.it, m);
        if (o.host) {
          CHECK(local >= 0);
          CHECK(local < ck.count);
          CHECK(ck.host_begin + local == want);
          CHECK(ck.host_begin >= 0);
          CHECK(ck.host_begin + ck.count <= o.shp.count());
          CHECK(static_cast<std::size_t>(ck.count) * o.elem_size <= p.buffer_bytes(k, o.elem_size));
        } else {
          CHECK(ck.host_begin + local == want);
        }
        if (k == 0 && !r.red.empty() && !p.partial) {
          auto& w = result_chunk[static_cast<std::size_t>(want)];
          CHECK((w < 0 || w == c));  // one chunk writes each result element
          w = static_cast<int>(c);
        }
      }
    }
  }
  for (index_t i = 0; i < total; ++i) CHECK(seen[static_cast<std::size_t>(i)] == 1);
}

/// The bytes one row needs, computed from the plan's roles (independently
/// checked above) and the operands' shapes.
std::size_t one_row_bytes(const rig& r, const stream_plan& p, std::size_t partial_bytes) {
  std::size_t fixed = 0, row = 0;
  for (std::size_t k = 0; k < r.ops.size(); ++k) {
    const auto& o = r.ops[k];
    if (!o.is_array || !o.host) continue;
    index_t inner = 1;
    for (int d = p.split; d < p.iter.size(); ++d) {
      const int od = d - (p.iter.size() - o.shp.size());
      inner *= od >= 0 ? o.shp[od] : 1;
    }
    if (p.roles[k] == stream_plan::role::moves) row += static_cast<std::size_t>(inner) * o.elem_size;
    else fixed += static_cast<std::size_t>(inner) * o.elem_size;
  }
  const std::size_t nb = static_cast<std::size_t>(p.buffers);
  return fixed + (p.partial ? nb * partial_bytes : 0) + nb * row;
}

}  // namespace

TEST_CASE("stream plan: elementwise chunks tile the iteration space; every operand slice in range") {
  std::mt19937_64 rng(1401);
  for (int trial = 0; trial < 600; ++trial) {
    const rig r = random_rig(rng, false);
    INFO("trial " << trial << " shape " << r.it.str());
    const auto big = plan_stream("t", r.it, r.ops, nullptr, std::size_t(1) << 40, 3);
    check_plan(r, big);
    if (r.it.count() > 0) CHECK(big.chunks == 1);  // all fits: one chunk
    // Every operand full and on the device, or host and contiguous: all dims merge.
    // A limit of exactly one row: one row per chunk; a byte less throws.
    const std::size_t row = one_row_bytes(r, big, 0);
    if (r.it.count() > 0 && row > 0) {
      const auto tiny = plan_stream("t", r.it, r.ops, nullptr, row, 3);
      CHECK(tiny.split == big.split);
      CHECK(tiny.device_bytes <= row);
      bool moves = false;
      for (auto ro : tiny.roles) moves = moves || ro == stream_plan::role::moves;
      if (moves) CHECK(tiny.rows_per_chunk == 1);
      check_plan(r, tiny);
      CHECK_THROWS_AS(plan_stream("t", r.it, r.ops, nullptr, row - 1, 3), ufunc::out_of_memory);
      // A limit in between: the buffers still fit it.
      const std::size_t mid = row + std::uniform_int_distribution<std::size_t>(0, 4 * row)(rng);
      const auto m = plan_stream("t", r.it, r.ops, nullptr, mid, 3);
      CHECK(m.device_bytes <= mid);
      check_plan(r, m);
    }
    // A chunk target smaller than the data cuts it into several chunks.
    const auto t = plan_stream("t", r.it, r.ops, nullptr, std::size_t(1) << 40, 2, 64);
    check_plan(r, t);
  }
}

TEST_CASE("stream plan: reductions over every axis subset chunk kept dims first, else reduced ones") {
  std::mt19937_64 rng(1402);
  for (int trial = 0; trial < 600; ++trial) {
    const rig r = random_rig(rng, true);
    INFO("trial " << trial << " shape " << r.it.str());
    const std::size_t pb = static_cast<std::size_t>(r.ops[0].shp.count()) * 8;
    const auto big = plan_stream("t", r.it, r.ops, &r.red, std::size_t(1) << 40, 3, 0, pb);
    check_plan(r, big);
    const std::size_t row = one_row_bytes(r, big, pb);
    if (r.it.count() > 0 && row > 0) {
      const auto tiny = plan_stream("t", r.it, r.ops, &r.red, row, 3, 0, pb);
      check_plan(r, tiny);
      bool moves = false;
      for (auto ro : tiny.roles) moves = moves || ro == stream_plan::role::moves;
      if (moves) CHECK(tiny.rows_per_chunk == 1);
      CHECK_THROWS_AS(plan_stream("t", r.it, r.ops, &r.red, row - 1, 3, 0, pb), ufunc::out_of_memory);
    }
  }
}

TEST_CASE("stream plan: fixed cases") {
  auto host = [](const shape& s, std::size_t es = 4) {
    stream_operand o;
    o.is_array = true;
    o.host = true;
    o.elem_size = es;
    o.shp = s;
    const auto cs = ufunc::contiguous_strides(s);
    for (std::size_t i = 0; i < cs.size(); ++i) o.strides[i] = cs[i];
    return o;
  };
  SUBCASE("a row-broadcast operand rules out merging both dims; it is copied once") {
    const shape it{1001, 7};
    const std::vector<stream_operand> ops{host(it), host(it), host(shape{7})};
    const auto p = plan_stream("t", it, ops, nullptr, 3 * 2 * 7 * 4 + 7 * 4, 3);
    CHECK(p.split == 1);
    CHECK(p.roles[2] == stream_plan::role::fixed);
    CHECK(p.rows_per_chunk == 1);
    CHECK(p.chunks == 1001);
  }
  SUBCASE("one row (n = 1, a 0-d call, leading dims of extent 1): every host operand moves") {
    for (const shape& it : {shape{1}, shape{}, shape{1, 1, 1}}) {
      CAPTURE(it.str());
      const std::vector<stream_operand> ops{host(it), host(it), host(it)};
      const auto p = plan_stream("t", it, ops, nullptr, std::size_t(1) << 30, 3);
      CHECK(p.chunks == 1);
      for (std::size_t k = 0; k < ops.size(); ++k) CHECK(p.roles[k] == stream_plan::role::moves);
    }
  }
  SUBCASE("a column-broadcast operand moves along the chunked axis") {
    const shape it{9, 5};
    const std::vector<stream_operand> ops{host(it), host(shape{9, 1})};
    const auto p = plan_stream("t", it, ops, nullptr, std::size_t(1) << 30, 3);
    CHECK(p.split == 1);
    CHECK(p.roles[1] == stream_plan::role::moves);
  }
  SUBCASE("a strided host view is refused with a message") {
    stream_operand o = host(shape{4, 4});
    o.strides[0] = 8;
    const std::vector<stream_operand> ops{host(shape{4, 4}), o};
    CHECK_THROWS_AS(plan_stream("t", shape{4, 4}, ops, nullptr, std::size_t(1) << 30, 3), ufunc::value_error);
  }
  SUBCASE("a whole reduction is partial along every dim") {
    const shape it{6, 5, 3};
    const std::vector<bool> red{true, true, true};
    const std::vector<stream_operand> ops{host(shape{1, 1, 1}, 8), host(it)};
    const auto p = plan_stream("t", it, ops, &red, std::size_t(1) << 30, 3, 0, 8);
    CHECK(p.partial);
    CHECK(p.split == 3);
    CHECK(p.roles[0] == stream_plan::role::fixed);
    // A row-broadcast second input keeps dims 1 and 2 out of the chunked axis:
    // a chunk row then spans 5 x 3 reduced elements.
    const std::vector<stream_operand> ops2{host(shape{1, 1, 1}, 8), host(it), host(shape{5, 3})};
    const auto q = plan_stream("t", it, ops2, &red, 3 * 2 * 15 * 4 + 15 * 4 + 3 * 8, 3, 0, 8);
    CHECK(q.partial);
    CHECK(q.split == 1);
    CHECK(q.rows_per_chunk == 1);
    for (index_t c = 0; c < q.chunks; ++c) CHECK(q.reduced_offset(c) == 15 * c);
  }
  SUBCASE("an axis-0 reduction of a matrix streams its rows as partials") {
    const shape it{100, 3};
    const std::vector<bool> red{true, false};
    const std::vector<stream_operand> ops{host(shape{1, 3}, 8), host(it)};
    const auto p = plan_stream("t", it, ops, &red, 3 * 12 + 24 + 3 * 24, 3, 0, 24);
    CHECK(p.partial);
    CHECK(p.split == 1);
    CHECK(p.rows_per_chunk == 1);
    CHECK(p.reduced_offset(57) == 57);  // argmax along axis 0: the row itself
  }
}
