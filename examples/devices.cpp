// devices: what will run my ufuncs? (like Numba's cuda.list_devices())
//
// ufunc::devices() lists the CUDA devices visible to the process with the
// properties that matter for elementwise work: memory size, multiprocessor count,
// compute capability and the theoretical peak memory bandwidth (a ufunc is
// usually memory-bound, so that number is its speed limit). An empty list is a
// valid answer, not an error: on the host backend (or without a GPU) ufuncs run
// on the CPU's cores through OpenMP. This example therefore never skips.
#include <ufunc/ufunc.hpp>

#include <omp.h>

#include <cstdio>

int main() {
  const auto devs = ufunc::devices();
  std::printf("ufunc backend: %s (default target '%s')\n", ufunc::cuda_backend ? "cuda" : "host",
              ufunc::target::device::name);

  if (devs.empty()) std::puts("no CUDA devices found");
  int bad = 0;
  for (const auto& d : devs) {
    std::printf("  [%d] %s: %.1f GiB, %d multiprocessors, compute capability %d.%d, ", d.id, d.name.c_str(),
                static_cast<double>(d.total_memory) / double(1ull << 30), d.multiprocessors, d.cc_major, d.cc_minor);
    if (d.peak_bandwidth() > 0)
      std::printf("peak memory bandwidth %.0f GB/s\n", d.peak_bandwidth() / 1e9);
    else
      std::puts("peak memory bandwidth not reported");
    if (d.total_memory == 0 || d.multiprocessors <= 0 || d.cc_major <= 0 || d.name.empty() || d.peak_bandwidth() < 0) {
      std::printf("  [%d]: implausible properties\n", d.id);
      ++bad;
    }
  }
  const int threads = omp_get_max_threads();
  std::printf("the host target (ufunc::target::host) uses %d OpenMP threads\n", threads);
  if (threads < 1) ++bad;
  if (bad) {
    std::puts("devices: FAILED");
    return 1;
  }
  std::puts("devices: ok");
  return 0;
}
