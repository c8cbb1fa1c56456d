// Workloads (5) matmul, float32 square n^3 (n = 256 ... 8192): every variant
// of the build's device target and, in a CUDA build, cuBLAS SGEMM in plain FP32
// and with TF32 tensor cores; each result checked at 64 sampled elements against
// double dot products first. Limit: the FP32 peak (SMs x lanes x 2 x clock).
// (6) transpose, float32, 1024^2 ... 8192^2 and ragged shapes: every variant
// and a copy of the same bytes (a copy kernel with 16-byte accesses and
// cudaMemcpy in a CUDA build, std::memcpy on the host), checked element for
// element. Bytes counted: read + write.
#include "sweep.hpp"

#include <cstring>

#if defined(UFUNC_BACKEND_CUDA)
#  include <cublas_v2.h>
#  include "../bench_copy.cuh"
#endif

namespace sweep {

void matmul_workload(context& c) {
  using ufunc::index_t;
  const std::vector<index_t> sizes =
      c.cfg.quick ? std::vector<index_t>{64, 128, 256} : std::vector<index_t>{256, 512, 1024, 2048, 4096, 8192};
  const double peak = c.cfg.fp32_tflops;
  const std::string peak_src = "FP32 peak (SMs x FP32 lanes x 2 x SM clock)";
#if defined(UFUNC_BACKEND_CUDA)
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    std::exit(1);
  }
#endif
  for (index_t n : sizes) {
    const auto ha = uniform(std::size_t(n * n), 41), hb = uniform(std::size_t(n * n), 42);
    auto a = ufunc::to_device(ha, {n, n}), b = ufunc::to_device(hb, {n, n});
    auto cm = ufunc::empty<float>({n, n});
    const std::string shp = shape_str({n, n, n});
    const double flop = 2.0 * n * n * n;
    // 64 sampled elements of A B in double, with the magnitude of their terms
    std::vector<std::pair<index_t, index_t>> at;
    std::vector<double> want, mag;
    for (int s = 0; s < 64; ++s) {
      const index_t i = (s * 7919) % n, j = (s * 104729 + 13) % n;
      double v = 0, m = 0;
      for (index_t q = 0; q < n; ++q) {
        const double t = double(ha[std::size_t(i * n + q)]) * hb[std::size_t(q * n + j)];
        v += t, m += std::fabs(t);
      }
      at.push_back({i, j}), want.push_back(v), mag.push_back(m);
    }
    auto check = [&](const std::string& who, double rel) {
      const auto got = cm.to_host();
      bool ok = true;
      for (std::size_t s = 0; s < at.size() && ok; ++s)
        ok = close(got[std::size_t(at[s].first * n + at[s].second)], want[s], rel, mag[s]);
      return c.rec.check(ok, "matmul " + who + " " + shp);
    };
    auto emit = [&](const std::string& impl, const timing& t) {
      c.rec.row("matmul", impl, shp, "float32", double(n), t, flop, "TFLOP/s", peak, peak_src);
    };
    for (auto v : ufunc::matmul_variants()) {
      if (v == ufunc::matmul_variant::tf32) continue;  // not FP32 (bench_tensor_core times it)
      c.rec.progress("matmul " + std::string(ufunc::to_string(v)) + " " + shp);
      ufunc::matmul(a, b, ufunc::out(cm), v);
      if (check(ufunc::to_string(v), 1e-5))
        emit(std::string("ufunc ") + ufunc::to_string(v),
             measure<ufunc::target::device>([&] { ufunc::matmul(a, b, ufunc::out(cm), v); },
                                            v == ufunc::matmul_variant::naive && n >= 4096 ? c.cfg.slow : c.cfg.device));
    }
#if defined(UFUNC_BACKEND_CUDA)
    const float one = 1.f, zero = 0.f;
    auto sgemm = [&] {  // row-major C = A B is column-major C^T = B^T A^T
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, b.data(), int(n), a.data(), int(n),
                  &zero, cm.data(), int(n));
    };
    for (const bool tf32 : {false, true}) {
      const std::string who = tf32 ? "cuBLAS SGEMM TF32" : "cuBLAS SGEMM";
      c.rec.progress("matmul " + who + " " + shp);
      cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH);
      sgemm();
      if (check(who, tf32 ? 5e-3 : 1e-5)) emit(who, measure<ufunc::target::device>(sgemm, c.cfg.device));
    }
