// The reference passes the bandwidth targets are held against (CUDA builds only):
// a copy kernel moving given bytes with 16-byte accesses (the transpose
// benchmarks' reference), a read kernel reading given bytes once (the reductions'
// reference), and `bench_reference`, which owns the buffers of either pass over a
// target's bytes. Timed in the same run as the call they judge, interleaved with
// it, so they carry the card's own ceiling (bench/README.md, "Targets").
#pragma once

#include <ufunc/ufunc.hpp>

static __global__ void bench_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, long long n16) {
  constexpr int U = 4;  // 64 bytes in flight per thread
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n16; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < n16; i += stride) dst[i] = __ldg(src + i);
}
static __global__ void bench_copy_tail_kernel(const unsigned char* src, unsigned char* dst, long long from, long long bytes) {
  const long long i = from + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < bytes) dst[i] = src[i];
}
static void bench_copy_bytes(const void* src, void* dst, long long bytes, int sms) {
  const long long n16 = bytes / 16;
  bench_copy_kernel<<<sms * 8, 256>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), n16);
  if (bytes % 16)
    bench_copy_tail_kernel<<<1, 32>>>(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), n16 * 16, bytes);
  UFUNC_CUDA_CHECK(cudaGetLastError());
}

/// Reads n16 16-byte words once (4 in flight per thread, as the copy kernel) and
/// folds them into one word per thread, stored only when it equals a value the
/// fold of zeroed memory never gives: the store keeps the loads, and the pass
/// writes nothing in practice.
static __global__ void bench_read_kernel(const uint4* __restrict__ src, long long n16, unsigned* sink) {
  constexpr int U = 4;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + (U - 1) * stride < n16; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n16; i += stride) {
    const uint4 v = __ldg(src + i);
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}
/// Reads the first bytes / 16 * 16 bytes of src (the targets' byte counts are
/// multiples of 16).
inline void bench_read_bytes(const void* src, long long bytes, int sms, unsigned* sink) {
  bench_read_kernel<<<sms * 8, 256>>>(static_cast<const uint4*>(src), bytes / 16, sink);
  UFUNC_CUDA_CHECK(cudaGetLastError());
}

/// Which pass a bandwidth target's reference makes over the target's bytes.
enum class bench_pass {
  copy,  ///< cudaMemcpyAsync device to device of bytes / 2: bytes read + written, like an elementwise call
  read,  ///< bench_read_kernel over bytes: bytes read, like a reduction
};

/// A reference pass over `bytes`, with buffers of its own (zeroed), enqueued on
/// the default stream by operator(): callable where a benchmark takes a
/// std::function<void()>.
class bench_reference {
 public:
  bench_reference(bench_pass pass, double bytes, int sms)
      : pass_(pass), bytes_(static_cast<long long>(bytes)), sms_(sms) {
    const long long half = bytes_ / 2;
    if (pass_ == bench_pass::copy) {
      UFUNC_CUDA_CHECK(cudaMalloc(&src_, half));
      UFUNC_CUDA_CHECK(cudaMalloc(&dst_, half));
      UFUNC_CUDA_CHECK(cudaMemset(src_, 0, half));
    } else {
      UFUNC_CUDA_CHECK(cudaMalloc(&src_, bytes_));
      UFUNC_CUDA_CHECK(cudaMalloc(&dst_, sizeof(unsigned)));
      UFUNC_CUDA_CHECK(cudaMemset(src_, 0, bytes_));
    }
  }
  ~bench_reference() {
    cudaFree(src_);
    cudaFree(dst_);
  }
  bench_reference(const bench_reference&) = delete;
  bench_reference& operator=(const bench_reference&) = delete;

  void operator()() const {
    if (pass_ == bench_pass::copy)
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst_, src_, bytes_ / 2, cudaMemcpyDeviceToDevice, 0));
    else
      bench_read_bytes(src_, bytes_, sms_, static_cast<unsigned*>(dst_));
  }
  /// How target lines name it.
  const char* name() const { return pass_ == bench_pass::copy ? "device copy" : "read kernel"; }

 private:
  bench_pass pass_;
  long long bytes_;
  int sms_;
  void* src_ = nullptr;
  void* dst_ = nullptr;
};
