// Session 29: why the sweep's std::vector streamed gaussian_pdf (bench_all's
// gaussian_pdf_host rows, H200, 2026-11-30) ran at 3-7 GB/s from 2^20 floats up
// (2^24: 44.8 ms against 1.6 ms for pinned arrays) while bench_stream's 4 GiB
// pageable call reached 51.7 GB/s. The sweep's loop, alone: per size, a new
// vector out of a std::vector in, interleaved with the pinned call (host time
// per call, medians), with what the host pool sees of the machine (machine_load)
// printed. Run under OMP_DYNAMIC unset and false (no cap from the load).
#include <ufunc/ufunc.hpp>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

struct gauss_f {
  UFUNC_HD float operator()(float x, float mean, float sigma) const {
    const float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * 2.5066282746310002f);
  }
};

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (ufunc::devices().empty()) return 0;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  std::string load;
  std::getline(std::ifstream("/proc/loadavg"), load);
  std::printf("omp procs %d, online %ld, max threads %d, loadavg '%s', cap(17, 1) = %d, OMP_DYNAMIC=%s\n",
              omp_get_num_procs(), sysconf(_SC_NPROCESSORS_ONLN), omp_get_max_threads(), load.c_str(),
              ufunc::detail::host::machine_load::cap(17, 1), std::getenv("OMP_DYNAMIC") ? std::getenv("OMP_DYNAMIC") : "(unset)");
  const auto g = ufunc::vectorize(gauss_f{}, "gaussian_pdf");
  if (argc > 2 && std::string(argv[2]) == "hostfirst") {  // the host pool busy first, as in the sweep
    const auto xh = ufunc::asarray<ufunc::target::host>(std::vector<float>(std::size_t(1) << 22, 1.0f));
    double s = 0;
    for (int k = 0; k < 200; ++k) s += ufunc::sum(xh);
    std::printf("host sums first: %.0f\n", s);
  }
  for (int e = 16; e <= 26; e += 2) {
    const std::size_t n = std::size_t(1) << e;
    std::vector<float> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = -3.0f + 6.0f * float((i * 2654435761u) % 1000003) / 1000003.0f;
    ufunc::pinned_array<float> p(ufunc::shape{static_cast<ufunc::index_t>(n)}), q(ufunc::shape{static_cast<ufunc::index_t>(n)});
    std::copy(h.begin(), h.end(), p.data());
    const std::vector<float> r = g(h, 0.0f, 1.0f);
    double bad = 0;
    for (std::size_t i = 0; i < n; i += 997) bad = std::max(bad, double(std::fabs(r[i] - gauss_f{}(h[i], 0.0f, 1.0f))));
    std::vector<double> tv, tp;
    for (int k = 0; k < reps; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      {
        std::vector<float> out = g(h, 0.0f, 1.0f);
        (void)out;
      }
      auto t1 = std::chrono::steady_clock::now();
      g(p, 0.0f, 1.0f, ufunc::out(q));
      auto t2 = std::chrono::steady_clock::now();
      tv.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      tp.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    }
    std::sort(tv.begin(), tv.end());
    std::printf("2^%d: vector %9.1f us (%5.1f GB/s; min %9.1f max %9.1f), pinned %8.1f us (%5.1f GB/s), max err %.2g\n", e,
                median(tv), 8e-3 * double(n) / median(tv), tv.front(), tv.back(), median(tp), 8e-3 * double(n) / median(tp), bad);
  }
  for (int e = 20; e <= 26; e += 2) {  // array::to_host: a new vector, then the copy
    const std::size_t n = std::size_t(1) << e;
    const auto d = ufunc::full<float>(ufunc::shape{static_cast<ufunc::index_t>(n)}, 2.0f);
    std::vector<double> t;
    for (int k = 0; k < reps; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      const auto h = d.to_host();
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      if (h[n / 3] != 2.0f) std::printf("to_host wrong\n");
    }
    std::printf("to_host 2^%d: %9.1f us (%5.1f GB/s)\n", e, median(t), 4e-3 * double(n) / median(t));
  }
  return 0;
}