#endif
  }
#if defined(UFUNC_BACKEND_CUDA)
  cublasDestroy(handle);
#endif
}

void transpose_workload(context& c) {
  using ufunc::index_t;
  const std::vector<std::pair<index_t, index_t>> shapes =
      c.cfg.quick ? std::vector<std::pair<index_t, index_t>>{{256, 256}, {255, 257}}
                  : std::vector<std::pair<index_t, index_t>>{{1024, 1024}, {2048, 2048}, {4096, 4096}, {8192, 8192},
                                                             {1023, 1025}, {8191, 8193}};
  for (auto [r, cl] : shapes) {
    const std::size_t count = std::size_t(r * cl);
    const double bytes = 8.0 * count;
    const int k = rotation_copies(bytes, 16);
    const auto h = uniform(count * k, 51);
    std::vector<ufunc::array<float>> xs, ys;
    for (int q = 0; q < k; ++q) {
      xs.push_back(ufunc::to_device(std::vector<float>(h.begin() + q * count, h.begin() + (q + 1) * count), {r, cl}));
      ys.push_back(ufunc::empty<float>({cl, r}));
    }
    const std::string shp = shape_str({r, cl});
    const auto lim = bandwidth_limit(c, ufunc::cuda_backend);
    auto emit = [&](const std::string& impl, const timing& t) {
      c.rec.row("transpose", impl, shp, "float32", double(count), t, bytes, "GB/s", lim.first, lim.second);
    };
    int rot = 0;
    for (auto v : ufunc::transpose_variants()) {
      c.rec.progress("transpose " + std::string(ufunc::to_string(v)) + " " + shp);
      ufunc::transpose(xs[0], ufunc::out(ys[0]), v);
      const auto got = ys[0].to_host();
      bool ok = true;
      for (index_t i = 0; i < r && ok; ++i)
        for (index_t j = 0; j < cl && ok; ++j) ok = got[std::size_t(j * r + i)] == h[std::size_t(i * cl + j)];
      if (c.rec.check(ok, "transpose " + std::string(ufunc::to_string(v)) + " " + shp))
        emit(std::string("ufunc ") + ufunc::to_string(v),
             measure<ufunc::target::device>([&] { const int q = rot++ % k; ufunc::transpose(xs[q], ufunc::out(ys[q]), v); },
                                            c.cfg.device));
    }
    c.rec.progress("transpose copy " + shp);
#if defined(UFUNC_BACKEND_CUDA)
    const int sms = ufunc::devices()[0].multiprocessors;
    emit("copy kernel (same bytes)", measure<ufunc::target::device>([&] {
           const int q = rot++ % k;
           bench_copy_bytes(xs[q].data(), ys[q].data(), static_cast<long long>(count * 4), sms);
         }, c.cfg.device));
    emit("cudaMemcpy D2D (same bytes)", measure<ufunc::target::device>([&] {
           const int q = rot++ % k;
           UFUNC_CUDA_CHECK(cudaMemcpyAsync(ys[q].data(), xs[q].data(), count * 4, cudaMemcpyDeviceToDevice));
         }, c.cfg.device));
    {
      bench_copy_bytes(xs[0].data(), ys[0].data(), static_cast<long long>(count * 4), sms);
      const auto got = ys[0].to_host();
      c.rec.check(std::memcmp(got.data(), h.data(), count * 4) == 0, "copy kernel " + shp);
    }
#else
    emit("memcpy (same bytes)", measure<ufunc::target::host>([&] {
           const int q = rot++ % k;
           std::memcpy(ys[q].data(), xs[q].data(), count * 4);
         }, c.cfg.host));
#endif
  }
}

}  // namespace sweep
