// ufunc::sort, argsort and topk (issue 42) against the CUB calls they are built
// on, in one run, each call timed interleaved with its reference (bench_util.hpp):
//   1. sort of 2^28 float32 (one row) against cub::DeviceRadixSort::SortKeys into a
//      preallocated output with preallocated temporary storage: >= 0.9 of its speed
//      (ufunc adds the key-prep pass that makes NaNs canonical and its allocations);
//   2. sort of 2^14 rows of 2^14 float32 along the last axis against
//      cub::DeviceSegmentedSort::StableSortKeys (the call ufunc makes): >= 0.9;
//      cub::DeviceSegmentedSort::SortKeys reported beside it;
//   3. argsort of 2^28 float32 against cub::DeviceRadixSort::SortPairs with int64
//      positions as the payload (reported);
//   4. topk k = 16 of 8192 rows of 8192 float32 (a full segmented sort of (key,
//      position) pairs, then the first 16 of each row): reported, in rows/s, and
//      against cub::DeviceSegmentedSort::StableSortPairs of the same rows.
// Checked before timing: ufunc's results equal CUB's (sort, segmented sort,
// argsort: every element), topk's against the first 16 of the segmented pairs.
#include <ufunc/ufunc.hpp>

#include "bench_util.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdio>
#include <vector>

using namespace bench;

