// Workloads (3) gaussian pdf (the seed's, scalars broadcast), hypot and polar
// distance over N = 2^lo ... 2^hi float32: a host loop (one thread) and the ufunc
// host target (up to 2^host_hi), and the device (resident, into out; thrust::transform of the same
// functor beside the gaussian in a CUDA build); the broadcast (m,1) + (1,m);
// and (4) the host time per call at small N against an empty raw launch,
// interleaved. Bytes counted: every input read and the output written.
#include "sweep.hpp"

#include <array>
#include <tuple>
#include <utility>

#if defined(UFUNC_BACKEND_CUDA)
#  include <thrust/execution_policy.h>
#  include <thrust/transform.h>
#endif

namespace sweep {
namespace {

struct hypot_f {
  UFUNC_HD float operator()(float a, float b) const { return sqrtf(a * a + b * b); }
};
struct polar_f {  // distance of two points given in polar coordinates (examples/polar_distance.cpp)
  UFUNC_HD float operator()(float r1, float t1, float r2, float t2) const {
    const float x1 = r1 * cosf(t1), y1 = r1 * sinf(t1), x2 = r2 * cosf(t2), y2 = r2 * sinf(t2);
    return sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
  }
};
struct add_f {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
#if defined(UFUNC_BACKEND_CUDA)
struct gauss01_f {  // the gaussian with its scalars bound, for thrust::transform
  UFUNC_HD float operator()(float x) const { return gauss_f{}(x, 0.0f, 1.0f); }
};
__global__ void empty_kernel() {}
#endif

/// One elementwise workload: NA array inputs (host data `in`, max_n elements
/// each) and the trailing scalars `sc`.
template <class F, std::size_t NA, class... S, std::size_t... I>
void elementwise_case(context& c, const std::string& w, F f, const std::array<std::vector<float>, NA>& in,
                      std::tuple<S...> sc, std::index_sequence<I...>) {
  using ufunc::index_t;
  const auto& cfg = c.cfg;
  const std::size_t max_n = in[0].size();
  const auto hf = ufunc::vectorize<ufunc::target::host>(f, w.c_str());
  const auto df = ufunc::vectorize(f, w.c_str());
  std::array<ufunc::array<float>, NA> d{ufunc::to_device(in[I])...};
  auto dout = ufunc::empty<float>(ufunc::shape{static_cast<index_t>(max_n)});
  std::vector<float> want(max_n), hout(max_n);

  for (int e : exponents(cfg.lo, cfg.hi)) {
    const std::size_t n = std::size_t(1) << e;
    const index_t ni = static_cast<index_t>(n);
    const double bytes = 4.0 * (NA + 1) * n;
    const int k = static_cast<int>(std::min<std::size_t>(rotation_copies(bytes), max_n / n));
    const std::string shp = shape_str({static_cast<long long>(n)}), tag = w + " 2^" + std::to_string(e);
    auto emit = [&](const std::string& impl, const timing& t, bool on_device) {
      const auto lim = bandwidth_limit(c, on_device);
      c.rec.row(w, impl, shp, "float32", double(n), t, bytes, "GB/s", lim.first, lim.second);
    };
    c.rec.progress(tag);

    // host loop, one thread: also the reference of every other implementation.
    // Above 2^host_hi the host series stop (seconds a call) and the reference
    // is the same loop spread over the host's cores by OpenMP.
    const bool host_rows = e <= cfg.host_hi;
    auto loop = [&](std::size_t off) {
      std::apply([&](auto... s) {
        for (std::size_t i = 0; i < n; ++i) want[off + i] = f(in[I][off + i]..., s...);
      }, sc);
    };
    if (host_rows) {
      loop(0);
      int rot = 0;  // rewrites copy 0 with the same values: it stays the reference
      emit("host loop (1 thread)", measure<ufunc::target::host>([&] { loop(std::size_t(rot++ % k) * n); }, e >= 25 ? cfg.slow : cfg.host), false);
    } else {
      const long long nn = static_cast<long long>(n);
      std::apply([&](auto... s) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < nn; ++i) want[std::size_t(i)] = f(in[I][std::size_t(i)]..., s...);
      }, sc);
    }
    // ufunc host target, into out
    if (host_rows) {
      auto run = [&](std::size_t off) {
        std::apply([&](auto... s) {
          hf(ufunc::make_view<ufunc::target::host>(const_cast<float*>(in[I].data()) + off, ufunc::shape{ni})..., s...,
             ufunc::out(ufunc::make_view<ufunc::target::host>(hout.data() + off, ufunc::shape{ni})));
        }, sc);
      };
      run(0);
      int rot = 0;
      if (all_close(c.rec, hout.data(), want.data(), n, tag + " host target"))
        emit("ufunc host target", measure<ufunc::target::host>([&] { run(std::size_t(rot++ % k) * n); }, cfg.host), false);
    }
    // device, resident, into out
    {
      auto run = [&](std::size_t off) {
        std::apply([&](auto... s) {
          df(ufunc::make_view(d[I].data() + off, ufunc::shape{ni})..., s...,
             ufunc::out(ufunc::make_view(dout.data() + off, ufunc::shape{ni})));
        }, sc);
      };
      // checked through a fresh array of n elements (a read of the first n of dout
      // would need a copy kernel of its own)
      auto fresh = ufunc::empty<float>(ufunc::shape{ni});
      std::apply([&](auto... s) { df(ufunc::make_view(d[I].data(), ufunc::shape{ni})..., s..., ufunc::out(fresh)); }, sc);
      const std::vector<float> got = fresh.to_host();
      if (all_close(c.rec, got.data(), want.data(), n, tag + " " + c.dev)) {
        int rot = 0;
        std::vector<std::function<void()>> fns{[&] { run(std::size_t(rot++ % k) * n); }};
#if defined(UFUNC_BACKEND_CUDA)
        int trot = 0;
        if constexpr (NA == 1 && sizeof...(S) == 2)  // the gaussian: thrust::transform of the same math
          fns.push_back([&] {
            const std::size_t off = std::size_t(trot++ % k) * n;
            thrust::transform(thrust::cuda::par_nosync, d[0].data() + off, d[0].data() + off + n, dout.data() + off,
                              gauss01_f{});
          });
#endif
        const auto t = measure_interleaved<ufunc::target::device>(fns, cfg.device);
        emit("ufunc " + c.dev, t[0], true);
        if (t.size() > 1) emit("thrust::transform", t[1], true);
      }
    }
  }
}

}  // namespace

