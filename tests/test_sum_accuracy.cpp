// Float sums whose error must not grow with N (docs/reductions.md: |error| <=
// (log2(N) + 32) eps sum|x| on every path; these tests hold the tighter 2 log2(N)
// eps sum|x|, eps the unit roundoff of the element type), on data chosen to expose a
// serial accumulator: a constant (every rounding of a long serial run has the
// same sign), many equal values behind one large one (a float accumulator past
// 2^24 drops each following 1.0), and random values. References are exact:
// computed in double (float data) or with a compensated double sum (double data).
// Every target: 2^20 + 3 elements (whole, rows, columns, mean, dot, a lazy sum,
// double). CUDA target: 2^28 and 2^32 elements (whole, axis 0 columns, mean) made
// on the device. UFUNC_LARGE_TESTS=1: more than 2^34 elements sharded over every
// GPU and streamed from host memory (about 70 GiB of host and device memory).
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

/// sum and sum|x| of float data, exactly enough (double, Neumaier).
struct exact_sum {
  double s = 0, c = 0, abs = 0;
  void add(double v) {
    const double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
    abs += std::fabs(v);
  }
  double value() const { return s + c; }
};

template <class T>
double bound_of(double n, double abs_sum) {
  const double eps = std::numeric_limits<T>::epsilon() / 2;  // unit roundoff: 2^-24, 2^-53
  return 2 * std::max(1.0, std::log2(n)) * eps * abs_sum;
}

template <class T>
void check_within(const char* what, double got, const exact_sum& ref, double n) {
  const double err = std::fabs(got - ref.value());
  const double bound = bound_of<T>(n, ref.abs);
  INFO(what << ": n " << n << " got " << got << " exact " << ref.value() << " error " << err << " bound " << bound
            << " relative " << err / std::max(1e-300, std::fabs(ref.value())));
  CHECK(err <= bound);
}

/// The three kinds of data, n values.
template <class T>
std::vector<T> make_data(int kind, std::size_t n, std::uint64_t seed) {
  std::vector<T> h(n);
  std::mt19937_64 rng(seed);
  if (kind == 0) {
    for (auto& v : h) v = static_cast<T>(0.1);
  } else if (kind == 1) {
    for (auto& v : h) v = T(1);
    h[0] = static_cast<T>(std::ldexp(1.0, std::numeric_limits<T>::digits));  // 2^24 (float), 2^53 (double)
  } else {
    std::uniform_real_distribution<double> u(-1.0, 3.0);
    for (auto& v : h) v = static_cast<T>(u(rng));
  }
  return h;
}

template <class Tg, class T>
void check_moderate(std::uint64_t seed) {
  constexpr bool host = std::is_same_v<Tg, ufunc::target::host>;
  const index_t n = (index_t(1) << 20) + 3;
  for (int kind = 0; kind < 3; ++kind) {
    INFO((host ? "host" : "device") << " target, " << sizeof(T) * 8 << "-bit, data " << kind
                                    << " (0: 0.1 each, 1: 2^digits then ones, 2: uniform [-1,3)), seed " << seed);
    const auto h = make_data<T>(kind, static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(kind));
    const auto x = ufunc::asarray<Tg>(h);
    exact_sum all;
    for (T v : h) all.add(v);
    check_within<T>("sum", ufunc::sum(x), all, double(n));
    // mean: the sum's bound over n.
    {
      const double m = ufunc::mean(x);
      exact_sum scaled;
      scaled.s = all.value() / double(n), scaled.abs = all.abs / double(n);
      check_within<T>("mean", m, scaled, double(n));
    }
    // A lazy sum: x * 1 + 0, fused into the reduction.
    check_within<T>("lazy sum", ufunc::sum(ufunc::lazy(x) * T(1) + T(0)), all, double(n));
    // dot(x, ones) through map_reduce(a * b, plus).
    {
      const std::vector<T> ones(h.size(), T(1));
      const auto y = ufunc::asarray<Tg>(ones);
      auto dot = ufunc::map_reduce([] UFUNC_HD(T a, T b) { return a * b; }, ufunc::plus{});
      check_within<T>("dot", dot(x, y), all, double(n));
    }
    // Rows of 4 (axis 1) and columns of (n - 3) / 4 rows (axis 0), the first n - 3 elements.
    const index_t q = (n - 3) / 4;
    const auto rows = ufunc::sum(ufunc::make_view<Tg>(x.data(), shape{4, q}), ufunc::axis(1)).to_host();
    const auto cols = ufunc::sum(ufunc::make_view<Tg>(x.data(), shape{q, 4}), ufunc::axis(0)).to_host();
    for (index_t r = 0; r < 4; ++r) {
      exact_sum er, ec;
      for (index_t i = 0; i < q; ++i) er.add(h[static_cast<std::size_t>(r * q + i)]), ec.add(h[static_cast<std::size_t>(i * 4 + r)]);
      check_within<T>("row", rows[static_cast<std::size_t>(r)], er, double(q));
      check_within<T>("column", cols[static_cast<std::size_t>(r)], ec, double(q));
    }
  }
}

