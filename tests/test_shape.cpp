// ufunc::shape and broadcast_shapes: construction, limits, NumPy notation, and the
// broadcasting rules checked against a table of NumPy cases and an independent
// reference implementation of the rule on random shapes.
#include "test_support.hpp"

#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

/// NumPy's rule written the other way round from the library: pad every shape
/// on the left with 1s to the largest rank, then per axis the dims other than 1
/// must all be equal; the result is that dim, or 1 when all are 1.
bool reference_broadcast(const std::vector<std::vector<index_t>>& shapes, std::vector<index_t>& result) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  result.assign(rank, 1);
  for (std::size_t ax = 0; ax < rank; ++ax) {
    bool have = false;
    index_t value = 1;
    for (const auto& s : shapes) {
      const std::size_t pad = rank - s.size();
      const index_t d = ax < pad ? 1 : s[ax - pad];
      if (d == 1) continue;
      if (have && d != value) return false;
      have = true;
      value = d;
    }
    result[ax] = value;
  }
  return true;
}

std::vector<shape> shapes_of(const std::vector<std::vector<index_t>>& v) {
  std::vector<shape> out;
  for (const auto& d : v) out.push_back(test::shape_of(d));
  return out;
}

std::string list_str(const std::vector<std::vector<index_t>>& v) {
  std::string s;
  for (const auto& d : v) s += test::dims_str(d) + " ";
  return s;
}

}  // namespace

TEST_CASE("shape: construction, rank, element count and NumPy notation") {
  const shape s43{4, 3};
  CHECK(s43.size() == 2);
  CHECK(s43.ndim() == 2);
  CHECK(s43[0] == 4);
  CHECK(s43[1] == 3);
  CHECK(s43.count() == 12);
  CHECK(s43.str() == "(4,3)");

  const shape s2{2};
  CHECK(s2.size() == 1);
  CHECK(s2.count() == 2);
  CHECK(s2.str() == "(2,)");

  const shape s0{};
  CHECK(s0.size() == 0);
  CHECK(s0.count() == 1);  // a rank-0 array holds one element
  CHECK(s0.str() == "()");
  CHECK(shape().size() == 0);

  const shape empty1{0};
  CHECK(empty1.size() == 1);
  CHECK(empty1.count() == 0);
  CHECK(empty1.str() == "(0,)");

  const shape e3{2, 0, 3};
  CHECK(e3.count() == 0);
  CHECK(e3.str() == "(2,0,3)");

  // Mixed integral types, 64-bit dims.
  const shape big{std::int64_t(1) << 40, 2u, short(3)};
  CHECK(big.size() == 3);
  CHECK(big[0] == (index_t(1) << 40));
  CHECK(big.count() == (index_t(6) << 40));
  CHECK(big.str() == "(" + std::to_string(index_t(1) << 40) + ",2,3)");

  // From a vector and from an iterator range.
  const std::vector<int> dims{5, 1, 7};
  CHECK(shape(dims) == shape{5, 1, 7});
  CHECK(shape(dims.begin(), dims.end()) == shape{5, 1, 7});
  const std::vector<long> none;
  CHECK(shape(none) == shape{});
  CHECK(shape(none).size() == 0);

  // Range-for over the dims.
  index_t prod = 1;
  int n = 0;
  for (index_t d : shape{2, 3, 4}) {
    prod *= d;
    ++n;
  }
  CHECK(n == 3);
  CHECK(prod == 24);
}

TEST_CASE("shape: equality compares rank and every dim") {
  CHECK(shape{4, 3} == shape{4, 3});
  CHECK(shape{4, 3} != shape{3, 4});
  CHECK(shape{3} != shape{1, 3});  // same count, different rank
  CHECK(shape{} != shape{1});
  CHECK(shape{} == shape{});
  CHECK(shape{0} != shape{0, 0});
  shape s{1, 2};
  s[1] = 5;
  CHECK(s == shape{1, 5});
}

