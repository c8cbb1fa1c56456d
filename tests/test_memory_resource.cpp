// ufunc/memory_resource.hpp: a caller's resource serves every device
// allocation (arrays, call results, reduction and expression temporaries) and
// gets each back with its size; memory it made returns to it after a reset;
// its bad_alloc is ufunc::out_of_memory; a misaligned pointer is refused;
// page-locked memory is not the resource's.
// Checked by pointer identity against the resource's own record, and the
// results against loops on the host.
#include "test_support.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

using ufunc::index_t;

namespace {

/// Counts what it hands out: pointer -> size, and any free of a pointer it did
/// not make or with another size.
struct counting_resource {
  std::mutex m;
  std::map<void*, std::size_t> live;
  long allocs = 0, frees = 0, bad_frees = 0;
  bool fail = false;      // throw std::bad_alloc
  bool misalign = false;  // hand out base + 16
  std::map<void*, void*> base_of;

  void* take(std::size_t bytes, std::size_t align, void* stream) {
    if (fail) throw std::bad_alloc();
    CHECK(align == 256);
    void* base = nullptr;
#if defined(UFUNC_BACKEND_CUDA)
    REQUIRE(cudaMallocAsync(&base, bytes + 256, static_cast<cudaStream_t>(stream)) == cudaSuccess);
#else
    (void)stream;
    base = std::aligned_alloc(256, (bytes + 256 + 255) / 256 * 256);
    REQUIRE(base != nullptr);
#endif
    void* p = static_cast<char*>(base) + (misalign ? 16 : 0);
    std::lock_guard<std::mutex> lock(m);
    live[p] = bytes;
    base_of[p] = base;
    ++allocs;
    return p;
  }
  void give(void* p, std::size_t bytes, void* stream) {
    void* base = nullptr;
    {
      std::lock_guard<std::mutex> lock(m);
      auto it = live.find(p);
      if (it == live.end() || it->second != bytes) {
        ++bad_frees;
        return;
      }
      live.erase(it);
      base = base_of[p];
      base_of.erase(p);
      ++frees;
    }
#if defined(UFUNC_BACKEND_CUDA)
    (void)cudaFreeAsync(base, static_cast<cudaStream_t>(stream));
#else
    (void)stream;
    std::free(base);
#endif
  }
  bool made(const void* p) {
    std::lock_guard<std::mutex> lock(m);
    return live.count(const_cast<void*>(p)) != 0;
  }
  std::size_t outstanding() {
    std::lock_guard<std::mutex> lock(m);
    return live.size();
  }

  // cuda::mr::resource (the host backend's calls)
  void* allocate(std::size_t bytes, std::size_t align) { return take(bytes, align, nullptr); }
  void deallocate(void* p, std::size_t bytes, std::size_t) { give(p, bytes, nullptr); }
#if defined(UFUNC_BACKEND_CUDA)
  // cuda::mr::async_resource (the CUDA backend's)
  void* allocate_async(std::size_t bytes, std::size_t align, cuda::stream_ref s) { return take(bytes, align, s.get()); }
  void deallocate_async(void* p, std::size_t bytes, std::size_t, cuda::stream_ref s) { give(p, bytes, s.get()); }
#endif
};

const double u = std::ldexp(1.0, -24);
/// The float sums' documented bound (docs/reductions.md): (log2(N) + 32) u sum|x|.
double sum_bound(index_t n, double abs_sum) { return (std::log2(static_cast<double>(n)) + 32) * u * abs_sum; }

/// Restores the library's pool when a case ends, however it ends.
struct reset_at_exit {
  ~reset_at_exit() { ufunc::reset_memory_resource(); }
};

}  // namespace

