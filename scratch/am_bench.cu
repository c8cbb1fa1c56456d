#include <ufunc/ufunc.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>
struct mul_f { UFUNC_HD float operator()(float a, float b) const { return a * b; } };
double med(std::vector<double> t) { std::sort(t.begin(), t.end()); return t[t.size() / 2]; }
int main(int argc, char** argv) {
  const ufunc::index_t n = ufunc::index_t(1) << 27;
  std::vector<float> h(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto& v : h) v = d(rng);
  auto x = ufunc::to_device(h), y = ufunc::to_device(h);
  auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
  auto rf = ufunc::empty<float>(ufunc::shape{});
  const auto ref = std::max_element(h.begin(), h.end()) - h.begin();
  if (ufunc::argmax(x) != ref) { std::printf("WRONG\n"); return 1; }
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const std::function<void()>& fn, int batch) {
    std::vector<double> t;
    for (int i = 0; i < 40; ++i) {
      cudaEventRecord(a); for (int k = 0; k < batch; ++k) fn(); cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 5) t.push_back(ms / batch);
    }
    return med(t);
  };
  const double peak = ufunc::devices()[0].peak_bandwidth();
  auto am = [&] { ufunc::argmax(x, ufunc::out(ri)); };
  auto dt = [&] { dot(x, y, ufunc::out(rf)); };
  std::printf("%-6s argmax 1: %.3f  5: %.3f   dot 1: %.3f  5: %.3f\n", argv[1], n * 4.0 / (time(am, 1) * 1e-3) / peak,
              n * 4.0 / (time(am, 5) * 1e-3) / peak, n * 8.0 / (time(dt, 1) * 1e-3) / peak,
              n * 8.0 / (time(dt, 5) * 1e-3) / peak);
}