template <class Tg>
void check_moderate_all(std::uint64_t seed) {
  check_moderate<Tg, float>(seed);
  check_moderate<Tg, double>(seed);
}

}  // namespace

TEST_CASE("sum accuracy: 2^20 + 3 elements on every target (whole, rows, columns, mean, dot, lazy; float, double)") {
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) { check_moderate_all<decltype(tg)>(seed); });
}

#if defined(UFUNC_BACKEND_CUDA)
namespace {

/// x of n floats on the device: kind 0 all 0.1f, kind 1 ones after one 2^24.
ufunc::array<float> device_data(int kind, index_t n) {
  auto x = ufunc::full<float>(shape{n}, kind == 0 ? 0.1f : 1.0f);
  if (kind == 1) {
    const float big = 16777216.0f;
    UFUNC_CUDA_CHECK(cudaMemcpy(x.data(), &big, sizeof(float), cudaMemcpyHostToDevice));
  }
  return x;
}

exact_sum reference(int kind, double n) {
  exact_sum e;
  if (kind == 0) {
    e.s = n * double(0.1f), e.abs = e.s;
  } else {
    e.s = 16777216.0 + (n - 1), e.abs = e.s;
  }
  return e;
}

/// Makes `dev` current while it lives.
struct on_device {
  int prev = 0;
  explicit on_device(int dev) {
    UFUNC_CUDA_CHECK(cudaGetDevice(&prev));
    UFUNC_CUDA_CHECK(cudaSetDevice(dev));
  }
  ~on_device() { (void)cudaSetDevice(prev); }
};

bool device_has(std::size_t bytes) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return false;
  return free_b > bytes + (std::size_t(1) << 30);
}

void check_large(index_t n) {
  if (!device_has(static_cast<std::size_t>(n) * 4 + 64 * 1024 * 1024)) {
    MESSAGE("skipped " << n << " elements: not enough device memory");
    return;
  }
  for (int kind = 0; kind < 2; ++kind) {
    INFO("n " << n << " data " << kind << " (0: 0.1f each, 1: 2^24 then ones)");
    const auto x = device_data(kind, n);
    const exact_sum ref = reference(kind, double(n));
    check_within<float>("sum", ufunc::sum(x), ref, double(n));
    exact_sum mref;
    mref.s = ref.value() / double(n), mref.abs = ref.abs / double(n);
    check_within<float>("mean", ufunc::mean(x), mref, double(n));
    // Columns: (n / 1024, 1024) along axis 0; column 0 holds the large value.
    const index_t rows = n / 1024;
    const auto cols = ufunc::sum(ufunc::make_view(x.data(), shape{rows, 1024}), ufunc::axis(0)).to_host();
    exact_sum c0 = reference(kind, double(rows)), c1;
    c1.s = double(rows) * (kind == 0 ? double(0.1f) : 1.0), c1.abs = c1.s;
    check_within<float>("column 0", cols[0], c0, double(rows));
    for (std::size_t c = 1; c < cols.size(); c += 97) check_within<float>("column", cols[c], c1, double(rows));
  }
}

}  // namespace

