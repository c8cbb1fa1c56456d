// memory_overflow: asking for more memory than exists is an ordinary,
// recoverable error.
//
// An allocation that cannot be satisfied throws ufunc::out_of_memory (a
// std::bad_alloc) before any work is queued; its message says how much was asked
// for and how much is free of how much. The device is not left in an error state:
// the program catches the exception and goes on computing. Here we ask for 2e9
// float32 elements (8 GB) more than the whole memory: the CUDA device's on the
// CUDA backend, the machine's physical memory on the host backend.
//
// (Under AddressSanitizer, set ASAN_OPTIONS=allocator_may_return_null=1 so that
// the huge host allocation returns null instead of aborting the process. On
// Linux with overcommit_memory=1 the kernel grants any host request, and this
// example then reports that nothing was thrown.)
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#if !defined(_WIN32)
#  include <unistd.h>
#endif

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
  std::puts("memory_overflow: ok");
  return 0;
}
