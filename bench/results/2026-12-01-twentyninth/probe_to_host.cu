// Session 29: array::to_host copies with one pageable cudaMemcpy (4-5 GB/s on an
// H200 machine at 4-16 MiB). A lead: copy through two page-locked buffers, the DMA
// of one chunk overlapping the host threads' copy of the previous one out of the
// other. Into an existing vector (the copy alone), us, medians of 9.
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) return 0;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const std::size_t maxb = std::size_t(256) << 20;
  char* d = nullptr;
  CK(cudaMalloc(&d, maxb));
  CK(cudaMemset(d, 7, maxb));
  char* pin = nullptr;
  CK(cudaMallocHost(&pin, 2 * (std::size_t(8) << 20)));
  cudaEvent_t ev[2];
  for (auto& x : ev) CK(cudaEventCreateWithFlags(&x, cudaEventDisableTiming));
  std::printf("threads %d\n", omp_get_max_threads());
  for (std::size_t mib : {1, 4, 16, 64, 256}) {
    const std::size_t bytes = mib << 20;
    std::vector<char> h(bytes, 1);
    auto pageable = [&] {
      auto t0 = std::chrono::steady_clock::now();
      cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, st);
      cudaStreamSynchronize(st);
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    };
    auto staged = [&](std::size_t chunk, int threads) {
      auto t0 = std::chrono::steady_clock::now();
      const std::size_t nc = (bytes + chunk - 1) / chunk;
      for (std::size_t c = 0; c <= nc; ++c) {
        if (c < nc) {
          if (c >= 2) cudaEventSynchronize(ev[c % 2]);  // (its copy-out below already waited)
          cudaMemcpyAsync(pin + (c % 2) * chunk, d + c * chunk, std::min(chunk, bytes - c * chunk), cudaMemcpyDeviceToHost, st);
          cudaEventRecord(ev[c % 2], st);
        }
        if (c >= 1) {
          const std::size_t p = c - 1, len = std::min(chunk, bytes - p * chunk);
          cudaEventSynchronize(ev[p % 2]);
          const char* src = pin + (p % 2) * chunk;
          char* dst = h.data() + p * chunk;
          const std::size_t piece = std::max<std::size_t>(64 << 10, (len + threads - 1) / threads);
          const long np = static_cast<long>((len + piece - 1) / piece);
#pragma omp parallel for num_threads(threads) schedule(static)
          for (long i = 0; i < np; ++i) {
            const std::size_t b = static_cast<std::size_t>(i) * piece;
            std::memcpy(dst + b, src + b, std::min(piece, len - b));
          }
        }
      }
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    };
    for (int w = 0; w < 2; ++w) { pageable(); staged(std::size_t(4) << 20, 8); }
    std::vector<double> a, b1, b4, b8, b16;
    for (int r = 0; r < 9; ++r) {
      a.push_back(pageable());
      b1.push_back(staged(std::size_t(1) << 20, 8));
      b4.push_back(staged(std::size_t(4) << 20, 8));
      b8.push_back(staged(std::size_t(8) << 20, 16));
      b16.push_back(staged(std::size_t(4) << 20, 16));
    }
    bool ok = true;
    for (std::size_t i = 0; i < bytes; i += 4093) ok &= h[i] == 7;
    std::printf("%4zu MiB: pageable %8.1f us (%5.1f GB/s); staged 1 MiB x8 thr %8.1f; 4 MiB x8 %8.1f; 8 MiB x16 %8.1f; 4 MiB x16 %8.1f (%5.1f GB/s) %s\n",
                mib, med(a), bytes / med(a) / 1e3, med(b1), med(b4), med(b8), med(b16), bytes / med(b16) / 1e3, ok ? "ok" : "WRONG");
  }
  return 0;
}
