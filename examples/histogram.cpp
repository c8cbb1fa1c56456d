// histogram: counting 1M random values into bins with atomics, checked against a
// serial count; and the same kernel with an off-by-one bug, caught by UFUNC_DEBUG.
//
// Many threads find values in the same bin at the same time, so the count is an
// atomic_add (see atomic_counter for what happens without one). Values outside
// [xmin, xmax] are skipped; the value xmax itself goes into the last bin (as in
// numpy.histogram), since (xmax - xmin) / width is exactly nbins.
//
// The seeds debug this kernel with cuda-memcheck after a wrong bin index wrote
// past the end of the histogram. Built with HISTOGRAM_OFF_BY_ONE (CMake target
// example_histogram_debug), the range test here is `bin <= nbins` instead of
// `bin < nbins`, and xmax lands in bin nbins, one past the end. Nothing would say
// so: the write goes to whatever lies there. That target is compiled with
// UFUNC_DEBUG, under which every view access is bounds-checked: the access
// h[nbins] reports "index 20 is out of range for extent 20" (on the GPU the
// kernel prints it and traps, and the next synchronising call throws a
// ufunc::cuda_error; on the host backend it throws std::out_of_range). The
// program prints what it caught and exits with 1; ctest expects that message.
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <exception>
#include <random>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("histogram: no CUDA device, skipped");
    return 77;
  }
  const std::size_t n = 1 << 20;
  const int nbins = 20;
  const float xmin = -4.0f, xmax = 4.0f;
  const float width = (xmax - xmin) / nbins;

  std::vector<float> hx(n);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.5f);  // some values fall outside [-4, 4]
  for (auto& v : hx) v = normal(rng);
  hx[0] = xmax;  // the right edge: belongs to the last bin
  hx[1] = xmin;

  // The bin of a value, the same float arithmetic on both sides (a subtraction
  // and a division: no fused multiply-add can change it on the device).
  auto x = ufunc::to_device(hx);
  auto hist = ufunc::zeros<int>(ufunc::shape{nbins});
  auto xv = x.view();
  auto h = hist.view();
  try {
    ufunc::parallel_for(n, [=] UFUNC_HD (std::size_t i) {
      const float v = xv[i];
      if (!(v >= xmin && v <= xmax)) return;  // outside the range (or NaN)
      int bin = static_cast<int>((v - xmin) / width);
#if defined(HISTOGRAM_OFF_BY_ONE)
      if (bin >= 0 && bin <= nbins)  // BUG: lets bin == nbins through for v == xmax
        ufunc::atomic_add(&h[bin], 1);
#else
      if (bin == nbins) bin = nbins - 1;  // v == xmax: the last bin is closed on the right
      ufunc::atomic_add(&h[bin], 1);
#endif
    });
    const auto got = hist.to_host();  // on the GPU a kernel error surfaces here

    std::vector<int> want(nbins, 0);
    std::size_t outside = 0;
    for (float v : hx) {
      if (!(v >= xmin && v <= xmax)) {
        ++outside;
        continue;
      }
      int bin = static_cast<int>((v - xmin) / width);
      if (bin == nbins) bin = nbins - 1;
      ++want[static_cast<std::size_t>(bin)];
    }
    std::size_t bad = 0;
    std::printf("%10s %10s %10s\n", "bin from", "count", "serial");
    for (int b = 0; b < nbins; ++b) {
      std::printf("%10.2f %10d %10d\n", xmin + b * width, got[static_cast<std::size_t>(b)],
                  want[static_cast<std::size_t>(b)]);
      bad += got[static_cast<std::size_t>(b)] != want[static_cast<std::size_t>(b)];
    }
    std::printf("%zu values, %zu outside [%g, %g], %zu bins differ from the serial count\n", n, outside, xmin, xmax,
                bad);
    if (bad != 0) {
      std::puts("histogram: FAILED");
      return 1;
    }
  } catch (const std::exception& e) {
    std::printf("histogram: error reported: %s\n", e.what());
    return 1;
  }
  std::puts("histogram: ok");
  return 0;
}
