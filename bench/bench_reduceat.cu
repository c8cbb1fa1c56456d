// f.reduceat (issue 42) against cub::DeviceSegmentedReduce::Sum on the same
// data, each call timed interleaved with its reference (bench_util.hpp):
//   1. `vectorize(plus{}).reduceat(x, idx)` of 2^28 float32 in 2^14 segments of
//      2^14 (1 GiB read, 64 KiB written) against CUB's segmented sum over a
//      precomputed offsets array and preallocated temporaries: >= 0.85 of CUB's
//      speed (f.reduceat also checks its indices, one small CUB reduction and a
//      wait for its result, and computes each segment's offsets from the indices);
//   2. the same sum along axis 0 of a (2^14, 2^14) matrix (a gather through the
//      view's strides): time only, as information.
// Checked before timing: every segment of case 1 against a double-precision host sum.
#include <ufunc/ufunc.hpp>

#include <cub/device/device_segmented_reduce.cuh>

#include "bench_util.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace bench;

int main() {
  const auto dev = bench_device("bench_reduceat", with_cc_and_memory);
  if (!dev) return 77;
  using ufunc::index_t;
  const index_t n = index_t(1) << 28, segs = index_t(1) << 14, len = n / segs;
  std::mt19937_64 g(20261128);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> xh(static_cast<std::size_t>(n));
  for (auto& v : xh) v = u(g);
  std::vector<index_t> ih(static_cast<std::size_t>(segs));
  std::vector<int> offh(static_cast<std::size_t>(segs + 1));
  for (index_t i = 0; i <= segs; ++i) {
    if (i < segs) ih[static_cast<std::size_t>(i)] = i * len;
    offh[static_cast<std::size_t>(i)] = static_cast<int>(i * len);
  }
  const auto x = ufunc::asarray(xh, ufunc::shape{n});
  const auto idx = ufunc::asarray(ih, ufunc::shape{segs});
  const auto off = ufunc::asarray(offh, ufunc::shape{segs + 1});
  const auto add = ufunc::vectorize(ufunc::plus{}, "add");
  bool ok = true;

  // ---- 1: 1-D, contiguous -----------------------------------------------------------
  {
    auto r = add.reduceat(x, idx);
    const auto rh = r.to_host();
    for (index_t i = 0; i < segs; ++i) {
      double s = 0, a = 0;
      for (index_t j = i * len; j < (i + 1) * len; ++j) s += xh[static_cast<std::size_t>(j)], a += std::fabs(xh[static_cast<std::size_t>(j)]);
      ok = ok && std::fabs(rh[static_cast<std::size_t>(i)] - s) <= (len / 256.0 + 16) * 6e-8 * a;
    }
    auto cr = ufunc::empty<float>(ufunc::shape{segs});
    std::size_t bytes = 0;
    cub::DeviceSegmentedReduce::Sum(nullptr, bytes, x.data(), cr.data(), segs, off.data(), off.data() + 1);
    auto temp = ufunc::empty<unsigned char>(ufunc::shape{static_cast<index_t>(bytes) + 1});
    const auto cub_sum = [&] {
      std::size_t b = bytes;
      cub::DeviceSegmentedReduce::Sum(temp.data(), b, x.data(), cr.data(), segs, off.data(), off.data() + 1);
    };
    cub_sum();
    const auto crh = cr.to_host();
    for (index_t i = 0; i < segs; ++i)
      ok = ok && std::fabs(crh[static_cast<std::size_t>(i)] - rh[static_cast<std::size_t>(i)]) <= 1e-3f;
    const auto t = time_interleaved_ms(cub_sum, [&] { r = add.reduceat(x, idx); }, 25, 1);
    report("reduceat plus 2^28 float32, 2^14 segments", t.second, "ms");
    report("  cub::DeviceSegmentedReduce::Sum, same data", t.first, "ms");
    const double ratio = t.first / t.second;
    report("reduceat / CUB segmented sum (speed)", ratio, "ratio", ">= 0.850", ratio >= 0.85);
    report("  reduceat bandwidth / peak", 4.0 * n / (t.second * 1e-3) / dev->peak_bandwidth(), "ratio");
  }
  // ---- 2: axis 0 of a (2^14, 2^14) matrix ---------------------------------------------
  {
    const ufunc::array_view<const float> m(x.data(), ufunc::shape{segs, len});
    const std::vector<index_t> rows{0, segs / 4, segs / 2, 3 * segs / 4};
    const auto ridx = ufunc::asarray(rows, ufunc::shape{4});
    auto r = add.reduceat(m, ridx);
    const auto rh = r.to_host();
    for (index_t c = 0; c < len; c += 1031) {
      double s = 0, a = 0;
      for (index_t k = 0; k < segs / 4; ++k) s += xh[static_cast<std::size_t>(k * len + c)], a += std::fabs(xh[static_cast<std::size_t>(k * len + c)]);
      ok = ok && std::fabs(rh[static_cast<std::size_t>(c)] - s) <= (segs / 4 / 256.0 + 16) * 6e-8 * a;
    }
    const double ms = time_device_ms([&] { r = add.reduceat(m, ridx); });
    report("reduceat plus axis 0 of (2^14, 2^14) float32, 4 segments", ms, "ms");
  }
  if (!ok) {
    std::puts("bench_reduceat: FAILED: a result check (above) failed");
    return 1;
  }
  summary("bench_reduceat");
  return 0;
}
