// memory_overflow: asking for more memory than exists is an ordinary,
// recoverable error.
//
// An allocation that cannot be satisfied throws ufunc::out_of_memory (a
// std::bad_alloc) before any work is queued; its message says how much was asked
// for and how much is free of how much. The device is not left in an error state:
// the program catches the exception and goes on computing. Here we ask for 2e9
// float32 elements (8 GB) more than the whole memory: the CUDA device's on the
// CUDA backend, the machine's physical memory on the host backend. The second
// half then processes 2e9 floats kept in host memory anyway: the call streams
// them through the device in chunks under a 1 GiB device memory limit.
//
// (Under AddressSanitizer, set ASAN_OPTIONS=allocator_may_return_null=1 so that
// the huge host allocation returns null instead of aborting the process. On
// Linux with overcommit_memory=1 the kernel grants any host request, and this
// example then reports that nothing was thrown.)
#include <ufunc/ufunc.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#if !defined(_WIN32)
#  include <unistd.h>
#endif


struct gaussian_fn {
  UFUNC_HD float operator()(float x) const { return expf(-0.5f * x * x) * 0.3989422804f; }
};

/// The streamed half; false on a wrong result.
static bool streamed_half() {
  std::size_t n = ufunc::cuda_backend ? 2'000'000'000ull : 20'000'000ull;
#if !defined(_WIN32)
  // Input and output on the host: 8 bytes per element, with room to spare.
  const std::size_t avail = static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (8 * n + (std::size_t(4) << 30) > avail) n = avail > (std::size_t(4) << 30) ? (avail - (std::size_t(4) << 30)) / 16 : 1 << 20;
#endif
  std::printf("streaming %zu float32 elements (%.2f GB) from host memory with a 1 GiB device limit\n", n, 4e-9 * double(n));
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>((i * 2654435761ull) % 8001) - 4000) * 1e-3f;
  ufunc::set_device_memory_limit(std::size_t(1) << 30);
  const auto pdf = ufunc::vectorize(gaussian_fn{}, "gaussian_pdf");
  const auto n_i = static_cast<ufunc::index_t>(n);
  auto t0 = std::chrono::steady_clock::now();
  pdf(x, ufunc::out(ufunc::make_view<ufunc::target::host>(y.data(), ufunc::shape{n_i})));
  const double s1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  const double total = ufunc::sum(y);
  const double s2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ufunc::set_device_memory_limit(0);
  std::printf("  gaussian_pdf into host memory: %.3f s, %.2f GB/s (in + out)\n", s1, 8e-9 * double(n) / s1);
  std::printf("  sum:                           %.3f s, %.2f GB/s\n", s2, 4e-9 * double(n) / s2);
  // Checks against the host: every 997th element (same float formula; the device
  // expf is within 2 ulp), and the sum (float partials: a loose relative bound).
  for (std::size_t i = 0; i < n; i += 997) {
    const float want = gaussian_fn{}(x[i]);
    if (!(std::fabs(y[i] - want) <= 4e-7f * want + 1e-30f)) {
      std::printf("memory_overflow: FAILED: element %zu is %.9g, the host gives %.9g\n", i, y[i], want);
      return false;
    }
  }
  double host_total = 0;
  for (float v : y) host_total += v;
  if (!(std::fabs(total - host_total) <= 1e-4 * host_total)) {
    std::printf("memory_overflow: FAILED: sum %.9g, the host gives %.9g\n", total, host_total);
    return false;
  }
  std::printf("  checked against the host (sum %.6g)\n", total);
  return true;
}

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("memory_overflow: no CUDA device, skipped");
    return 77;
  }

  std::size_t total_bytes = 0;
  if constexpr (ufunc::cuda_backend) {
    total_bytes = ufunc::devices()[0].total_memory;
  } else {
#if !defined(_WIN32)
    total_bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
#endif
  }
  const auto n = static_cast<ufunc::index_t>(total_bytes / 4 + 2'000'000'000ull);
  std::printf("%s memory: %.2f GiB; asking for %lld float32 elements (%.2f GiB)\n",
              ufunc::cuda_backend ? "device" : "host", static_cast<double>(total_bytes) / double(1ull << 30), static_cast<long long>(n),
              4.0 * static_cast<double>(n) / double(1ull << 30));

  bool thrown = false;
  try {
    auto huge = ufunc::empty<float>(ufunc::shape(n));
    std::printf("  allocated %lld elements at %p: nothing was thrown\n", static_cast<long long>(huge.size()),
                static_cast<void*>(huge.data()));
  } catch (const ufunc::out_of_memory& e) {
    thrown = true;
    std::printf("  caught ufunc::out_of_memory: %s\n", e.what());
  }
  if (!thrown) {
    std::puts("memory_overflow: FAILED (expected ufunc::out_of_memory)");
    return 1;
  }

  // The device is still usable: a small computation succeeds and is correct.
  auto square_plus_one = ufunc::vectorize([] UFUNC_HD (float x) { return x * x + 1.0f; }, "square_plus_one");
  std::vector<float> hx(1000);
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = 0.01f * static_cast<float>(i);
  const auto r = square_plus_one(ufunc::to_device(hx)).to_host();
  for (std::size_t i = 0; i < hx.size(); ++i) {
    const double ref = static_cast<double>(hx[i]) * hx[i] + 1.0;
    if (!(std::fabs(r[i] - ref) <= 1e-6 * ref)) {
      std::printf("memory_overflow: FAILED after the error: x = %g gave %.9g, expected %.9g\n", hx[i], r[i], ref);
      return 1;
    }
  }
  std::printf("  afterwards: %zu elements computed correctly\n", r.size());

  // Second half: the 2e9 floats (8 GB) that did not fit the device, kept in host
  // memory and streamed through it with the device memory limit at 1 GiB:
  // gaussian_pdf into a host output, then their sum (see
  // docs/streaming.md). The host backend computes on host memory directly; it runs the
  // same code on 2e7 elements so that the example stays quick there.
  if (!streamed_half()) return 1;
  std::puts("memory_overflow: ok");
  return 0;
}