TEST_CASE("sum accuracy: 2^28 and 2^32 floats on the GPU (whole, mean, axis 0)" * doctest::skip(!ufunc::cuda_backend)) {
  check_large(index_t(1) << 28);
  check_large(index_t(1) << 32);
  // Past 2^30 packs of 4 (two CUB calls) with 3 elements beyond the last pack.
  check_large((index_t(1) << 32) + (index_t(1) << 20) + 3);
}

namespace {

/// Lowers the items per CUB call while it lives, so that whole reductions of a
/// few thousand elements run the chunked path of reductions past 2^30 items.
struct chunk_items_scope {
  index_t prev;
  explicit chunk_items_scope(index_t n) : prev(ufunc::detail::cub_chunk_items()) {
    ufunc::detail::cub_chunk_items() = n;
  }
  ~chunk_items_scope() { ufunc::detail::cub_chunk_items() = prev; }
  chunk_items_scope(const chunk_items_scope&) = delete;
  chunk_items_scope& operator=(const chunk_items_scope&) = delete;
};

/// max without an identity: a reduction of `maybe` values.
struct max_no_identity {
  template <class A>
  UFUNC_HD A operator()(A a, A b) const {
    return a > b ? a : b;
  }
};

void check_chunked(std::uint64_t seed, index_t chunk) {
  INFO("seed " << seed << ", " << chunk << " items a chunk");
  std::mt19937_64 rng(seed);
  chunk_items_scope scope(chunk);
  const index_t n = 20000 + static_cast<index_t>(rng() % 60000);
  INFO("n " << n);
  // float: packs (aligned), the pointer path (a view one element in), into out, mean
  const auto hf = test::random_vector<float>(static_cast<std::size_t>(n), rng());
  const auto xf = ufunc::to_device(hf);
  exact_sum ef, ef1;
  for (index_t i = 0; i < n; ++i) ef.add(hf[static_cast<std::size_t>(i)]), ef1.add(i ? hf[static_cast<std::size_t>(i)] : 0.0f);
  check_within<float>("float sum", ufunc::sum(xf), ef, double(n));
  check_within<float>("float sum of a view one element in", ufunc::sum(ufunc::make_view(xf.data() + 1, shape{n - 1})), ef1,
                      double(n));
  {
    // Views 1-3 elements in, of every length class: the elements before the
    // first 16-byte boundary and after the last whole pack are added by the
    // storing thread (the GPU's pack_tail). The documented bound, (log2 N + 32)
    // eps sum|x| (docs/reductions.md), for every length.
    auto documented = [](const char* what, double got, const exact_sum& e, double len, double eps) {
      INFO(what << ": len " << len << " got " << got << " exact " << e.value());
      CHECK(std::fabs(got - e.value()) <= (std::log2(len) + 32) * eps * e.abs);
    };
    const auto hd = test::random_vector<double>(static_cast<std::size_t>(n), rng());
    const auto xd = ufunc::to_device(hd);
    for (index_t off : {index_t(1), index_t(2), index_t(3)})
      for (index_t len : {index_t(1), index_t(2), index_t(3), index_t(4), index_t(5), index_t(7), index_t(9), n - off}) {
        INFO("offset " << off);
        exact_sum e, e7, edd;
        e7.add(0.75);
        for (index_t i = off; i < off + len; ++i) {
          const auto u = static_cast<std::size_t>(i);
          e.add(hf[u]), e7.add(hf[u]), edd.add(hd[u]);
        }
        const auto v = ufunc::make_view(xf.data() + off, shape{len});
        documented("float view", ufunc::sum(v), e, double(len), 0x1p-24);
        documented("float view from 0.75", ufunc::reduce(ufunc::plus{}, 0.75f)(v), e7, double(len), 0x1p-24);
        documented("double view", ufunc::sum(ufunc::make_view(xd.data() + off, shape{len})), edd, double(len), 0x1p-53);
      }
  }
  ufunc::array<float> r(shape(std::vector<index_t>{}));
  ufunc::sum(xf, ufunc::out(r));
  check_within<float>("float sum into out", r.to_host()[0], ef, double(n));
  exact_sum em;
  em.s = ef.value() / double(n), em.abs = ef.abs / double(n);
  check_within<float>("float mean", ufunc::mean(xf), em, double(n));
  // Another initial value: each chunk starts from the last one's result (the
  // n % 4 tail elements are added once, by the last chunk's store).
  exact_sum ef7 = ef;
  ef7.add(0.75);
  check_within<float>("float sum from 0.75", ufunc::reduce(ufunc::plus{}, 0.75f)(xf), ef7, double(n));
  // Several contiguous inputs (pack_map_sum): a dot, a three-input expression,
  // float with double (items of two elements), and a view one element in (not
  // aligned: the row kernels).
  const auto hg = test::random_vector<float>(static_cast<std::size_t>(n), rng());
  const auto yf = ufunc::to_device(hg);
  // The terms are the device's own: a float product is rounded alike on both
  // sides; x * y + x is either rounded twice or fused (nvcc contracts it), so
  // its check allows the two candidates' difference, term by term, and nothing more.
  exact_sum edot, e3, edot1;
  double fused_slack = 0;
  for (index_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    volatile float prod = hf[u] * hg[u];  // (volatile: no contraction here)
    const float twice = prod + hf[u], fused = std::fma(hf[u], hg[u], hf[u]);
    edot.add(double(prod));
    e3.add(double(twice));
    fused_slack += std::fabs(double(fused) - double(twice));
    if (i) edot1.add(double(prod));
  }
  auto check_expr = [&](const char* what, double got, const exact_sum& e, double slack) {
    INFO(what << ": got " << got << " exact " << e.value() << " slack " << slack);
    CHECK(std::fabs(got - e.value()) <= bound_of<float>(double(n), e.abs) + slack);
  };
  check_expr("dot", ufunc::sum(ufunc::lazy(xf) * yf), edot, 0.0);
  {
    ufunc::array<float> fresh(shape(std::vector<index_t>{}));  // poisoned in test builds: must be written
    ufunc::sum(ufunc::lazy(xf) * yf, ufunc::out(fresh));
    check_expr("dot into out", fresh.to_host()[0], edot, 0.0);
  }
  check_expr("x * y + x", ufunc::sum(ufunc::lazy(xf) * yf + xf), e3, fused_slack);
  const auto x1 = ufunc::make_view(xf.data() + 1, shape{n - 1});
  const auto y1 = ufunc::make_view(yf.data() + 1, shape{n - 1});
  check_expr("dot of views one element in", ufunc::sum(ufunc::lazy(x1) * y1), edot1, 0.0);
  // double: compensated packs
  const auto hd = test::random_vector<double>(static_cast<std::size_t>(n), rng());
  exact_sum ed, efd;
  for (double v : hd) ed.add(v);
  for (index_t i = 0; i < n; ++i) efd.add(double(hf[static_cast<std::size_t>(i)]) * hd[static_cast<std::size_t>(i)]);
  const auto xd = ufunc::to_device(hd);
  check_within<double>("double sum", ufunc::sum(xd), ed, double(n));
  check_within<double>("float times double", ufunc::sum(ufunc::lazy(xf) * xd), efd, double(n));
  // int32: exact, with the op's identity, with another initial value (counted
  // once), and with an op that has no identity (no initial value)
  const auto hi = test::random_vector<int>(static_cast<std::size_t>(n), rng(), -100000, 100000);
  const auto xi = ufunc::to_device(hi);
  long long total = 0;
  int hmax = hi[0], hmin = hi[0];
  for (int v : hi) total += v, hmax = std::max(hmax, v), hmin = std::min(hmin, v);
  CHECK(static_cast<long long>(ufunc::sum(xi)) == total);
  CHECK(static_cast<long long>(ufunc::reduce(ufunc::plus{}, 7LL)(xi)) == total + 7);
  CHECK(ufunc::min(xi) == hmin);
  CHECK(ufunc::reduce(max_no_identity{})(xi) == hmax);
  CHECK(ufunc::reduce(ufunc::maximum{}, 0)(xi) == std::max(hmax, 0));
  // 16-bit floats: packs of 16, float accumulation, one rounding to half
  std::vector<__half> hh(static_cast<std::size_t>(n));
  exact_sum eh;
  for (auto& v : hh) v = __float2half(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 256.0f), eh.add(__half2float(v));
  const double got = __half2float(ufunc::sum(ufunc::to_device(hh)));
  CHECK(std::fabs(got - eh.value()) <= std::ldexp(std::fabs(eh.value()), -11) + bound_of<float>(double(n), eh.abs));
  // bfloat16 (its words split by shifts and masks), into a float out
  std::vector<__nv_bfloat16> hb(static_cast<std::size_t>(n));
  exact_sum eb;
  for (auto& v : hb) v = __float2bfloat16(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 64.0f), eb.add(__bfloat162float(v));
  ufunc::array<float> rb(shape(std::vector<index_t>{}));  // poisoned in test builds: must be written
  const auto xb = ufunc::to_device(hb);
  ufunc::sum(xb, ufunc::out(rb));
  check_within<float>("bfloat16 sum into a float out", rb.to_host()[0], eb, double(n));
  // 16-bit views 1-7 elements in (the packs' head up to 7 elements), a few lengths:
  // summed in float, within (log2 N + 32) eps sum|x| before the half result's rounding.
  const auto xh = ufunc::to_device(hh);
  for (index_t off : {index_t(1), index_t(3), index_t(7)})
    for (index_t len : {index_t(1), index_t(6), index_t(8), index_t(15), n - off}) {
      INFO("16-bit view " << off << " in, length " << len);
      exact_sum e16, eb16;
      for (index_t i = off; i < off + len; ++i)
        e16.add(__half2float(hh[static_cast<std::size_t>(i)])), eb16.add(__bfloat162float(hb[static_cast<std::size_t>(i)]));
      const double gh = __half2float(ufunc::sum(ufunc::make_view(xh.data() + off, shape{len})));
      CHECK(std::fabs(gh - e16.value()) <=
            std::ldexp(std::fabs(e16.value()), -11) + (std::log2(double(len)) + 32) * 0x1p-24 * e16.abs);
      ufunc::array<float> rv(shape(std::vector<index_t>{}));
      ufunc::sum(ufunc::make_view(xb.data() + off, shape{len}), ufunc::out(rv));
      const double gb = rv.to_host()[0];
      CHECK(std::fabs(gb - eb16.value()) <= std::ldexp(std::fabs(eb16.value()), -24) + (std::log2(double(len)) + 32) * 0x1p-24 * eb16.abs);
    }
}

}  // namespace