void elementwise_workloads(context& c) {
  const std::size_t max_n = std::size_t(1) << c.cfg.hi;
  elementwise_case(c, "gaussian_pdf", gauss_f{}, std::array<std::vector<float>, 1>{uniform(max_n, 11, -3, 3)},
                   std::make_tuple(0.0f, 1.0f), std::make_index_sequence<1>{});
  elementwise_case(c, "hypot", hypot_f{}, std::array<std::vector<float>, 2>{uniform(max_n, 12), uniform(max_n, 13)},
                   std::tuple<>{}, std::make_index_sequence<2>{});
  elementwise_case(c, "polar_distance", polar_f{},
                   std::array<std::vector<float>, 4>{uniform(max_n, 14, 0, 1), uniform(max_n, 15, 0, 6.2831853f),
                                                     uniform(max_n, 16, 0, 1), uniform(max_n, 17, 0, 6.2831853f)},
                   std::tuple<>{}, std::make_index_sequence<4>{});

  // broadcast (m,1) + (1,m) -> (m,m): bytes written (the inputs stay in cache)
  using ufunc::index_t;
  const auto add_h = ufunc::vectorize<ufunc::target::host>(add_f{}, "add");
  const auto add_d = ufunc::vectorize(add_f{}, "add");
  for (index_t m : c.cfg.quick ? std::vector<index_t>{64, 256} : std::vector<index_t>{1024, 2048, 4096, 8192}) {
    const auto hc = uniform(std::size_t(m), 21), hr = uniform(std::size_t(m), 22);
    auto col = ufunc::to_device(hc, {m, 1});
    auto row = ufunc::to_device(hr, {1, m});
    auto hcol = ufunc::asarray<ufunc::target::host>(hc, {m, 1});
    auto hrow = ufunc::asarray<ufunc::target::host>(hr, {1, m});
    auto big = ufunc::empty<float>({m, m});
    auto hbig = ufunc::empty<float, ufunc::target::host>({m, m});
    const std::string shp = shape_str({m, m}), tag = "broadcast_add " + shp;
    c.rec.progress(tag);
    auto correct = [&](const std::vector<float>& got, const char* who) {
      bool ok = true;
      for (index_t i = 0; i < m && ok; ++i)
        for (index_t j = 0; j < m && ok; ++j) ok = got[std::size_t(i * m + j)] == hc[std::size_t(i)] + hr[std::size_t(j)];
      return c.rec.check(ok, tag + " " + who);
    };
    const double bytes = 4.0 * double(m) * m;
    add_h(hcol, hrow, ufunc::out(hbig));
    if (correct(std::vector<float>(hbig.data(), hbig.data() + m * m), "host target"))
      c.rec.row("broadcast_add", "ufunc host target", shp, "float32", double(m) * m,
                measure<ufunc::target::host>([&] { add_h(hcol, hrow, ufunc::out(hbig)); }, c.cfg.host), bytes, "GB/s", 0, "");
    add_d(col, row, ufunc::out(big));
    if (correct(big.to_host(), c.dev.c_str())) {
      const auto lim = bandwidth_limit(c, true);
      c.rec.row("broadcast_add", "ufunc " + c.dev, shp, "float32", double(m) * m,
                measure<ufunc::target::device>([&] { add_d(col, row, ufunc::out(big)); }, c.cfg.device), bytes, "GB/s",
                lim.first, lim.second);
    }
  }
}

