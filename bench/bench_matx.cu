// ufunc against NVIDIA MatX (issue 43, part "MatX"): the nearest C++ peer, lazy
// operator expressions on the GPU. One program, both libraries, the same device
// buffers: every input is a ufunc array and MatX sees it through a non-owning
// tensor (make_tensor(ptr, shape)), so both read the same bytes. Workloads,
// float32, each written with the public API of its library as a user would:
//   hypot 2^27 (MatX has no hypot: sqrt(x*x + y*y), the math ufunc's functor does),
//   gaussian pdf 2^27 (scalars mean 0, sigma 1), the lazy chain x*b+c 2^27, the
//   six-node expression gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w on 8192^2
//   with (1, 8192) rows (MatX: rank-1 (8192) rows, its broadcasting rule), sum
//   2^27, sum over axis 0 and axis 1 of 8192^2, argmax 2^27, transpose 8192^2,
//   matmul FP32 4096^3 and 8192^3 (MatX: cuBLASLt, CUBLAS_COMPUTE_32F; it has no
//   TF32 switch for float, so no TF32 rows).
// Every result of each library is checked against a host reference (the output
// buffer poisoned with NaN bytes before each library's call) before anything is
// timed; timing is bench_util.hpp's measure_interleaved (device events on the
// default stream, which both libraries use here; a warm-up round, rounds of
// (ufunc, MatX, ...), medians). Output: CSV rows in the peers.csv schema
// (bench/README.md) into out.csv (default bench_matx.csv), printed on stdout at
// the end, then one line per workload "ratio ufunc/MatX speed" = MatX time /
// ufunc time (above 1: ufunc faster). Exits 1 when a check failed, 77 without a GPU.
//   usage: bench_matx [--quick] [out.csv]      (--quick: small sizes, a smoke run)
#include "bench_util.hpp"
#include "workloads_lazy.hpp"

#include <matx.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using ufunc::index_t;
using namespace workloads;  // mul_f ... six_f, gauss_f, hypot_f

constexpr float SQRT_2PI = 2.5066282746310002f;

/// The seed's gaussian pdf (bench_core, the sweep's gaussian_pdf workload).
struct pdf_f {
  UFUNC_HD float operator()(float x, float mean, float sigma) const {
    const float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  }
};

/// Deterministic uniform floats in [-1, 1) (splitmix64, as the sweep's inputs).
std::vector<float> uniform(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& x : v) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x = -1.0f + 2.0f * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
  }
  return v;
}

std::string shape_str(std::initializer_list<long long> dims) {
  std::string s;
  for (long long d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

/// Fills `count` floats at p with NaN bytes, so that a call that writes nothing fails its check.
void poison(void* p, std::size_t bytes) { UFUNC_CUDA_CHECK(cudaMemset(p, 0xFF, bytes)); }

/// Every got[i] within rel * scale(i) + abs_tol of want(i); the first miss is printed.
template <class Want, class Scale>
bool all_close(const std::string& what, const std::vector<float>& got, Want want, Scale scale, double rel,
               double abs_tol) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want(i);
    if (!(std::fabs(double(got[i]) - w) <= rel * scale(i) + abs_tol)) {
      std::fprintf(stderr, "%s: [%zu] = %.9g, reference %.9g\n", what.c_str(), i, got[i], w);
      return false;
    }
  }
  return true;
}

/// One workload's implementations, checked, then timed interleaved; a CSV row
/// each and a summary line (ufunc against each MatX implementation).
class comparison {
 public:
  comparison(sweep_recorder& rec, std::vector<std::string>& summary) : rec_(rec), summary_(summary) {}

  struct impl {
    std::string name;
    std::function<void()> call;
    bool ok;  ///< its result passed the check
  };