TEST_CASE("memory_resource: a call's arrays, results and temporaries come from the resource and return to it") {
  counting_resource r;
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  const index_t rows = 300, cols = 257;
  const auto h = test::random_vector<float>(static_cast<std::size_t>(rows * cols), seed);
  {
    reset_at_exit guard;
    ufunc::set_memory_resource(r);
    auto f = ufunc::vectorize([] UFUNC_HD(float a, float b) { return a * b + 1.0f; });
    auto x = ufunc::to_device(h, ufunc::shape{rows, cols});
    CHECK(r.made(x.data()));
    auto y = f(x, x);  // a result
    CHECK(r.made(y.data()));
    auto cs = ufunc::sum(y, ufunc::axis(0));  // a result of a reduction (and its temporaries)
    CHECK(r.made(cs.data()));
    auto e = ufunc::evaluate(f.lazy(x, f.lazy(x, x)));  // an expression's result
    CHECK(r.made(e.data()));
    const double total = ufunc::sum(x);  // a whole sum: scalar back on the host
    // A tall, narrow matrix's columns: the CUDA kernels split the rows and keep
    // the partial results in a temporary, which comes from the resource too.
    const index_t tall = index_t(1) << 16;
    const auto ht = test::random_vector<float>(static_cast<std::size_t>(tall * 8), seed + 1);
    auto t = ufunc::to_device(ht, ufunc::shape{tall, 8});
    const long before_tall = r.allocs;
    auto ts = ufunc::sum(t, ufunc::axis(0));
    CHECK(r.made(ts.data()));
#if defined(UFUNC_BACKEND_CUDA)
    CHECK(r.allocs - before_tall >= 2);  // the result and the partials
#else
    CHECK(r.allocs - before_tall >= 1);
#endif
    const auto hts = ts.to_host();
    for (index_t j = 0; j < 8; ++j) {
      double s = 0, sa = 0;
      for (index_t i = 0; i < tall; ++i) s += ht[static_cast<std::size_t>(i * 8 + j)], sa += std::fabs(ht[static_cast<std::size_t>(i * 8 + j)]);
      CHECK(std::fabs(hts[static_cast<std::size_t>(j)] - s) <= sum_bound(tall, sa));
    }

    const auto hy = y.to_host();
    const auto hcs = cs.to_host();
    const auto he = e.to_host();
    double want_total = 0, abs_total = 0;
    for (index_t i = 0; i < rows * cols; ++i) {
      const float v = h[static_cast<std::size_t>(i)];
      // Rounding only: v * v + 1 in float is within 2u of it (u = 2^-24; one
      // rounding where the compiler fuses a * b + 1); v * y + 1 adds y's 2u and
      // its own two roundings.
      const double wy = double(v) * v + 1, we = double(v) * wy + 1;
      REQUIRE(std::fabs(hy[static_cast<std::size_t>(i)] - wy) <= 2.01 * u * std::fabs(wy));
      REQUIRE(std::fabs(he[static_cast<std::size_t>(i)] - we) <= u * (3.01 * std::fabs(double(v) * wy) + 1.01 * std::fabs(we)));
      want_total += v, abs_total += std::fabs(v);
    }
    CHECK(std::fabs(total - want_total) <= sum_bound(rows * cols, abs_total));
    for (index_t j = 0; j < cols; ++j) {
      double s = 0, sa = 0;
      for (index_t i = 0; i < rows; ++i) {
        const float v = hy[static_cast<std::size_t>(i * cols + j)];
        s += v, sa += std::fabs(v);
      }
      CHECK(std::fabs(hcs[static_cast<std::size_t>(j)] - s) <= sum_bound(rows, sa));
    }
    CHECK(r.outstanding() >= 6);  // x, y, cs, e, t, ts
  }
#if defined(UFUNC_BACKEND_CUDA)
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
#endif
  CHECK(r.outstanding() == 0);
  CHECK(r.bad_frees == 0);
  CHECK(r.frees == r.allocs);
  CHECK(r.allocs >= 6);
}

TEST_CASE("memory_resource: after a reset new memory comes from the pool, and the resource's memory still returns to it") {
  counting_resource r;
  reset_at_exit guard;
  auto add = ufunc::vectorize([] UFUNC_HD(float p, float q) { return p + q; });
  ufunc::set_memory_resource(r);
  auto a = ufunc::full<float>(ufunc::shape{1000}, 2.5f);
  REQUIRE(r.made(a.data()));
  const ufunc::pinned_array<float> staging(ufunc::shape{1000});  // page-locked host memory: never the resource's
  CHECK(!r.made(staging.data()));
  ufunc::reset_memory_resource();
  auto b = ufunc::full<float>(ufunc::shape{1000}, 1.5f);
  CHECK(!r.made(b.data()));
  const long allocs = r.allocs;
  {
    auto moved = std::move(a);  // freed after the reset: through the resource
    auto c = add(moved, b);
    CHECK(!r.made(c.data()));
    const auto hc = c.to_host();
    for (float v : hc) REQUIRE(v == 4.0f);
  }
  CHECK(r.allocs == allocs);
  CHECK(r.outstanding() == 0);
  CHECK(r.bad_frees == 0);
}

TEST_CASE("memory_resource: the resource's bad_alloc is ufunc::out_of_memory; a misaligned pointer is refused") {
  counting_resource r;
  reset_at_exit guard;
  auto negative = ufunc::vectorize([] UFUNC_HD(float p) { return -p; });
  const auto h = test::random_vector<float>(4096, test::fresh_seed());
  auto x = ufunc::to_device(h);  // from the pool
  ufunc::set_memory_resource(r);
  const long long live0 = ufunc::detail::testing::live_allocations();
  r.fail = true;
  const std::string oom = test::message_of<ufunc::out_of_memory>([&] { (void)negative(x); });
  CHECK(test::contains(oom, "memory resource of device"));
  CHECK(test::contains(oom, "16384 bytes"));
  r.fail = false;
  r.misalign = true;
  const std::string mis = test::message_of<ufunc::value_error>([&] { (void)negative(x); });
  CHECK(test::contains(mis, "not aligned to 256 bytes"));
  CHECK(r.outstanding() == 0);  // the misaligned pointer went back at once
  CHECK(ufunc::detail::testing::live_allocations() == live0);  // neither failure left an allocation behind
  r.misalign = false;
  auto y = negative(x);
  CHECK(r.made(y.data()));
  const auto hy = y.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(hy[i] == -h[i]);
  CHECK(test::contains(test::message_of<ufunc::value_error>([&] { ufunc::set_memory_resource(r, 99); }),
                       "device 99 does not exist"));
  CHECK(test::contains(test::message_of<ufunc::value_error>([&] { ufunc::set_memory_resource(r, -2); }),
                       "device -2 does not exist"));
}