TEST_CASE("shape: ranks 0 to 8 are accepted, 9 and negative dims throw shape_error") {
  const std::vector<index_t> eight{1, 2, 3, 4, 1, 2, 3, 4};
  for (std::size_t r = 0; r <= 8; ++r) {
    std::vector<index_t> d(eight.begin(), eight.begin() + static_cast<std::ptrdiff_t>(r));
    const shape s(d);
    CHECK(s.size() == static_cast<int>(r));
    CHECK(s.count() == test::count_of(d));
  }
  CHECK(shape::max_rank == 8);
  CHECK(shape{1, 1, 1, 1, 1, 1, 1, 1}.size() == 8);

  CHECK_THROWS_AS(shape(1, 1, 1, 1, 1, 1, 1, 1, 1), ufunc::shape_error);
  CHECK_THROWS_AS(shape(std::vector<int>(9, 2)), ufunc::shape_error);
  const std::vector<index_t> nine(9, 1);
  CHECK_THROWS_AS(shape(nine.begin(), nine.end()), ufunc::shape_error);
  CHECK_THROWS_WITH(shape(std::vector<int>(12, 1)), doctest::Contains("12"));

  CHECK_THROWS_AS(shape(-1), ufunc::shape_error);
  CHECK_THROWS_AS(shape(3, -2), ufunc::shape_error);
  CHECK_THROWS_AS(shape(std::vector<int>{4, -1}), ufunc::shape_error);
  CHECK_THROWS_WITH(shape(2, -7), doctest::Contains("-7"));

  // shape_error is an std::invalid_argument.
  static_assert(std::is_base_of_v<std::invalid_argument, ufunc::shape_error>);
  CHECK_THROWS_AS(shape(-1), std::invalid_argument);
}

TEST_CASE("shape: contiguous_strides are row-major element strides") {
  using V = std::vector<index_t>;
  CHECK(ufunc::contiguous_strides(shape{4, 3}) == V{3, 1});
  CHECK(ufunc::contiguous_strides(shape{2, 3, 4}) == V{12, 4, 1});
  CHECK(ufunc::contiguous_strides(shape{7}) == V{1});
  CHECK(ufunc::contiguous_strides(shape{}).empty());
  const shape s{2, 1, 3, 1, 2, 2, 1, 3};
  CHECK(ufunc::contiguous_strides(s) == test::row_major(test::dims_of(s)));
}

TEST_CASE("broadcast_shapes: compatible NumPy cases") {
  struct row {
    std::vector<std::vector<index_t>> in;
    std::vector<index_t> expected;
  };
  // Each row is what numpy.broadcast_shapes(*in) returns.
  const std::vector<row> table = {
      {{{4, 3}, {3}}, {4, 3}},
      {{{4, 1}, {3}}, {4, 3}},
      {{{2, 1, 3}, {4, 1}}, {2, 4, 3}},
      {{{}, {5}}, {5}},
      {{{5}, {}}, {5}},
      {{{}, {}}, {}},
      {{{}}, {}},
      {{{2, 3}}, {2, 3}},
      {{{0}, {1}}, {0}},
      {{{1}, {0}}, {0}},
      {{{0}, {}}, {0}},
      {{{0}, {0}}, {0}},
      {{{0, 3}, {1, 3}}, {0, 3}},
      {{{1, 0}, {5, 1}}, {5, 0}},
      {{{2, 0}, {0}}, {2, 0}},
      {{{3, 1}, {1, 4}}, {3, 4}},
      {{{8, 1, 6, 1}, {7, 1, 5}}, {8, 7, 6, 5}},
      {{{5, 4}, {1}}, {5, 4}},
      {{{5, 4}, {4}}, {5, 4}},
      {{{15, 3, 5}, {15, 1, 5}}, {15, 3, 5}},
      {{{15, 3, 5}, {3, 5}}, {15, 3, 5}},
      {{{15, 3, 5}, {3, 1}}, {15, 3, 5}},
      {{{256, 256, 3}, {3}}, {256, 256, 3}},
      {{{1, 1}, {1}}, {1, 1}},
      {{{2, 1, 3}, {4, 1}, {3}}, {2, 4, 3}},
      {{{1}, {0}, {1, 1}}, {1, 0}},
      {{{6, 1, 1}, {1, 5, 1}, {1, 1, 4}, {}}, {6, 5, 4}},
      {{{1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}}, {2, 2, 2, 2, 2, 2, 2, 2}},
      {{{1, 1, 1, 1, 1, 1, 1, 1}, {}}, {1, 1, 1, 1, 1, 1, 1, 1}},
      {{{3}, {1, 1, 1, 1, 1, 1, 1, 1}}, {1, 1, 1, 1, 1, 1, 1, 3}},
      {{{9, 1, 1, 1, 1, 1, 1, 2}, {3, 1, 1, 1, 1, 1, 1}}, {9, 3, 1, 1, 1, 1, 1, 2}},
  };
  for (const auto& r : table) {
    INFO("inputs " << list_str(r.in) << "expected " << test::dims_str(r.expected));
    const shape got = ufunc::broadcast_shapes(shapes_of(r.in));
    CHECK(got == test::shape_of(r.expected));
    CHECK(got.str() == test::dims_str(r.expected));
    // The order of the operands does not matter.
    std::vector<std::vector<index_t>> rev(r.in.rbegin(), r.in.rend());
    CHECK(ufunc::broadcast_shapes(shapes_of(rev)) == test::shape_of(r.expected));
  }
  // No shapes at all broadcast to rank 0 (a call with only scalars).
  CHECK(ufunc::broadcast_shapes({}) == shape{});
}

