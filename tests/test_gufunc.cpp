// ufunc::gufunc (issue 41): signatures parsed and refused, core dimensions bound
// and checked, loop dims broadcast, out= (strided, checked, left untouched when
// the function throws), several outputs; every result against a double loop
// over the same data, on fresh random data, on the host (and the device in CUDA
// builds).
#include "test_support.hpp"

#include <ufunc/gufunc.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gufunc_test {

using host = ufunc::target::host;

struct matvec_fn {  // (m,n),(n)->(m)
  template <class A, class X, class Y>
  UFUNC_HD void operator()(const A& a, const X& x, const Y& y) const noexcept {
    for (ufunc::index_t i = 0; i < a.shape()[0]; ++i) {
      double s = 0;
      for (ufunc::index_t j = 0; j < a.shape()[1]; ++j) s += double(a(i, j)) * double(x(j));
      y(i) = static_cast<float>(s);
    }
  }
};
struct softmax_fn {  // (n)->(n)
  template <class X, class Y>
  UFUNC_HD void operator()(const X& x, const Y& y) const noexcept {
    const ufunc::index_t n = x.shape()[0];
    float m = x(0);
    for (ufunc::index_t j = 1; j < n; ++j) m = x(j) > m ? x(j) : m;
    float s = 0;
    for (ufunc::index_t j = 0; j < n; ++j) s += expf(x(j) - m);
    for (ufunc::index_t j = 0; j < n; ++j) y(j) = expf(x(j) - m) / s;
  }
};
struct solve3_fn {  // (3,3),(3)->(3): Gaussian elimination with partial pivoting
  template <class A, class B, class X>
  UFUNC_HD void operator()(const A& a, const B& b, const X& x) const noexcept {
    double m[3][4];
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) m[i][j] = a(i, j);
      m[i][3] = b(i);
    }
    for (int c = 0; c < 3; ++c) {
      int p = c;
      for (int r = c + 1; r < 3; ++r)
        if (fabs(m[r][c]) > fabs(m[p][c])) p = r;
      for (int k = 0; k < 4; ++k) {
        const double t = m[c][k];
        m[c][k] = m[p][k];
        m[p][k] = t;
      }
      for (int r = c + 1; r < 3; ++r) {
        const double f = m[r][c] / m[c][c];
        for (int k = c; k < 4; ++k) m[r][k] -= f * m[c][k];
      }
    }
    for (int i = 2; i >= 0; --i) {
      double s = m[i][3];
      for (int k = i + 1; k < 3; ++k) s -= m[i][k] * x(k);
      x(i) = s / m[i][i];
    }
  }
};
struct minmax_fn {  // (n)->(),()
  template <class X, class Lo, class Hi>
  UFUNC_HD void operator()(const X& x, const Lo& lo, const Hi& hi) const noexcept {
    float a = x(0), b = x(0);
    for (ufunc::index_t j = 1; j < x.shape()[0]; ++j) a = x(j) < a ? x(j) : a, b = x(j) > b ? x(j) : b;
    lo() = a;
    hi() = static_cast<int>(b);
  }
};
struct ramp_fn {  // ()->(n): the output's n only from out=
  template <class S, class Y>
  UFUNC_HD void operator()(const S& s, const Y& y) const noexcept {
    for (ufunc::index_t j = 0; j < y.shape()[0]; ++j) y(j) = s() * float(j);
  }
};