TEST_CASE("whole reductions of more items than one CUB call counts run in chunks (float, double, half, int; init)" *
          doctest::skip(!ufunc::cuda_backend)) {
  for (index_t chunk : {index_t(64), index_t(1000), index_t(4096)}) check_chunked(test::fresh_seed(), chunk);
}

TEST_CASE("whole reductions past 2^31 elements: the chunked CUB path at its real size" * doctest::skip(!ufunc::cuda_backend)) {
  const index_t n = (index_t(1) << 31) + 12345;
  if (!device_has(static_cast<std::size_t>(n))) {
    MESSAGE("skipped: not enough device memory");
    return;
  }
  // int8 ones with a few marked elements: sum exact in int64 (NumPy's widening),
  // min and max find the marks wherever the chunks split.
  auto x = ufunc::full<std::int8_t>(shape{n}, std::int8_t(1));
  const std::int8_t lo = -7, hi = 9;
  UFUNC_CUDA_CHECK(cudaMemcpy(x.data() + (index_t(1) << 30) + 3, &lo, 1, cudaMemcpyHostToDevice));
  UFUNC_CUDA_CHECK(cudaMemcpy(x.data() + n - 1, &hi, 1, cudaMemcpyHostToDevice));
  const long long want = static_cast<long long>(n) - 2 + lo + hi;
  CHECK(static_cast<long long>(ufunc::sum(x)) == want);
  CHECK(static_cast<long long>(ufunc::reduce(ufunc::plus{}, 5LL)(x)) == want + 5);
  CHECK(ufunc::min(x) == lo);
  CHECK(ufunc::reduce(max_no_identity{})(x) == hi);
}

