// Workload gaussian_pdf_host (issue 14): the seed's gaussian pdf of data that
// lives in host memory, computed on the device target and returned to host
// memory, N = 2^16 ... 2^26 in steps of 4x (2^20 is issue 14's target size,
// against CuPy's asnumpy(kernel(asarray(h))) in peers.py). Implementations:
// a std::vector in and a new std::vector out (what CuPy's line does), and a
// pinned_array in and out. Both are streamed calls (chunks overlapped on
// several streams); the time is host time per call, since a streamed call
// returns when the host output holds its data. Bytes counted: the input read
// and the output written, once each. On the host backend the same calls run on
// the host (nothing streams), so the quick mode checks them.
#include "sweep.hpp"

#include <algorithm>
#include <vector>

namespace sweep {

void host_memory_workload(context& c) {
  using ufunc::index_t;
  const auto g = ufunc::vectorize(gauss_f{}, "gaussian_pdf");
  const int lo = c.cfg.quick ? 10 : 16, hi = c.cfg.quick ? 18 : 26;
  for (int e : exponents(lo, hi, 2)) {
    const std::size_t n = std::size_t(1) << e;
    const index_t ni = static_cast<index_t>(n);
    const std::string shp = shape_str({static_cast<long long>(n)}), tag = "gaussian_pdf_host 2^" + std::to_string(e);
    c.rec.progress(tag);
    const std::vector<float> h = uniform(n, 41, -3, 3);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = gauss_f{}(h[i], 0.0f, 1.0f);
    ufunc::pinned_array<float> p(ufunc::shape{ni}), q(ufunc::shape{ni});
    std::copy(h.begin(), h.end(), p.data());
    const double bytes = 8.0 * double(n);
    auto emit = [&](const std::string& impl, const timing& t) {
      c.rec.row("gaussian_pdf_host", impl, shp, "float32", double(n), t, bytes, "GB/s", 0, "");
    };
    const std::vector<float> r = g(h, 0.0f, 1.0f);
    const bool vec_ok = r.size() == n && all_close(c.rec, r.data(), want.data(), n, tag + " std::vector");
    g(p, 0.0f, 1.0f, ufunc::out(q));
    const bool pin_ok = all_close(c.rec, q.data(), want.data(), n, tag + " pinned_array");
    // interleaved: both see the same machine drift
    std::vector<std::function<void()>> fns;
    std::vector<std::string> names;
    if (vec_ok) {
      fns.push_back([&] {
        std::vector<float> out = g(h, 0.0f, 1.0f);
        (void)out;
      });
      names.push_back("ufunc " + c.dev + " std::vector in, new vector out");
    }
    if (pin_ok) {
      fns.push_back([&] { g(p, 0.0f, 1.0f, ufunc::out(q)); });
      names.push_back("ufunc " + c.dev + " pinned_array in and out");
    }
    if (fns.empty()) continue;
    const auto t = measure_interleaved<ufunc::target::host>(fns, c.cfg.host);
    for (std::size_t k = 0; k < t.size(); ++k) emit(names[k], t[k]);
  }
}

}  // namespace sweep