  /// impls[0] is ufunc; the others MatX. Only implementations whose check passed
  /// are timed. `label`: the summary lines' name (default: the shape).
  void run(const std::string& workload, const std::string& shp, double n, double amount, const std::string& unit,
           double limit, const std::string& limit_source, const budget& b, const std::vector<impl>& impls,
           std::string label = "") {
    if (label.empty()) label = shp;
    rec_.progress(workload + " " + label);
    std::vector<std::function<void()>> fns;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < impls.size(); ++i)
      if (impls[i].ok) fns.push_back(impls[i].call), which.push_back(i);
    if (fns.empty()) return;
    const auto t = measure_interleaved<ufunc::target::device>(fns, b);
    std::vector<double> s(impls.size(), 0);
    for (std::size_t k = 0; k < fns.size(); ++k) {
      const auto& im = impls[which[k]];
      rec_.row(workload, im.name, shp, "float32", n, t[k], amount, unit, limit, limit_source);
      s[which[k]] = t[k].ms * 1e-3;
    }
    for (std::size_t i = 1; i < impls.size(); ++i) {
      char line[512];
      if (s[0] > 0 && s[i] > 0)
        std::snprintf(line, sizeof line, "%-12s %-18s ratio ufunc/MatX speed %7.3f  (%s %.4g s, %s %.4g s)",
                      workload.c_str(), label.c_str(), s[i] / s[0], impls[0].name.c_str(), s[0], impls[i].name.c_str(),
                      s[i]);
      else
        std::snprintf(line, sizeof line, "%-12s %-18s ratio ufunc/MatX speed     n/a  (%s: check failed)",
                      workload.c_str(), label.c_str(), s[0] > 0 ? impls[i].name.c_str() : impls[0].name.c_str());
      summary_.push_back(line);
    }
  }

  /// Records a check; false when it failed.
  bool check(bool ok, const std::string& what) { return rec_.check(ok, what); }

 private:
  sweep_recorder& rec_;
  std::vector<std::string>& summary_;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string csv = "bench_matx.csv";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else
      csv = argv[i];
  }
  const auto dev = bench_device("bench_matx", with_cc_and_memory | with_memory_clock);
  if (!dev) return 77;
  std::fflush(stdout);
  const double peak_gbs = dev->peak_bandwidth() / 1e9;
  const std::string bw_src = "peak bandwidth (memory clock x bus x 2)";
  const double fp32_peak = fp32_peak_tflops();
  const std::string fp32_src = "FP32 peak (SMs x FP32 lanes x 2 x SM clock)";
  const budget mem_budget{100, 5, 20, 10};  // the sweep's device budget: batches of 10 calls
  const budget mm_budget{300, 5, 15, 1};    // calls of milliseconds: one per event pair

  std::vector<std::string> summary;
  sweep_recorder rec(csv, run_info::current());
  comparison cmp(rec, summary);
  matx::cudaExecutor ex{cudaStream_t(0)};  // the default stream, where ufunc's calls and the events go

  // ---- inputs: three 1-D arrays of 2^27; their first s^2 elements are the matrices
  const int e = quick ? 20 : 27;
  const std::size_t n = std::size_t(1) << e;
  const index_t s = quick ? 512 : 8192;  // s^2 <= n
  const std::size_t ss = std::size_t(s) * std::size_t(s);
  const std::string tag_n = shape_str({static_cast<long long>(n)}), tag_s = shape_str({s, s});
  rec.progress("inputs");
  const auto hx = uniform(n, 91), hb = uniform(n, 92), hc = uniform(n, 93);
  const auto hmx = uniform(std::size_t(s), 94), hmy = uniform(std::size_t(s), 95);
  auto x = ufunc::to_device(hx), b = ufunc::to_device(hb), c = ufunc::to_device(hc);
  auto y = ufunc::empty<float>(ufunc::shape{static_cast<index_t>(n)});
  auto mx = ufunc::to_device(hmx, {1, s}), my = ufunc::to_device(hmy, {1, s});
  auto r0 = ufunc::empty<float>(ufunc::shape{});
  auto ri = ufunc::empty<index_t>(ufunc::shape{});
  auto rs = ufunc::empty<float>(ufunc::shape{s});
  // The matrices: views of the arrays' first s^2 elements.
  auto X = ufunc::make_view(x.data(), {s, s}), Y = ufunc::make_view(b.data(), {s, s});
  auto W = ufunc::make_view(c.data(), {s, s}), R = ufunc::make_view(y.data(), {s, s});
  // MatX's tensors over the same memory (non-owning).
  const index_t ni = static_cast<index_t>(n);
  auto tx = matx::make_tensor<float>(x.data(), {ni}), tb = matx::make_tensor<float>(b.data(), {ni});
  auto tc = matx::make_tensor<float>(c.data(), {ni}), ty = matx::make_tensor<float>(y.data(), {ni});
  auto tX = matx::make_tensor<float>(x.data(), {s, s}), tY = matx::make_tensor<float>(b.data(), {s, s});
  auto tW = matx::make_tensor<float>(c.data(), {s, s}), tR = matx::make_tensor<float>(y.data(), {s, s});
  auto tmx = matx::make_tensor<float>(mx.data(), {s}), tmy = matx::make_tensor<float>(my.data(), {s});
  auto tr0 = matx::make_tensor<float>(r0.data(), {});
  // matx::index_t is long long, ufunc::index_t int64_t: the same 8 bytes.
  static_assert(sizeof(matx::index_t) == sizeof(index_t));
  auto tri = matx::make_tensor<matx::index_t>(reinterpret_cast<matx::index_t*>(ri.data()), {});
  auto trs = matx::make_tensor<float>(rs.data(), {s});

  const auto hyp = ufunc::vectorize(hypot_f{}, "hypot");
  const auto pdf = ufunc::vectorize(pdf_f{}, "gaussian_pdf");
  const auto sub = ufunc::vectorize(sub_f{}, "sub");
  const auto gauss = ufunc::vectorize(gauss_f{}, "gaussian_pdf");
  const float mean = 0.0f, sigma = 1.0f;

  // Runs `call` into `out` (poisoned first) and checks the result with `ok(host result)`.
  auto checked = [&](const std::string& what, void* out, std::size_t bytes, const std::function<void()>& call,
                     const std::function<bool(const std::vector<float>&)>& ok, std::size_t count) {
    poison(out, bytes);
    call();
    std::vector<float> h(count);
    UFUNC_CUDA_CHECK(cudaMemcpy(h.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
    return cmp.check(ok(h), what);
  };
  auto ew_check = [&](const std::function<double(std::size_t)>& want) {  // elementwise: 1e-5 relative + 2e-6
    return [want](const std::vector<float>& got) {
      return all_close("elementwise", got, want, [&](std::size_t i) { return std::fabs(want(i)); }, 1e-5, 2e-6);
    };
  };

  // ---- hypot 2^27 ---------------------------------------------------------------
  {
    rec.progress("hypot: checks");
    auto f_u = [&] { hyp(x, b, ufunc::out(y)); };
    auto f_m = [&] { (ty = matx::sqrt(tx * tx + tb * tb)).run(ex); };
    const auto want = ew_check([&](std::size_t i) { return std::sqrt(double(hx[i]) * hx[i] + double(hb[i]) * hb[i]); });
    const bool ok_u = checked("hypot ufunc", y.data(), n * 4, f_u, want, n);
    const bool ok_m = checked("hypot MatX", y.data(), n * 4, f_m, want, n);
    cmp.run("hypot", tag_n, double(n), 12.0 * n, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- gaussian pdf 2^27, scalars mean and sigma -------------------------------------
  {
    rec.progress("gaussian_pdf: checks");
    auto f_u = [&] { pdf(x, mean, sigma, ufunc::out(y)); };
    auto f_m = [&] {
      auto z = (tx - mean) / sigma;
      (ty = matx::exp(-0.5f * z * z) / (sigma * SQRT_2PI)).run(ex);
    };
    const auto want = ew_check([&](std::size_t i) {
      const double z = (double(hx[i]) - mean) / sigma;
      return std::exp(-0.5 * z * z) / (sigma * 2.5066282746310002);
    });
    const bool ok_u = checked("gaussian_pdf ufunc", y.data(), n * 4, f_u, want, n);
    const bool ok_m = checked("gaussian_pdf MatX", y.data(), n * 4, f_m, want, n);
    cmp.run("gaussian_pdf", tag_n, double(n), 8.0 * n, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- the lazy chain x*b+c 2^27 into out -----------------------------------------
  {
    rec.progress("fma_chain: checks");
    auto f_u = [&] { ufunc::evaluate(ufunc::lazy(x) * b + c, ufunc::out(y)); };
    auto f_m = [&] { (ty = tx * tb + tc).run(ex); };
    // A contracted x * b + c may differ from the rounded product plus c: scale by the terms.
    const auto want = [&](const std::vector<float>& got) {
      return all_close(
          "fma_chain", got, [&](std::size_t i) { return double(hx[i]) * hb[i] + hc[i]; },
          [&](std::size_t i) { return std::fabs(double(hx[i]) * hb[i]) + std::fabs(double(hc[i])); }, 1e-6, 1e-7);
    };
    const bool ok_u = checked("fma_chain ufunc", y.data(), n * 4, f_u, want, n);
    const bool ok_m = checked("fma_chain MatX", y.data(), n * 4, f_m, want, n);
    cmp.run("fma_chain", tag_n, double(n), 16.0 * n, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- six nodes with broadcast rows: gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w, s^2
  {
    rec.progress("six_node: checks");
    auto f_u = [&] {
      ufunc::evaluate(gauss.lazy(hyp.lazy(sub.lazy(X, mx), sub.lazy(Y, my)), mean, sigma) * W, ufunc::out(R));
    };
    auto f_m = [&] {  // gauss_f's math with mu = 0, sigma = 1, as MatX operators
      auto dx = tX - tmx;
      auto dy = tY - tmy;
      auto z = (matx::sqrt(dx * dx + dy * dy) - mean) / sigma;
      (tR = 0.3989422804f / sigma * matx::exp(-0.5f * z * z) * tW).run(ex);
    };
    const auto want = [&](const std::vector<float>& got) {
      const auto w6 = [&](std::size_t q) {
        const std::size_t j = q % std::size_t(s);
        return double(six_f{}(hx[q], hmx[j], hb[q], hmy[j], hc[q]));
      };
      return all_close("six_node", got, w6, [&](std::size_t q) { return std::fabs(w6(q)); }, 1e-5, 1e-7);
    };
    const bool ok_u = checked("six_node ufunc", y.data(), ss * 4, f_u, want, ss);
    const bool ok_m = checked("six_node MatX", y.data(), ss * 4, f_m, want, ss);
    const double bytes = 4.0 * (4.0 * double(ss) + 2.0 * double(s));  // leaf reads and the one write
    cmp.run("six_node", tag_s, double(ss), bytes, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- sum 2^27 ---------------------------------------------------------------------
  {
    rec.progress("sum: checks");
    double want = 0, mag = 0;
    for (std::size_t i = 0; i < n; ++i) want += hx[i], mag += std::fabs(double(hx[i]));
    const double tol = 2.0 * e * std::ldexp(1.0, -24) * mag;  // 2 log2(N) eps sum|x|
    auto f_u = [&] { ufunc::sum(x, ufunc::out(r0)); };
    auto f_m = [&] { (tr0 = matx::sum(tx)).run(ex); };
    const auto ok = [&](const std::vector<float>& got) {
      if (std::fabs(got[0] - want) <= tol) return true;
      std::fprintf(stderr, "sum = %.9g, reference %.9g\n", got[0], want);
      return false;
    };
    const bool ok_u = checked("sum ufunc", r0.data(), 4, f_u, ok, 1);
    const bool ok_m = checked("sum MatX", r0.data(), 4, f_m, ok, 1);
    cmp.run("sum", tag_n, double(n), 4.0 * n, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- sum over axis 0 and axis 1 of s^2 -------------------------------------------
  for (int ax : {0, 1}) {
    rec.progress("axis_sum " + std::to_string(ax) + ": checks");
    std::vector<double> want(std::size_t(s), 0.0), mag(std::size_t(s), 0.0);
    for (index_t i = 0; i < s; ++i)
      for (index_t j = 0; j < s; ++j) {
        const float v = hx[std::size_t(i * s + j)];
        const std::size_t q = std::size_t(ax == 0 ? j : i);
        want[q] += v, mag[q] += std::fabs(double(v));
      }
    auto f_u = [&, ax] { ufunc::sum(X, ufunc::axis(ax), ufunc::out(rs)); };
    auto f_m = [&, ax] {
      if (ax == 0)
        (trs = matx::sum(tX, {0})).run(ex);
      else
        (trs = matx::sum(tX, {1})).run(ex);
    };
    // s eps sum|x|: the bound of any summation order (MatX may sum a column in
    // sequence); a wrong axis or element misses it by far.
    const double rel = double(s) * std::ldexp(1.0, -24);
    const auto ok = [&](const std::vector<float>& got) {
      return all_close(
          "axis_sum", got, [&](std::size_t q) { return want[q]; }, [&](std::size_t q) { return mag[q]; }, rel, 0);
    };
    const std::string which = "axis " + std::to_string(ax);
    const bool ok_u = checked("axis_sum ufunc " + which, rs.data(), std::size_t(s) * 4, f_u, ok, std::size_t(s));
    const bool ok_m = checked("axis_sum MatX " + which, rs.data(), std::size_t(s) * 4, f_m, ok, std::size_t(s));
    // The axis goes into the implementation's name, as peers.py writes it ("CuPy sum axis 0").
    cmp.run("axis_sum", tag_s, double(ss), 4.0 * double(ss), "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU sum " + which, f_u, ok_u}, {"MatX sum " + which, f_m, ok_m}}, tag_s + " " + which);
  }

  // ---- argmax 2^27 -------------------------------------------------------------------
  {
    rec.progress("argmax: checks");
    const auto want = std::max_element(hx.begin(), hx.end()) - hx.begin();  // first of equal maxima
    auto f_u = [&] { ufunc::argmax(x, ufunc::out(ri)); };
    auto f_m = [&] { (matx::mtie(tr0, tri) = matx::argmax(tx)).run(ex); };
    auto check_index = [&](const std::string& who, const std::function<void()>& call) {
      poison(ri.data(), sizeof(index_t));
      call();
      std::int64_t got = -1;
      UFUNC_CUDA_CHECK(cudaMemcpy(&got, ri.data(), sizeof got, cudaMemcpyDeviceToHost));
      // NumPy's rule is the first of equal maxima (2^27 values of 2^24 levels: the maximum
      // repeats). ufunc follows it; MatX documents no tie rule, so an index of an equal
      // value passes for it (said on stderr), and it is timed as it is.
      bool ok = got == want;
      if (!ok && who != "ufunc" && got >= 0 && got < static_cast<std::int64_t>(n) && hx[std::size_t(got)] == hx[std::size_t(want)]) {
        std::fprintf(stderr, "argmax %s = %lld: a later index of the maximum (NumPy's first: %lld)\n", who.c_str(),
                     (long long)got, (long long)want);
        ok = true;
      }
      if (!ok) std::fprintf(stderr, "argmax %s = %lld, reference %lld\n", who.c_str(), (long long)got, (long long)want);
      return cmp.check(ok, "argmax " + who);
    };
    const bool ok_u = check_index("ufunc", f_u);
    const bool ok_m = check_index("MatX", f_m);
    cmp.run("argmax", tag_n, double(n), 4.0 * n, "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  // ---- transpose s^2 into out -------------------------------------------------------------
  {
    rec.progress("transpose: checks");
    auto f_u = [&] { ufunc::transpose(X, ufunc::out(R)); };
    // What a MatX user writes: transpose() is a permuted view, assigned by the
    // elementwise kernel; matx::transpose_matrix_impl is MatX's padded-tile
    // kernel (public name, no operator reaches it in this MatX), timed as well.
    auto f_m = [&] { (tR = matx::transpose(tX)).run(ex); };
    auto f_t = [&] { matx::transpose_matrix_impl(tR, tX, ex); };
    const auto want = [&](const std::vector<float>& got) {
      for (index_t i = 0; i < s; ++i)
        for (index_t j = 0; j < s; ++j)
          if (got[std::size_t(i * s + j)] != hx[std::size_t(j * s + i)]) {
            std::fprintf(stderr, "transpose[%lld, %lld] = %g, reference %g\n", (long long)i, (long long)j,
                         got[std::size_t(i * s + j)], hx[std::size_t(j * s + i)]);
            return false;
          }
      return true;
    };
    const bool ok_u = checked("transpose ufunc", y.data(), ss * 4, f_u, want, ss);
    const bool ok_m = checked("transpose MatX transpose()", y.data(), ss * 4, f_m, want, ss);
    const bool ok_t = checked("transpose MatX transpose_matrix_impl", y.data(), ss * 4, f_t, want, ss);
    cmp.run("transpose", tag_s, double(ss), 8.0 * double(ss), "GB/s", peak_gbs, bw_src, mem_budget,
            {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}, {"MatX transpose_matrix_impl", f_t, ok_t}});
  }

  // ---- matmul FP32 m^3 ------------------------------------------------------------------
  for (index_t m : quick ? std::vector<index_t>{256, 512} : std::vector<index_t>{4096, 8192}) {
    rec.progress("matmul " + std::to_string(m) + ": checks");
    const std::size_t mm = std::size_t(m) * std::size_t(m);
    // A = x's first m^2 elements, B = b's; C into y.
    auto A = ufunc::make_view(x.data(), {m, m}), B = ufunc::make_view(b.data(), {m, m});
    auto C = ufunc::make_view(y.data(), {m, m});
    auto tA = matx::make_tensor<float>(x.data(), {m, m}), tB = matx::make_tensor<float>(b.data(), {m, m});
    auto tC = matx::make_tensor<float>(y.data(), {m, m});
    auto f_u = [&] { ufunc::matmul(A, B, ufunc::out(C)); };
    auto f_m = [&] { (tC = matx::matmul(tA, tB)).run(ex); };
    // 64 sampled elements of A B in double, with the magnitude of their terms
    // (1e-5 of it: FP32 passes, TF32's 10-bit mantissa would not).
    std::vector<std::pair<index_t, index_t>> at;
    std::vector<double> want, mag;
    for (int q = 0; q < 64; ++q) {
      const index_t i = (q * 7919) % m, j = (q * 104729 + 13) % m;
      double v = 0, a = 0;
      for (index_t p = 0; p < m; ++p) {
        const double t = double(hx[std::size_t(i * m + p)]) * hb[std::size_t(p * m + j)];
        v += t, a += std::fabs(t);
      }
      at.push_back({i, j}), want.push_back(v), mag.push_back(a);
    }
    const auto ok = [&](const std::vector<float>& got) {
      for (std::size_t q = 0; q < at.size(); ++q) {
        const double g = got[std::size_t(at[q].first * m + at[q].second)];
        if (!(std::fabs(g - want[q]) <= 1e-5 * mag[q])) {
          std::fprintf(stderr, "matmul[%lld, %lld] = %.9g, reference %.9g\n", (long long)at[q].first,
                       (long long)at[q].second, g, want[q]);
          return false;
        }
      }
      return true;
    };
    const bool ok_u = checked("matmul ufunc", y.data(), mm * 4, f_u, ok, mm);
    const bool ok_m = checked("matmul MatX", y.data(), mm * 4, f_m, ok, mm);
    cmp.run("matmul", shape_str({m, m, m}), double(m), 2.0 * double(m) * double(m) * double(m), "TFLOP/s",
            fp32_peak, fp32_src, mm_budget, {{"ufunc GPU", f_u, ok_u}, {"MatX", f_m, ok_m}});
  }

  rec.end_line();
  std::fflush(nullptr);  // every row is in the file: print it
  if (std::FILE* f = std::fopen(csv.c_str(), "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, f)) std::fputs(buf, stdout);
    std::fclose(f);
  }
  std::printf("\n");
  for (const auto& line : summary) std::printf("%s\n", line.c_str());
  std::printf("bench_matx: %d rows, %d failed checks\n", rec.rows(), rec.failures());
  return rec.failures() == 0 ? 0 : 1;
}