TEST_CASE("sum accuracy: more than 2^34 floats, sharded over every GPU and streamed (UFUNC_LARGE_TESTS=1)" *
          doctest::skip(!ufunc::cuda_backend)) {
  const char* e = std::getenv("UFUNC_LARGE_TESTS");
  if (!e || std::string(e) != "1") {
    MESSAGE("skipped: set UFUNC_LARGE_TESTS=1 (about 70 GiB of host and device memory)");
    return;
  }
  const index_t n = (index_t(1) << 34) + 4096;
  const index_t cols = 1024, rows = n / cols;
  // Sharded: every GPU, rows split evenly.
  {
    ufunc::device_set gpus;
    std::size_t total_free = 0;
    for (int d : gpus.ids()) {
      on_device g(d);
      std::size_t f = 0, t = 0;
      UFUNC_CUDA_CHECK(cudaMemGetInfo(&f, &t));
      total_free += f;
    }
    if (total_free < static_cast<std::size_t>(n) * 4 + (std::size_t(gpus.size()) << 31)) {
      MESSAGE("sharded case skipped: " << total_free << " bytes free on " << gpus.size() << " GPU(s)");
    } else {
      for (int kind = 0; kind < 2; ++kind) {
        INFO("sharded over " << gpus.size() << " GPU(s), data " << kind);
        auto x = ufunc::full<float>(shape{rows, cols}, kind == 0 ? 0.1f : 1.0f, gpus);
        if (kind == 1) {
          const float big = 16777216.0f;
          on_device g(gpus.ids()[0]);
          UFUNC_CUDA_CHECK(cudaMemcpy(x.shard(0).data(), &big, sizeof(float), cudaMemcpyHostToDevice));
        }
        const exact_sum ref = reference(kind, double(n));
        // The documented sharded bound: the one-device bound plus one rounding per device.
        const double got = ufunc::sum(x);
        const double err = std::fabs(got - ref.value());
        const double bound = bound_of<float>(double(n), ref.abs) + gpus.size() * std::ldexp(1.0, -24) * ref.abs;
        INFO("got " << got << " exact " << ref.value() << " error " << err << " bound " << bound);
        CHECK(err <= bound);
      }
    }
  }
  // Streamed: a host std::vector, its sum on the current GPU in chunks.
  {
    std::vector<float> h(static_cast<std::size_t>(n), 0.1f);
    const exact_sum ref = reference(0, double(n));
    check_within<float>("streamed sum", ufunc::sum(h), ref, double(n));
    h[0] = 16777216.0f;
    for (std::size_t i = 1; i < h.size(); ++i) h[i] = 1.0f;
    check_within<float>("streamed sum", ufunc::sum(h), reference(1, double(n)), double(n));
  }
}
#endif