TEST_CASE("broadcast_shapes: incompatible NumPy cases throw shape_error naming op and shapes") {
  const std::vector<std::vector<std::vector<index_t>>> table = {
      {{4, 3}, {2}},
      {{2, 3}, {3, 2}},
      {{0}, {2}},
      {{2}, {0}},
      {{3}, {4}},
      {{2, 1}, {8, 4, 3}},
      {{0, 3}, {2, 3}},
      {{1}, {0}, {3}},
      {{3}, {1}, {0}},
      {{5, 4}, {5}},
      {{1, 2, 1, 2, 1, 2, 1, 2}, {1, 3, 1, 1, 1, 1, 1, 1}},
  };
  for (const auto& in : table) {
    INFO("inputs " << list_str(in));
    std::vector<index_t> ignored;
    REQUIRE_FALSE(reference_broadcast(in, ignored));  // the table itself is right
    const std::string what =
        test::message_of<ufunc::shape_error>([&] { (void)ufunc::broadcast_shapes(shapes_of(in), "my_op"); });
    INFO("message: " << what);
    REQUIRE_FALSE(what.empty());
    CHECK(what.rfind("my_op: ", 0) == 0);  // starts with the operation's name
    CHECK(test::contains(what, "cannot broadcast"));
    for (const auto& d : in) CHECK(test::contains(what, test::dims_str(d)));
  }
  // The exact wording for the documented two-operand case.
  CHECK_THROWS_WITH_AS(ufunc::broadcast_shapes({shape{4, 3}, shape{2}}, "add"), "add: cannot broadcast (4,3) with (2,)",
                       ufunc::shape_error);
  // The default operation name.
  CHECK_THROWS_WITH_AS(ufunc::broadcast_shapes({shape{4, 3}, shape{2}}), doctest::Contains("(4,3) with (2,)"),
                       ufunc::shape_error);
}