void overhead_workload(context& c) {
  using ufunc::index_t;
  const auto g = ufunc::vectorize(gauss_f{}, "gaussian_pdf");
  const int calls = c.cfg.quick ? 200 : 2000, rounds = c.cfg.quick ? 5 : 15;
  for (index_t n : {index_t(1), index_t(1024), index_t(1) << 16}) {
    const auto hx = uniform(std::size_t(n), 31, -3, 3);
    auto x = ufunc::to_device(hx);
    auto y = ufunc::empty_like(x);
    const std::string shp = shape_str({n}), tag = "call_overhead " + shp;
    c.rec.progress(tag);
    g(x, 0.0f, 1.0f, ufunc::out(y));
    const auto got = y.to_host();
    bool ok = true;
    for (std::size_t i = 0; i < hx.size(); ++i) ok = ok && std::fabs(got[i] - gauss_f{}(hx[i], 0, 1)) <= 1e-5f * got[i] + 2e-6f;
    if (!c.rec.check(ok, tag)) continue;
    std::vector<std::function<void()>> fns{[&] { g(x, 0.0f, 1.0f, ufunc::out(y)); },
                                           [&] { auto r = g(x, 0.0f, 1.0f); (void)r; }};
#if defined(UFUNC_BACKEND_CUDA)
    fns.push_back([] { empty_kernel<<<1, 32>>>(); });
    const bool raw = true;
#else
    const bool raw = false;  // the host backend has no launch to compare with
#endif
    const auto s = host_seconds_per_call_interleaved(fns, calls, rounds);
    const double limit = raw ? 1.0 / s[2] : 0;  // calls/s of the raw launch
    const std::string src = raw ? "empty raw <<<1,32>>> launch, interleaved" : "";
    c.rec.row("call_overhead", "ufunc " + c.dev + " into out", shp, "float32", double(n), {s[0] * 1e3, rounds}, 1,
              "calls/s", limit, src);
    c.rec.row("call_overhead", "ufunc " + c.dev + " allocating", shp, "float32", double(n), {s[1] * 1e3, rounds}, 1,
              "calls/s", limit, src);
    if (raw)
      c.rec.row("call_overhead", "raw empty launch", shp, "none", double(n), {s[2] * 1e3, rounds}, 1, "calls/s", limit,
                src);
  }
}

}  // namespace sweep