std::vector<float> random_floats(std::size_t n, std::mt19937_64& g, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

template <class Tg>
void matvec_case(std::mt19937_64& g) {
  // A of (batch 5, 1, m 4, n 3) against x of (7, n 3): loop dims (5, 7) broadcast.
  const auto a = random_floats(5 * 4 * 3, g), x = random_floats(7 * 3, g);
  const auto A = ufunc::asarray<Tg>(a, ufunc::shape{5, 1, 4, 3});
  const auto X = ufunc::asarray<Tg>(x, ufunc::shape{7, 3});
  const auto mv = ufunc::gufunc<Tg>(matvec_fn{}, "(m,n),(n)->(m)");
  const auto y = mv(A, X);
  CHECK(y.shape() == ufunc::shape({5, 7, 4}));
  const auto yh = y.to_host();
  int bad = 0;
  for (int b = 0; b < 5; ++b)
    for (int k = 0; k < 7; ++k)
      for (int i = 0; i < 4; ++i) {
        double s = 0;
        for (int j = 0; j < 3; ++j) s += double(a[(b * 4 + i) * 3 + j]) * x[k * 3 + j];
        bad += std::fabs(yh[(b * 7 + k) * 4 + i] - s) > 1e-6;
      }
  CHECK(bad == 0);
  // The same into a strided out (every other column of a wider array), and a
  // transposed (strided) A.
  auto wide = ufunc::zeros<float, Tg>(ufunc::shape{5, 7, 8});
  const auto v = wide.view();
  const auto out = ufunc::make_view<Tg>(v.data(), ufunc::shape{5, 7, 4}, std::vector<ufunc::index_t>{56, 8, 2});
  const auto r = mv(A, X, ufunc::out(out));
  CHECK(r.data() == out.data());
  const auto wh = wide.to_host();
  bad = 0;
  for (int b = 0; b < 5; ++b)
    for (int k = 0; k < 7; ++k)
      for (int i = 0; i < 8; ++i) bad += wh[(b * 7 + k) * 8 + i] != (i % 2 ? 0.f : yh[(b * 7 + k) * 4 + i / 2]);
  CHECK(bad == 0);
  // A strided (transposed) core: At of (3, 20) read as A = At^T of (20, 3).
  const auto at = random_floats(3 * 20, g);
  const auto At = ufunc::asarray<Tg>(at, ufunc::shape{3, 20});
  const auto y2 = mv(At.view().transposed(), X).to_host();  // loop (7): (7, 20)
  bad = 0;
  for (int k = 0; k < 7; ++k)
    for (int i = 0; i < 20; ++i) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += double(at[j * 20 + i]) * x[k * 3 + j];
      bad += std::fabs(y2[k * 20 + i] - s) > 1e-6;
    }
  CHECK(bad == 0);
}

}  // namespace gufunc_test

using namespace gufunc_test;