TEST_CASE("broadcast_shapes: random shapes agree with an independent reference") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> nops(1, 4), rank(0, 8), pick(0, 9);
  int ok = 0, bad = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    // Shapes built around a common target so that both outcomes occur often.
    std::vector<index_t> target(static_cast<std::size_t>(rank(rng)));
    for (auto& d : target) d = pick(rng) % 4;  // 0..3
    std::vector<std::vector<index_t>> in(static_cast<std::size_t>(nops(rng)));
    for (auto& s : in) {
      const std::size_t r = std::min<std::size_t>(target.size(), static_cast<std::size_t>(rank(rng)));
      s.assign(target.end() - static_cast<std::ptrdiff_t>(r), target.end());
      for (auto& d : s) {
        const int p = pick(rng);
        if (p < 3) d = 1;                 // a stretchable dim
        else if (p == 3) d = pick(rng) % 4;  // occasionally anything
      }
    }
    std::vector<index_t> expected;
    const bool compatible = reference_broadcast(in, expected);
    INFO("inputs " << list_str(in));
    if (compatible) {
      ++ok;
      shape got;
      REQUIRE_NOTHROW(got = ufunc::broadcast_shapes(shapes_of(in)));
      CHECK(got == test::shape_of(expected));
    } else {
      ++bad;
      CHECK_THROWS_AS(ufunc::broadcast_shapes(shapes_of(in)), ufunc::shape_error);
    }
  }
  CHECK(ok > 100);  // the generator really covers both outcomes
  CHECK(bad > 100);
}

TEST_CASE("staged_inputs: the mixed-layout tile path takes inputs whose fast dim is the outputs' second-to-last") {
  using ufunc::detail::contiguous_layout;
  using ufunc::detail::merge_layout;
  using ufunc::detail::operand_layout;
  using ufunc::detail::staged_inputs;
  static float buf[4];  // layouts only: never read
  const shape s{256, 512};
  auto transposed = [&](const shape& t) {  // a (t[1], t[0]) array viewed as t
    operand_layout l = contiguous_layout(buf, 4, shape{t[1], t[0]});
    std::swap(l.strides[0], l.strides[1]);
    l.shp = t;
    return l;
  };
  const operand_layout out = contiguous_layout(buf, 4, s), b = contiguous_layout(buf, 4, s);
  {  // out = A.T + B: A staged, B not
    const std::array<operand_layout, 3> ops{out, transposed(s), b};
    CHECK(staged_inputs<3>(merge_layout<3>(s, ops), ops, 1) == (std::uint64_t(1) << 1));
  }
  {  // all contiguous: no tile path
    const std::array<operand_layout, 3> ops{out, b, b};
    CHECK(staged_inputs<3>(merge_layout<3>(s, ops), ops, 1) == 0);
  }
  {  // a transposed output: not this path (the inputs are the outputs' fast dim)
    const std::array<operand_layout, 2> ops{transposed(s), b};
    CHECK(staged_inputs<2>(merge_layout<2>(s, ops), ops, 1) == 0);
  }
  {  // a broadcast row (stride 0 along columns... of shape (256, 1)) and a scalar are never staged
    operand_layout col = contiguous_layout(buf, 4, shape{256, 1});
    operand_layout scalar;  // is_array false
    const std::array<operand_layout, 4> ops{out, col, scalar, transposed(s)};
    CHECK(staged_inputs<4>(merge_layout<4>(s, ops), ops, 1) == (std::uint64_t(1) << 3));
  }
  {  // too short a side for tiles
    const shape thin{8, 4096};
    const std::array<operand_layout, 2> ops{contiguous_layout(buf, 4, thin), transposed(thin)};
    CHECK(staged_inputs<2>(merge_layout<2>(thin, ops), ops, 1) == 0);
  }
  {  // batched: a (3, 256, 512) output with the last two dims of an input swapped
    const shape b3{3, 256, 512};
    operand_layout t3 = contiguous_layout(buf, 4, shape{3, 512, 256});
    std::swap(t3.strides[1], t3.strides[2]);
    t3.shp = b3;
    const std::array<operand_layout, 2> ops{contiguous_layout(buf, 4, b3), t3};
    const auto m = merge_layout<2>(b3, ops);
    CHECK(m.ndim == 3);
    CHECK(staged_inputs<2>(m, ops, 1) == (std::uint64_t(1) << 1));
  }
}