namespace {

#define CUDA_OK(x)                                                                   \
  do {                                                                               \
    const cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("bench_sort: %s failed: %s\n", #x, cudaGetErrorString(e_));        \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

struct row_start {
  ufunc::index_t L;
  __host__ __device__ ufunc::index_t operator()(ufunc::index_t r) const { return r * L; }
};

/// Device bytes, freed on scope exit.
struct dev_buf {
  void* p = nullptr;
  explicit dev_buf(std::size_t bytes) { CUDA_OK(cudaMalloc(&p, bytes ? bytes : 1)); }
  ~dev_buf() { cudaFree(p); }
  dev_buf(const dev_buf&) = delete;
  dev_buf& operator=(const dev_buf&) = delete;
};

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a == b;
}

}  // namespace

int main() {
  const auto dev = bench_device("bench_sort", with_cc_and_memory);
  if (!dev) return 77;
  using ufunc::index_t;
  const index_t n = index_t(1) << 28;
  const std::uint64_t seed = 20261128;
  bool ok = true;

  auto x = ufunc::empty<float>(ufunc::shape{n});
  ufunc::random::fill_uniform(x.view(), seed);
  auto out = ufunc::empty<float>(ufunc::shape{n});
  auto pos = ufunc::empty<index_t>(ufunc::shape{n});
  auto pos_out = ufunc::empty<index_t>(ufunc::shape{n});
  index_t* const pp = pos.data();
  ufunc::parallel_for(n, [pp] UFUNC_HD(std::size_t i) { pp[i] = static_cast<index_t>(i); });
  ufunc::synchronize();

  // ---- 1: one row of 2^28 -------------------------------------------------------------
  {
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, x.data(), out.data(), n));
    dev_buf temp(bytes);
    auto cub_sort = [&] { CUDA_OK(cub::DeviceRadixSort::SortKeys(temp.p, bytes, x.data(), out.data(), n)); };
    cub_sort();
    const auto s = ufunc::sort(x);
    ok = ok && same(s.to_host(), out.to_host());
    const auto t = time_interleaved_ms({cub_sort, [&] { (void)ufunc::sort(x); }}, 15, 1);
    report("sort float32 2^28 (ufunc::sort)", t[1], "ms");
    report("cub::DeviceRadixSort::SortKeys float32 2^28", t[0], "ms");
    report("sort 2^28: ufunc speed / SortKeys speed", t[0] / t[1], "ratio", ">= 0.9", t[0] / t[1] >= 0.9);
  }
  // ---- 3: argsort of the same row -------------------------------------------------------
  {
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, x.data(), out.data(), pos.data(), pos_out.data(), n));
    dev_buf temp(bytes);
    auto cub_pairs = [&] {
      CUDA_OK(cub::DeviceRadixSort::SortPairs(temp.p, bytes, x.data(), out.data(), pos.data(), pos_out.data(), n));
    };
    cub_pairs();
    ok = ok && same(ufunc::argsort(x).to_host(), pos_out.to_host());
    const auto t = time_interleaved_ms({cub_pairs, [&] { (void)ufunc::argsort(x); }}, 15, 1);
    report("argsort float32 2^28 (ufunc::argsort)", t[1], "ms");
    report("cub::DeviceRadixSort::SortPairs float32 -> int64 2^28", t[0], "ms");
    report("argsort 2^28: ufunc speed / SortPairs speed", t[0] / t[1], "ratio");
  }
  // ---- 2: 2^14 rows of 2^14 ---------------------------------------------------------------
  {
    const index_t rows = index_t(1) << 14, L = index_t(1) << 14;
    const ufunc::array_view<const float> X(x.data(), ufunc::shape{rows, L});
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), row_start{L});
    std::size_t bytes = 0, bytes2 = 0;
    CUDA_OK(cub::DeviceSegmentedSort::StableSortKeys(nullptr, bytes, x.data(), out.data(), n, rows, begin, begin + 1));
    CUDA_OK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes2, x.data(), out.data(), n, rows, begin, begin + 1));
    dev_buf temp(std::max(bytes, bytes2));
    auto cub_stable = [&] {
      CUDA_OK(cub::DeviceSegmentedSort::StableSortKeys(temp.p, bytes, x.data(), out.data(), n, rows, begin, begin + 1));
    };
    auto cub_plain = [&] {
      CUDA_OK(cub::DeviceSegmentedSort::SortKeys(temp.p, bytes2, x.data(), out.data(), n, rows, begin, begin + 1));
    };
    cub_stable();
    ok = ok && same(ufunc::sort(X).to_host(), out.to_host());
    const auto t = time_interleaved_ms({cub_stable, cub_plain, [&] { (void)ufunc::sort(X); }}, 15, 1);
    report("sort 2^14 x 2^14 float32 along axis -1 (ufunc::sort)", t[2], "ms");
    report("cub::DeviceSegmentedSort::StableSortKeys 2^14 segments", t[0], "ms");
    report("cub::DeviceSegmentedSort::SortKeys 2^14 segments", t[1], "ms");
    report("segmented 2^14 x 2^14: ufunc speed / StableSortKeys speed", t[0] / t[2], "ratio", ">= 0.9",
           t[0] / t[2] >= 0.9);
  }
  // ---- 4: topk 16 of 8192 x 8192 --------------------------------------------------------------
  {
    const index_t rows = 8192, L = 8192, m = rows * L, k = 16;
    const ufunc::array_view<const float> X(x.data(), ufunc::shape{rows, L});
    auto seg_pos = ufunc::empty<index_t>(ufunc::shape{m});
    index_t* const sp = seg_pos.data();
    ufunc::parallel_for(m, [sp, L] UFUNC_HD(std::size_t i) { sp[i] = static_cast<index_t>(i) % L; });
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), row_start{L});
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceSegmentedSort::StableSortPairsDescending(nullptr, bytes, x.data(), out.data(), seg_pos.data(),
                                                                pos_out.data(), m, rows, begin, begin + 1));
    dev_buf temp(bytes);
    auto cub_pairs = [&] {
      CUDA_OK(cub::DeviceSegmentedSort::StableSortPairsDescending(temp.p, bytes, x.data(), out.data(), seg_pos.data(),
                                                                  pos_out.data(), m, rows, begin, begin + 1));
    };
    cub_pairs();
    const auto t16 = ufunc::topk(X, k);
    const auto want = pos_out.to_host();
    const auto got = t16.indices.to_host();
    for (index_t r = 0; r < rows && ok; ++r)
      for (index_t j = 0; j < k; ++j) ok = ok && got[std::size_t(r * k + j)] == want[std::size_t(r * L + j)];
    const auto t = time_interleaved_ms({cub_pairs, [&] { (void)ufunc::topk(X, k); }}, 15, 1);
    report("topk k=16 of 8192 x 8192 float32 (ufunc::topk)", t[1], "ms");
    report("  rows per second", double(rows) / (t[1] * 1e-3) / 1e6, "M/s");
    report("cub::DeviceSegmentedSort::StableSortPairsDescending 8192 x 8192", t[0], "ms");
    report("topk: ufunc speed / the segmented pairs sort's", t[0] / t[1], "ratio");
  }
  if (!ok) {
    std::puts("bench_sort: FAILED: a result differs from CUB's (above)");
    return 1;
  }
  summary("bench_sort");
  return 0;
}