TEST_CASE("gufunc: signatures parse, and malformed ones are value_errors naming the position") {
  const auto s = ufunc::detail::parse_gufunc_signature(" (m, n) ,(n)-> (m) ");
  REQUIRE(s.ins.size() == 2);
  REQUIRE(s.outs.size() == 1);
  CHECK(s.ins[0].size() == 2);
  CHECK(s.ins[0][1].name == "n");
  CHECK(s.outs[0][0].name == "m");
  const auto f = ufunc::detail::parse_gufunc_signature("(3,3),(3)->(3),()");
  CHECK(f.ins[0][0].size == 3);
  CHECK(f.outs.size() == 2);
  CHECK(f.outs[1].empty());
  for (const char* bad : {"(m,n)(n)->(m)", "(m,n),(n)", "(m,,n)->()", "(m)->(m", "(m)->(m)x", "(n?)->(n)",
                          "(a,b,c,d,e)->()", "(1a)->()", "->()"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS((void)ufunc::detail::parse_gufunc_signature(bad), ufunc::value_error);
  }
}

TEST_CASE("gufunc: matrix-vector products with broadcast loop dims, into new and strided outputs") {
  std::mt19937_64 g(test::fresh_seed());
  matvec_case<host>(g);
#if defined(UFUNC_BACKEND_CUDA)
  matvec_case<ufunc::target::device>(g);
#endif
}

TEST_CASE("gufunc: softmax of rows (n)->(n), batched 3x3 solves (3,3),(3)->(3), two outputs (n)->(),()") {
  std::mt19937_64 g(test::fresh_seed());
  const ufunc::index_t rows = 1000, n = 37;
  const auto xs = random_floats(static_cast<std::size_t>(rows * n), g, -5.f, 5.f);
  const auto X = ufunc::asarray<host>(xs, ufunc::shape{rows, n});
  const auto y = ufunc::gufunc<host>(softmax_fn{}, "(n)->(n)")(X).to_host();
  int bad = 0;
  for (ufunc::index_t r = 0; r < rows; ++r) {
    double m = -1e30, s = 0;
    for (ufunc::index_t j = 0; j < n; ++j) m = std::max(m, double(xs[r * n + j]));
    for (ufunc::index_t j = 0; j < n; ++j) s += std::exp(xs[r * n + j] - m);
    for (ufunc::index_t j = 0; j < n; ++j)
      bad += std::fabs(y[r * n + j] - std::exp(xs[r * n + j] - m) / s) > 1e-6;
  }
  CHECK(bad == 0);

  // Diagonally dominant systems (well conditioned): A x = b checked by its residual.
  const ufunc::index_t m = 4096;
  auto a = random_floats(static_cast<std::size_t>(m * 9), g);
  for (ufunc::index_t k = 0; k < m; ++k)
    for (int i = 0; i < 3; ++i) a[k * 9 + i * 4] += 4.f;
  const auto b = random_floats(static_cast<std::size_t>(m * 3), g);
  const auto solve = ufunc::gufunc<host, double>(solve3_fn{}, "(3,3),(3)->(3)");
  const auto xh = solve(ufunc::asarray<host>(a, ufunc::shape{m, 3, 3}), ufunc::asarray<host>(b, ufunc::shape{m, 3})).to_host();
  bad = 0;
  for (ufunc::index_t k = 0; k < m; ++k)
    for (int i = 0; i < 3; ++i) {
      double r = -b[k * 3 + i];
      for (int j = 0; j < 3; ++j) r += double(a[k * 9 + i * 3 + j]) * xh[k * 3 + j];
      bad += std::fabs(r) > 1e-9;
    }
  CHECK(bad == 0);
#if defined(UFUNC_BACKEND_CUDA)
  const auto xd = ufunc::gufunc<ufunc::target::device, double>(solve3_fn{}, "(3,3),(3)->(3)")(
                      ufunc::asarray(a, ufunc::shape{m, 3, 3}), ufunc::asarray(b, ufunc::shape{m, 3}))
                      .to_host();
  bad = 0;
  for (std::size_t i = 0; i < xh.size(); ++i) bad += std::fabs(xd[i] - xh[i]) > 1e-12 * (1 + std::fabs(xh[i]));
  CHECK(bad == 0);
#endif

  const auto mm = ufunc::gufunc<host, float, int>(minmax_fn{}, "(n)->(),()");
  const auto [lo, hi] = mm(X);
  CHECK(lo.shape() == ufunc::shape{rows});
  const auto loh = lo.to_host();
  const auto hih = hi.to_host();
  bad = 0;
  for (ufunc::index_t r = 0; r < rows; ++r) {
    float a0 = xs[r * n], b0 = xs[r * n];
    for (ufunc::index_t j = 1; j < n; ++j) a0 = std::min(a0, xs[r * n + j]), b0 = std::max(b0, xs[r * n + j]);
    bad += loh[r] != a0 || hih[r] != static_cast<int>(b0);
  }
  CHECK(bad == 0);
}

TEST_CASE("gufunc: shape errors name the signature's symbol and both extents; outputs checked first") {
  const auto A = ufunc::zeros<float, host>(ufunc::shape{2, 4, 3});
  const auto x4 = ufunc::zeros<float, host>(ufunc::shape{4});
  const auto mv = ufunc::gufunc<host>(matvec_fn{}, "(m,n),(n)->(m)");
  try {
    (void)mv(A, x4);
    FAIL("no shape_error");
  } catch (const ufunc::shape_error& e) {
    const std::string w = e.what();
    CHECK(w.find("dimension n is 3") != std::string::npos);
    CHECK(w.find("but 4 in input 1") != std::string::npos);
  }
  CHECK_THROWS_AS((void)mv(x4, x4), ufunc::shape_error);  // input 0 has fewer dims than (m,n)
  const auto B = ufunc::zeros<float, host>(ufunc::shape{3, 4, 3});
  const auto X = ufunc::zeros<float, host>(ufunc::shape{2, 3});
  CHECK_THROWS_AS((void)mv(B, X), ufunc::shape_error);  // loop dims (3) and (2)
  const auto any = ufunc::gufunc<host>([](const auto&...) noexcept {}, "(m,n),(n)->(m)");
  CHECK_THROWS_AS((void)any(A), ufunc::value_error);        // one input of two
  CHECK_THROWS_AS((void)any(A, x4, x4), ufunc::value_error);  // three
  auto wrong = ufunc::zeros<float, host>(ufunc::shape{2, 3});
  CHECK_THROWS_AS((void)mv(A, X, ufunc::out(wrong)), ufunc::shape_error);  // (2, 3) for (2, 4)
  auto y = ufunc::zeros<float, host>(ufunc::shape{2, 4});
  auto Y = ufunc::zeros<float, host>(ufunc::shape{2, 4, 3});
  const auto yv = Y.view();
  const auto alias = ufunc::make_view<host>(yv.data(), ufunc::shape{2, 3});
  (void)mv(Y, alias, ufunc::out(y));  // inputs may share memory with each other
  const auto overlapping = ufunc::make_view<host>(yv.data(), ufunc::shape{2, 4});
  CHECK_THROWS_AS((void)mv(Y, X, ufunc::out(overlapping)), ufunc::shape_error);  // out overlaps input 0
  CHECK_THROWS_AS((void)(ufunc::gufunc<host, float, float>(matvec_fn{}, "(m,n),(n)->(m)")), ufunc::value_error);
  // An output dimension no input sets needs the out: ()->(n).
  const auto s = ufunc::full<float, host>(ufunc::shape{3}, 2.f);
  const auto ramp = ufunc::gufunc<host>(ramp_fn{}, "()->(n)");
  CHECK_THROWS_AS((void)ramp(s), ufunc::shape_error);
  auto r = ufunc::zeros<float, host>(ufunc::shape{3, 5});
  (void)ramp(s, ufunc::out(r));
  const auto rh = r.to_host();
  int bad = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) bad += rh[i * 5 + j] != 2.f * j;
  CHECK(bad == 0);
  // Zero-size loop and core dims: nothing is called for no loop element; a core
  // of extent 0 is passed as an empty view.
  const auto none = mv(ufunc::zeros<float, host>(ufunc::shape{0, 4, 3}), ufunc::zeros<float, host>(ufunc::shape{3}));
  CHECK(none.shape() == ufunc::shape({0, 4}));
  const auto empty_core = mv(ufunc::zeros<float, host>(ufunc::shape{2, 4, 0}), ufunc::zeros<float, host>(ufunc::shape{0}));
  const auto eh = empty_core.to_host();
  CHECK(eh == std::vector<float>(8, 0.f));
}