namespace {
/// Every element of a merged layout as its operands' offsets (first[k] added),
/// in row-major order of the layout's dims.
template <int NOPS>
void offsets_of(const ufunc::detail::merged_layout<NOPS>& m, const std::array<index_t, NOPS>& first,
                std::vector<std::array<index_t, NOPS>>& out) {
  index_t n = 1;
  for (int d = 0; d < m.ndim; ++d) n *= m.dims[static_cast<std::size_t>(d)];
  for (index_t i = 0; i < n; ++i) {
    std::array<index_t, NOPS> o = first;
    index_t r = i;
    for (int d = m.ndim - 1; d >= 0; --d) {
      const auto ud = static_cast<std::size_t>(d);
      const index_t c = r % m.dims[ud];
      r /= m.dims[ud];
      for (int k = 0; k < NOPS; ++k) o[static_cast<std::size_t>(k)] += c * m.strides[static_cast<std::size_t>(k)][ud];
    }
    out.push_back(o);
  }
}
}  // namespace

TEST_CASE("for_each_32bit_piece: pieces within the limit cover every element once, at the same offsets") {
  using ufunc::detail::fits_32bit;
  using ufunc::detail::merged_layout;
  constexpr int NOPS = 3;
  std::mt19937_64 rng(0x5eed32);
  auto pick = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  int split_cases = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    merged_layout<NOPS> m;
    m.ndim = static_cast<int>(pick(1, 4));
    index_t n = 1;
    for (int d = 0; d < m.ndim; ++d) m.dims[static_cast<std::size_t>(d)] = pick(1, 9), n *= m.dims[static_cast<std::size_t>(d)];
    // Operand 0 contiguous (its offsets name the elements), 1 and 2 any strides,
    // negative and broadcast (0) among them.
    index_t c = 1;
    for (int d = m.ndim - 1; d >= 0; --d) {
      const auto ud = static_cast<std::size_t>(d);
      m.strides[0][ud] = c, c *= m.dims[ud];
      m.strides[1][ud] = pick(-7, 7);
      m.strides[2][ud] = pick(0, 2) == 0 ? 0 : pick(-40, 40);
    }
    const index_t lim = pick(2, 40);
    std::vector<std::array<index_t, NOPS>> whole, pieces;
    offsets_of<NOPS>(m, {}, whole);
    int count = 0;
    bool fits = true, counted = true;
    ufunc::detail::for_each_32bit_piece(
        m, n,
        [&](const merged_layout<NOPS>& p, const std::array<index_t, NOPS>& first, index_t cnt) {
          ++count;
          fits = fits && p.ndim >= 1 && fits_32bit(p, cnt, lim);
          const auto before = pieces.size();
          offsets_of<NOPS>(p, first, pieces);
          counted = counted && static_cast<index_t>(pieces.size() - before) == cnt;
        },
        lim);
    CHECK(fits);
    CHECK(counted);
    split_cases += count > 1;
    std::sort(whole.begin(), whole.end());
    std::sort(pieces.begin(), pieces.end());
    REQUIRE(pieces == whole);  // each element once (operand 0's offsets are unique), the same offsets
  }
  CHECK(split_cases > 1000);  // the limits really split most layouts

  // The real limit: a (2^16, 2^16) result of a column plus a row (2^32 elements)
  // needs a few pieces, not one a row.
  merged_layout<3> big;
  big.ndim = 2;
  big.dims = {index_t(1) << 16, index_t(1) << 16};
  big.strides[0] = {index_t(1) << 16, 1};
  big.strides[1] = {1, 0};
  big.strides[2] = {0, 1};
  int count = 0;
  index_t total = 0;
  ufunc::detail::for_each_32bit_piece(big, index_t(1) << 32, [&](const merged_layout<3>& p, const std::array<index_t, 3>& first, index_t cnt) {
    ++count, total += cnt;
    CHECK(fits_32bit(p, cnt));
    CHECK(first[0] == first[1] * (index_t(1) << 16));  // a block of whole rows
  });
  CHECK(count == 4);
  CHECK(total == index_t(1) << 32);
}
