// Workloads (1) sum and (2) abs-sum over N = 2^lo ... 2^hi float32, the seeds'
// first figures: a single-threaded host loop, the ufunc host target (all
// cores), the GPU including transfers (a std::vector in, the value out) and
// the GPU with the data resident (result into a device scalar); CUB's
// DeviceReduce::Sum beside them in a CUDA build. Bytes counted: 4 N read.
#include "sweep.hpp"

#if defined(UFUNC_BACKEND_CUDA)
#  include <cub/device/device_reduce.cuh>
#endif

namespace sweep {
namespace {

struct abs_f {
  UFUNC_HD float operator()(float v) const { return fabsf(v); }
};

#if defined(UFUNC_BACKEND_CUDA)
/// cub::DeviceReduce::Sum with its temporary storage allocated once.
class cub_sum {
 public:
  explicit cub_sum(std::size_t n) : n_(static_cast<int>(n)) {
    UFUNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr),
                                            static_cast<float*>(nullptr), n_));
    UFUNC_CUDA_CHECK(cudaMalloc(&temp_, temp_bytes_));
  }
  ~cub_sum() { cudaFree(temp_); }
  cub_sum(const cub_sum&) = delete;
  cub_sum& operator=(const cub_sum&) = delete;
  void operator()(const float* in, float* out) { UFUNC_CUDA_CHECK(cub::DeviceReduce::Sum(temp_, temp_bytes_, in, out, n_)); }

 private:
  int n_;
  std::size_t temp_bytes_ = 0;
  void* temp_ = nullptr;
};
#endif

}  // namespace

void sum_workloads(context& c) {
  using ufunc::index_t;
  const auto& cfg = c.cfg;
  const std::size_t max_n = std::size_t(1) << cfg.hi;
  const std::vector<float> h = uniform(max_n, 1);
  auto x = ufunc::to_device(h);
  auto r0 = ufunc::empty<float>(ufunc::shape{});
  const auto abs_sum = ufunc::map_reduce(abs_f{}, ufunc::plus{});
  const auto dev_limit = bandwidth_limit(c, ufunc::cuda_backend);

  for (int e : exponents(cfg.lo, cfg.hi)) {
    const std::size_t n = std::size_t(1) << e;
    const int k = static_cast<int>(std::min<std::size_t>(rotation_copies(4.0 * n), max_n / n));
    double ref = 0, ref_abs = 0;
    for (std::size_t i = 0; i < n; ++i) ref += h[i], ref_abs += std::fabs(h[i]);
    const double tol = 2.0 * e * std::ldexp(1.0, -24) * ref_abs + 1e-6;
    const std::vector<float> hv(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string shp = shape_str({static_cast<long long>(n)});
    const double bytes = 4.0 * n;

    for (const bool absolute : {false, true}) {
      const std::string w = absolute ? "abs_sum" : "sum";
      const double want = absolute ? ref_abs : ref;
      auto emit = [&](const std::string& impl, const timing& t, bool on_device) {
        const auto lim = bandwidth_limit(c, on_device);
        c.rec.row(w, impl, shp, "float32", double(n), t, bytes, "GB/s", lim.first, lim.second);
      };
      c.rec.progress(w + " 2^" + std::to_string(e));

      // host loop, one thread (double accumulator: a plain loop's float sum of
      // 2^27 terms would be too far off to check)
      {
        int rot = 0;
        volatile double sink = 0;
        auto loop = [&](int copy) {
          const float* p = h.data() + std::size_t(copy) * n;
          double s = 0;
          if (absolute)
            for (std::size_t i = 0; i < n; ++i) s += std::fabs(p[i]);
          else
            for (std::size_t i = 0; i < n; ++i) s += p[i];
          return s;
        };
        if (c.rec.check(close(loop(0), want, 0, 1, 1e-6 * ref_abs), w + " host loop 2^" + std::to_string(e)))
          emit("host loop (1 thread)", measure<ufunc::target::host>([&] { sink = loop(rot++ % k); }, e >= 25 ? cfg.slow : cfg.host),
               false);
        (void)sink;
      }
      // ufunc host target: a view of the host vector, all cores
      {
        auto view_of = [&](int copy) {
          return ufunc::make_view<ufunc::target::host>(const_cast<float*>(h.data()) + std::size_t(copy) * n,
                                                       ufunc::shape{static_cast<index_t>(n)});
        };
        const double got = absolute ? abs_sum(view_of(0)) : ufunc::sum(view_of(0));
        int rot = 0;
        volatile float sink = 0;
        if (c.rec.check(close(got, want, 1, tol), w + " host target 2^" + std::to_string(e)))
          emit("ufunc host target",
               measure<ufunc::target::host>(
                   [&] { sink = absolute ? abs_sum(view_of(rot++ % k)) : ufunc::sum(view_of(rot++ % k)); }, cfg.host),
               false);
        (void)sink;
      }
      // device including transfers: std::vector in, value out (the seeds' "GPU")
      {
        const double got = absolute ? abs_sum(hv) : ufunc::sum(hv);
        volatile float sink = 0;
        if (c.rec.check(close(got, want, 1, tol), w + " with transfers 2^" + std::to_string(e)))
          emit("ufunc " + c.dev + " with transfers",
               measure<ufunc::target::host>([&] { sink = absolute ? abs_sum(hv) : ufunc::sum(hv); }, cfg.host), false);
        (void)sink;
      }
      // device, data resident, result into a device scalar
      {
        auto view_of = [&](int copy) {
          return ufunc::make_view(x.data() + std::size_t(copy) * n, ufunc::shape{static_cast<index_t>(n)});
        };
        if (absolute)
          abs_sum(view_of(0), ufunc::out(r0));
        else
          ufunc::sum(view_of(0), ufunc::out(r0));
        int rot = 0;
        if (c.rec.check(close(r0.to_host()[0], want, 1, tol), w + " resident 2^" + std::to_string(e))) {
          std::vector<std::function<void()>> fns{[&] {
            if (absolute)
              abs_sum(view_of(rot++ % k), ufunc::out(r0));
            else
              ufunc::sum(view_of(rot++ % k), ufunc::out(r0));
          }};
#if defined(UFUNC_BACKEND_CUDA)
          // CUB beside it, interleaved (sum only: the target is ufunc / CUB >= 0.97)
          cub_sum cub(n);
          int crot = 0;
          if (!absolute) {
            cub(x.data(), r0.data());
            if (!c.rec.check(close(r0.to_host()[0], want, 1, tol), "cub sum 2^" + std::to_string(e))) fns.resize(1);
            else fns.push_back([&] { cub(x.data() + std::size_t(crot++ % k) * n, r0.data()); });
          }
#endif
          const auto t = measure_interleaved<ufunc::target::device>(fns, cfg.device);
          emit("ufunc " + c.dev, t[0], true);
          if (t.size() > 1) emit("CUB DeviceReduce::Sum", t[1], true);
        }
      }
    }
  }
  (void)dev_limit;
}

}  // namespace sweep