TEST_CASE("gufunc: a function that throws on the host leaves the given out as it was") {
  const ufunc::index_t rows = 64;
  auto y = ufunc::full<float, host>(ufunc::shape{rows}, -7.f);
  // A throwing function: row k throws when its first element is 99.
  auto Z = ufunc::full<float, host>(ufunc::shape{rows, 8}, 1.f);
  const auto zv = Z.view();
  const auto throwing = ufunc::gufunc<host>(
      [](const ufunc::array_view<const float, host>& x, const ufunc::array_view<float, host>& s) {
        if (x(0) == 99.f) throw std::runtime_error("row 99");
        float t = 0;
        for (ufunc::index_t j = 0; j < x.shape()[0]; ++j) t += x(j);
        s() = t;
      },
      "(n)->()");
  for (ufunc::index_t bad_row : {ufunc::index_t(0), rows / 2, rows - 1}) {
    CAPTURE(bad_row);
    zv(bad_row, 0) = 99.f;
    CHECK_THROWS_AS((void)throwing(Z, ufunc::out(y)), std::runtime_error);
    CHECK(y.to_host() == std::vector<float>(static_cast<std::size_t>(rows), -7.f));
    zv(bad_row, 0) = 1.f;
  }
  (void)throwing(Z, ufunc::out(y));
  CHECK(y.to_host() == std::vector<float>(static_cast<std::size_t>(rows), 8.f));
}

