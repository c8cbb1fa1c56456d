// Sharded arrays over two GPUs against one GPU (issue 22): throughput ratios of
// (1) the Gaussian pdf over 2 x 2^30 float32 sharded on two GPUs against one
//     GPU on 2^30 (target >= 1.9),
// (2) the sum of the same (target >= 1.85),
// (3) a 16384^3 FP32 matmul with A sharded by rows and B broadcast from GPU 0
//     by NCCL inside the timed call, against one GPU's ufunc::matmul (default
//     variant) (target >= 1.8).
// Both sides are timed by the host clock around calls that end synchronised
// (a sharded call returns when every device is done; the one-GPU call is
// followed by a device synchronize), interleaved (one, two, one, two, ...),
// medians. Every result is checked before it is timed: the pdf bit for bit
// against the one-GPU result, the sum against a double reference within the
// documented bound, matmul rows against the one-GPU product (small-integer
// inputs: every order of the sums is exact). Data are made on the devices
// (zeros plus a replicated row), so the host holds none of the 8-16 GiB.
// Needs two GPUs and NCCL; otherwise it says so and exits 0.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench_util.hpp"
#include "sharded_data.hpp"

namespace {

double host_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Median host times (ms) of `one` and `two`, interleaved, after a warm-up of each.
std::pair<double, double> interleaved_host_ms(const std::function<void()>& one, const std::function<void()>& two,
                                              int reps) {
  one();
  two();
  std::vector<double> a, b;
  for (int i = 0; i < reps; ++i) {
    a.push_back(host_ms(one));
    b.push_back(host_ms(two));
  }
  return {median(a), median(b)};
}



}  // namespace

int main() {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // no NVLink multicast (the library sets it too)
  if (!bench_device("bench_multi_gpu", with_cc_and_memory)) return 77;
  const int n_gpus = static_cast<int>(ufunc::devices().size());
  if (n_gpus < 2 || !ufunc::have_nccl) {
    std::printf("bench_multi_gpu: needs 2 GPUs and NCCL (found %d GPU(s), NCCL %s): nothing to measure\n", n_gpus,
                ufunc::have_nccl ? "yes" : "no");
    return 0;
  }
  const ufunc::device_set two{0, 1}, one{0};
  const auto pdf = ufunc::vectorize(pdf_fn{});
  const auto add = ufunc::vectorize(add_fn{});
  const auto differs = ufunc::map_reduce(differs_fn{}, ufunc::plus{});
  bool ok = true;

  // ---- (1), (2): pdf and sum over 2 x 2^30 floats -------------------------------
  {
    constexpr long long cols = 1024, rows1 = (1ll << 30) / cols;  // 2^30 per GPU
    const auto row = ufunc::asarray(ramp(cols, -5.f, 10.f / cols), ufunc::shape{cols});
    auto x1 = ufunc::zeros<float>(ufunc::shape{rows1, cols});  // GPU 0
    add(x1, row, ufunc::out(x1));
    auto x2 = ufunc::zeros<float>(ufunc::shape{2 * rows1, cols}, two);
    add(x2, row, ufunc::out(x2));
    auto y1 = ufunc::empty<float>(ufunc::shape{rows1, cols});
    auto y2 = ufunc::empty<float>(ufunc::shape{2 * rows1, cols}, two);
    pdf(x1, ufunc::out(y1));
    ufunc::synchronize();
    pdf(x2, ufunc::out(y2));
    // Check: every element of both results equals the first row of the one-GPU result bit for bit.
    const auto first = y1.view().sliced(0, 0, 1);
    const long long bad1 = differs(y1, first), bad2 = differs(y2, first);
    if (bad1 || bad2) {
      std::printf("FAILED: pdf differs from the one-GPU result in %lld (one GPU) / %lld (two) elements\n", bad1, bad2);
      ok = false;
    }
    const double row_sum = ufunc::reduce<double>(ufunc::plus{})(first);
    const double want = row_sum * double(2 * rows1);
    const double n = double(2 * rows1) * cols;
    const double tol = (std::log2(n) + 2 + 8) * 1.2e-7 * want;
    const double got = ufunc::sum(y2);
    if (std::fabs(got - want) > tol) {
      std::printf("FAILED: sharded sum %.9g, double reference %.9g (bound %.3g)\n", got, want, tol);
      ok = false;
    }
    const auto tp = interleaved_host_ms([&] { pdf(x1, ufunc::out(y1)); ufunc::synchronize(); },
                                        [&] { pdf(x2, ufunc::out(y2)); }, 15);
    const double r_pdf = (2.0 / tp.second) / (1.0 / tp.first);
    report("pdf 2^30 floats, one GPU", tp.first, "ms");
    report("pdf 2 x 2^30 floats, two GPUs (sharded)", tp.second, "ms");
    report("pdf throughput ratio, two GPUs / one", r_pdf, "x", ">= 1.9", r_pdf >= 1.9);
    volatile double sink = 0;
    const auto ts = interleaved_host_ms([&] { sink = ufunc::sum(y1); }, [&] { sink = ufunc::sum(y2); }, 15);
    (void)sink;
    const double r_sum = (2.0 / ts.second) / (1.0 / ts.first);
    report("sum 2^30 floats, one GPU", ts.first, "ms");
    report("sum 2 x 2^30 floats, two GPUs (sharded, NCCL all-reduce)", ts.second, "ms");
    report("sum throughput ratio, two GPUs / one", r_sum, "x", ">= 1.85", r_sum >= 1.85);
  }

  // ---- (3): matmul 16384^3 FP32, A sharded by rows, B broadcast -----------------
  {
    constexpr long long n = 16384;
    const auto arow = ufunc::asarray(small_ints(n), ufunc::shape{n});
    const auto brow = ufunc::asarray(small_ints(n + 3), ufunc::shape{n + 3});
    const auto brow_n = brow.view().sliced(0, 3, n + 3);
    auto a1 = ufunc::zeros<float>(ufunc::shape{n, n});
    add(a1, arow, ufunc::out(a1));
    auto b = ufunc::zeros<float>(ufunc::shape{n, n});
    add(b, brow_n, ufunc::out(b));
    auto a2 = ufunc::zeros<float>(ufunc::shape{n, n}, two);
    add(a2, arow, ufunc::out(a2));
    ufunc::synchronize();
    auto c1 = ufunc::matmul(a1, b);
    auto c2 = ufunc::matmul(a2, b);
    ufunc::synchronize();
    // Rows of the sharded product against the one-GPU product: all rows equal (A's rows are), exact sums.
    const auto c1_first = c1.view().sliced(0, 0, 1);
    const long long bad = differs(c2, c1_first) + differs(c1, c1_first);
    if (bad) {
      std::printf("FAILED: sharded matmul differs from the one-GPU product in %lld elements\n", bad);
      ok = false;
    }
    const auto tm = interleaved_host_ms([&] { c1 = ufunc::matmul(a1, b); ufunc::synchronize(); },
                                        [&] { c2 = ufunc::matmul(a2, b); }, 5);
    const double flops = 2.0 * n * n * n;
    const double r_mm = tm.first / tm.second;
    report("matmul 16384^3 one GPU", flops / tm.first / 1e9, "TFLOP/s");
    report("matmul 16384^3 two GPUs (A by rows, B broadcast, timed)", flops / tm.second / 1e9, "TFLOP/s");
    report("matmul throughput ratio, two GPUs / one", r_mm, "x", ">= 1.8", r_mm >= 1.8);
  }
  summary("bench_multi_gpu");
  return ok ? 0 : 1;
}
