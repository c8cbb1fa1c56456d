// The copy reference of the transpose benchmarks: a kernel moving the same bytes
// with 16-byte accesses, 4 in flight per thread (CUDA builds only).
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