TEST_CASE("gufunc: an output with a core dim of 0 beside one with elements: f still runs for the other") {
  using host = ufunc::target::host;
  const auto len_and_copy = ufunc::gufunc<host, float, int>(
      [](const ufunc::array_view<const float, host>& x, const ufunc::array_view<float, host>& y,
         const ufunc::array_view<int, host>& n) noexcept {
        for (ufunc::index_t j = 0; j < x.shape()[0]; ++j) y(j) = x(j);
        n() = static_cast<int>(x.shape()[0]);
      },
      "(n)->(n),()");
  const auto x = ufunc::zeros<float, host>(ufunc::shape{3, 0});
  const auto [y, n] = len_and_copy(x);
  CHECK(y.shape() == ufunc::shape({3, 0}));
  CHECK(n.to_host() == std::vector<int>{0, 0, 0});
}

TEST_CASE("gufunc: the GPU staging plan: dense cores whose loop elements follow each other, padded strides, a budget") {
  using ufunc::detail::contiguous_layout;
  using ufunc::detail::operand_layout;
  const auto sig = ufunc::detail::parse_gufunc_signature("(a),(b),(c),()->()");
  const ufunc::index_t rows = 1000;
  const auto plan = [&](std::vector<operand_layout> ins) {
    return ufunc::detail::plan_gufunc(sig, ins, {}, "t");
  };
  alignas(16) static float buf[16];
  const auto c = [](std::initializer_list<ufunc::index_t> s, std::size_t es) {
    return contiguous_layout(buf, es, ufunc::shape(std::vector<ufunc::index_t>(s)));
  };
  // Three dense row blocks (float 64, double 64, int16 64) and a 0-d core (one element: not staged).
  auto p = plan({c({rows, 64}, 4), c({rows, 64}, 8), c({rows, 64}, 2), c({rows}, 4)});
  std::size_t bytes = 0;
  const auto a16 = reinterpret_cast<std::uintptr_t>(buf);
  auto st = ufunc::detail::plan_gufunc_staging(p, {4, 8, 2, 4}, {a16, a16, a16 + 4, a16}, 128, 128 * 1024, &bytes);
  REQUIRE(st.size() == 4);
  // cp.async for blocks of 256 bytes or more of 4-, 8- or 16-byte elements: the
  // float and double rows, 16 bytes a copy (aligned, 16-byte multiples), so
  // strides of 4 mod 8 words, 16-byte multiples: 68 floats, 66 doubles (132 words).
  CHECK((st[0].on && st[0].count == 64 && st[0].pad == 68 && st[0].offset == 0 && st[0].vec16 && st[0].async16));
  CHECK((st[1].on && st[1].pad == 66 && st[1].offset == 68 * 4 * 128 && st[1].vec16 && st[1].async16));
  // int16 (2-byte elements: no cp.async): 66 elements = 33 words, odd; its
  // first block 4 bytes off 16: no 16-byte loads.
  CHECK((st[2].on && st[2].pad == 66 && st[2].offset == 34816 + 66 * 8 * 128 && !st[2].vec16));
  CHECK(!st[3].on);
  CHECK(bytes == 34816 + 67584 + 66 * 2 * 128);
  CHECK((st[0].async && st[1].async && !st[2].async && !st[2].async16));
  // 96 KiB: the double input no longer fits, the int16 one still does.
  st = ufunc::detail::plan_gufunc_staging(p, {4, 8, 2, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes);
  CHECK((st[0].on && !st[1].on && st[2].on && st[2].offset == 34816 && st[2].vec16 && bytes == 34816 + 16896));
  // 1-byte elements: a stride of 4 mod 8 bytes (68 = 17 words); odd sizes keep an odd stride.
  p = plan({c({rows, 64}, 1), c({rows, 37}, 4), c({rows, 64}, 4), c({rows}, 4)});
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes, 0);
  CHECK((st[0].on && st[0].pad == 68 && st[1].on && st[1].pad == 37 && !st[1].vec16));
  // The 37 floats (148 bytes) below async_min, then at it, 4 bytes a copy (148
  // is not a multiple of 16: the stride stays odd); a float block 2 bytes off
  // its alignment never.
  CHECK((!st[0].async && !st[1].async && st[2].async && st[2].async16 && st[2].pad == 68));
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes, 0, 148);
  CHECK((st[1].async && !st[1].async16 && st[1].pad == 37 && st[2].async16));
  // 16-byte elements, 37 a block (592 bytes): an odd stride is 4 mod 8 words.
  st = ufunc::detail::plan_gufunc_staging(p, {1, 16, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes, 0);
  CHECK((st[1].on && st[1].async16 && st[1].pad == 37));
  // A block 4 bytes off 16 (aligned to its 4-byte elements): cp.async of 4 bytes, odd stride.
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16, a16, a16 + 4, a16}, 128, 96 * 1024, &bytes, 0);
  CHECK((st[2].async && !st[2].async16 && !st[2].vec16 && st[2].pad == 65));
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16, a16 + 2, a16 + 2, a16}, 128, 96 * 1024, &bytes, 0, 4);
  CHECK((st[1].on && !st[1].async && st[2].on && !st[2].async && !st[0].async));
  // By default a block copied element by element has 128 bytes or more: the 64
  // uint8s are staged when 16-byte loads can copy them, else read in place;
  // the 37 floats (148 bytes) are staged.
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16 + 1, a16, a16, a16}, 128, 96 * 1024, &bytes);
  CHECK((!st[0].on && st[1].on && st[1].offset == 0));
  st = ufunc::detail::plan_gufunc_staging(p, {1, 4, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes);
  CHECK((st[0].on && st[0].vec16 && st[1].on));
  // Not staged: an input broadcast along the loop (stride 0), a transposed core,
  // rows with gaps, and an element size of 0 (not trivially copyable).
  operand_layout bcast = c({1, 64}, 4);
  operand_layout trans = c({rows, 64}, 4);
  trans.strides[0] = 1, trans.strides[1] = rows;
  operand_layout gaps = c({rows, 64}, 4);
  gaps.strides[0] = 128;
  p = plan({bcast, trans, gaps, c({rows}, 4)});
  st = ufunc::detail::plan_gufunc_staging(p, {4, 4, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes);
  CHECK((!st[0].on && !st[1].on && !st[2].on && bytes == 0));
  p = plan({c({rows, 64}, 4), c({rows, 64}, 4), c({rows, 64}, 4), c({rows}, 4)});
  st = ufunc::detail::plan_gufunc_staging(p, {0, 4, 4, 4}, {a16, a16, a16, a16}, 128, 96 * 1024, &bytes);
  CHECK((!st[0].on && st[1].on && st[1].offset == 0));
  // Loop dims of extent 1 and several loop dims: still one run of blocks.
  const auto sig2 = ufunc::detail::parse_gufunc_signature("(m,n)->()");
  const auto p2 = ufunc::detail::plan_gufunc(sig2, {c({4, 1, 5, 3, 2}, 4)}, {}, "t");
  st = ufunc::detail::plan_gufunc_staging(p2, {4}, {a16}, 128, 96 * 1024, &bytes, 0);
  CHECK((st[0].on && st[0].count == 6 && st[0].pad == 7 && !st[0].vec16));
}

namespace gufunc_test {
/// (n),(n),()->(n): y(j) = x(j) + 3 z(n-1-j) + w: reads every core element at
/// another position than it writes, so a block staged to the wrong place or
/// element shows.
struct mix_fn {
  template <class X, class Z, class W, class Y>
  UFUNC_HD void operator()(const X& x, const Z& z, const W& w, const Y& y) const noexcept {
    const ufunc::index_t n = x.shape()[0];
    for (ufunc::index_t j = 0; j < n; ++j) y(j) = static_cast<typename Y::value_type>(x(j) + 3 * z(n - 1 - j) + w());
  }
};

/// The device's call against a host loop, exactly (small integers in every
/// type): rows of n, x offset by `shift` elements (16-byte loads off), z
/// contiguous or broadcast (one row for all: not staged).
template <class T>
void staged_case(std::mt19937_64& g, ufunc::index_t rows, ufunc::index_t n, ufunc::index_t shift, bool z_bcast) {
  INFO("rows " << rows << " n " << n << " shift " << shift << " z broadcast " << z_bcast);
  std::vector<T> xh(static_cast<std::size_t>(rows * n + shift)), zh(static_cast<std::size_t>((z_bcast ? 1 : rows) * n)),
      wh(static_cast<std::size_t>(rows));
  for (auto& v : xh) v = static_cast<T>(g() % 9);
  for (auto& v : zh) v = static_cast<T>(g() % 7);
  for (auto& v : wh) v = static_cast<T>(g() % 5);
  const auto X = ufunc::asarray(xh, ufunc::shape{static_cast<ufunc::index_t>(xh.size())});
  const auto x = ufunc::make_view<ufunc::target::device>(X.data() + shift, ufunc::shape{rows, n});
  const auto z = ufunc::asarray(zh, z_bcast ? ufunc::shape{n} : ufunc::shape{rows, n});
  const auto w = ufunc::asarray(wh, ufunc::shape{rows});
  const auto y = ufunc::gufunc<ufunc::target::device>(mix_fn{}, "(n),(n),()->(n)")(x, z, w).to_host();
  std::size_t bad = 0;
  for (ufunc::index_t r = 0; r < rows; ++r)
    for (ufunc::index_t j = 0; j < n; ++j) {
      const T want = static_cast<T>(xh[static_cast<std::size_t>(shift + r * n + j)] +
                                    3 * zh[static_cast<std::size_t>((z_bcast ? 0 : r) * n + n - 1 - j)] + wh[static_cast<std::size_t>(r)]);
      bad += !(y[static_cast<std::size_t>(r * n + j)] == want);
    }
  CHECK(bad == 0);
}
}  // namespace gufunc_test

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("gufunc on the GPU: staged cores of every element size, partial blocks, the grid-stride loop, unstaged operands") {
  std::mt19937_64 g(test::fresh_seed());
  for (const ufunc::index_t rows : {ufunc::index_t(1), ufunc::index_t(127), ufunc::index_t(129), ufunc::index_t(1000)})
    for (const ufunc::index_t n :
         {ufunc::index_t(1), ufunc::index_t(3), ufunc::index_t(37), ufunc::index_t(64), ufunc::index_t(100), ufunc::index_t(101)})
      for (const ufunc::index_t shift : {ufunc::index_t(0), ufunc::index_t(1)}) {
        staged_case<float>(g, rows, n, shift, false);
        staged_case<std::int16_t>(g, rows, n, shift, shift == 1);
      }
  // (float rows of 64 and 100, aligned: 16-byte cp.async, 16 and 25 copies a
  // row; one element off: 4-byte cp.async.)
  staged_case<double>(g, 1000, 64, 0, false);  // 66 KiB: a block above 48 KiB of shared memory
  staged_case<double>(g, 300, 500, 0, false);  // too large to stage: read in place
  staged_case<std::uint8_t>(g, 1000, 200, 0, false);  // 1-byte elements, 4-byte loads
  staged_case<std::uint8_t>(g, 1000, 256, 0, false);  // and 16-byte loads
  staged_case<float>(g, 700001, 8, 0, false);  // more blocks than one grid: the grid-stride loop
  staged_case<float>(g, 700001, 8, 3, true);
}
#endif
