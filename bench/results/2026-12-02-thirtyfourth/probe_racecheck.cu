// Does compute-sanitizer racecheck stall when two host threads feed one stream,
// without ufunc? Each thread: ITER times (launch a block-reduce kernel whose last
// block folds the partials, counted on a device counter; copy the result to pinned
// host memory; synchronize the stream). Modes: 0 the kernel alone, 1 with
// cudaMallocAsync/cudaFreeAsync scratch per call (a pool), 2 mode 1 with a
// cudaEvent recorded and waited on (cudaEventSynchronize) instead of the stream sync.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void sum_kernel(const float* x, int n, float* partial, unsigned* counter, float* out) {
  __shared__ float s[256];
  __shared__ bool last;
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float t = 0;
    for (int b = 0; b < gridDim.x; ++b) t += partial[b];
    *out = t;
    *counter = 0;
  }
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 12;
  const int n = 1 << 16, blocks = 32;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  float* x;
  CK(cudaMalloc(&x, n * sizeof(float)));
  std::vector<float> h(n, 1.0f);
  CK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<std::thread> pool;
  std::vector<int> bad(threads, 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      float* host;
      CK(cudaMallocHost(&host, sizeof(float)));
      float *partial = nullptr, *out = nullptr;
      unsigned* counter = nullptr;
      if (mode == 0) {
        CK(cudaMalloc(&partial, blocks * sizeof(float)));
        CK(cudaMalloc(&out, sizeof(float)));
        CK(cudaMalloc(&counter, sizeof(unsigned)));
        CK(cudaMemset(counter, 0, sizeof(unsigned)));
      }
      cudaEvent_t ev;
      CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
      for (int i = 0; i < iters; ++i) {
        if (mode >= 1) {
          CK(cudaMallocAsync(reinterpret_cast<void**>(&partial), blocks * sizeof(float), st));
          CK(cudaMallocAsync(reinterpret_cast<void**>(&out), sizeof(float), st));
          CK(cudaMallocAsync(reinterpret_cast<void**>(&counter), sizeof(unsigned), st));
          CK(cudaMemsetAsync(counter, 0, sizeof(unsigned), st));
        }
        sum_kernel<<<blocks, 256, 0, st>>>(x, n, partial, counter, out);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(host, out, sizeof(float), cudaMemcpyDeviceToHost, st));
        if (mode >= 1) {
          CK(cudaFreeAsync(partial, st));
          CK(cudaFreeAsync(out, st));
          CK(cudaFreeAsync(counter, st));
        }
        if (mode == 2) {
          CK(cudaEventRecord(ev, st));
          CK(cudaEventSynchronize(ev));
        } else {
          CK(cudaStreamSynchronize(st));
        }
        if (*host != float(n)) ++bad[t];
      }
      CK(cudaEventDestroy(ev));
      CK(cudaFreeHost(host));
    });
  for (auto& p : pool) p.join();
  int b = 0;
  for (int v : bad) b += v;
  std::printf("mode %d threads %d iters %d: %d wrong sums\n", mode, threads, iters, b);
  return b != 0;
}
