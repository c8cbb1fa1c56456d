// The reduction and strided paths whose N-d offsets are 64-bit (nd_plan<.., uint64_t>):
// device time (median of 25, device events) of each case; built twice, against the
// headers before and after the offsets loop change, and run alternately (g2.sh).
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <random>
#include <vector>

#include "bench_util.hpp"

int main() {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> h(std::size_t(1) << 28);
  for (auto& v : h) v = u(g);
  auto scale = ufunc::vectorize([] UFUNC_HD(float x) { return 2.f * x; });
  auto line = [](const char* name, double ms, double check) { std::printf("%-58s %9.4f ms  (check %.6g)\n", name, ms, check); };
  {
    auto A = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + (1 << 25)), {256, 512, 256});
    auto r = ufunc::empty<float>({512});
    double ms = time_device_ms([&] { ufunc::sum(A, ufunc::axes{0, 2}, ufunc::out(r)); });
    line("sum (256,512,256) axes (0,2) [2 reduced dims]", ms, r.to_host()[5]);
    auto r2 = ufunc::empty<float>({256, 256});
    ms = time_device_ms([&] { ufunc::sum(A, ufunc::axis(1), ufunc::out(r2)); });
    line("sum (256,512,256) axis 1 [2 kept dims, columns]", ms, r2.to_host()[5]);
    auto r3 = ufunc::empty<float>({256});
    ms = time_device_ms([&] { ufunc::sum(A, ufunc::axes{0, 1}, ufunc::out(r3)); });
    line("sum (256,512,256) axes (0,1) [merged, columns]", ms, r3.to_host()[5]);
    auto P = A.view().permuted({2, 0, 1});  // (256, 256, 512), innermost stride 256
    auto r4 = ufunc::empty<float>({256});
    ms = time_device_ms([&] { ufunc::sum(P, ufunc::axes{1, 2}, ufunc::out(r4)); });
    line("sum permuted (2,0,1) axes (1,2) [2 reduced, strided]", ms, r4.to_host()[5]);
    float whole = 0;
    ms = time_device_ms([&] { whole = ufunc::sum(P); });
    line("sum permuted (2,0,1) whole, to the host", ms, whole);
    ufunc::array<ufunc::index_t> am;
    ms = time_device_ms([&] { am = ufunc::argmax(P, ufunc::axis(1)); });
    line("argmax permuted (2,0,1) axis 1 (new array each call)", ms, double(am.to_host()[5]));
    auto B = ufunc::to_device(std::vector<float>(h.begin() + 7, h.begin() + 7 + 512), {512});
    auto r6 = ufunc::empty<float>({512});
    ms = time_device_ms([&] { ufunc::sum(ufunc::lazy(P) * B, ufunc::axes{0, 1}, ufunc::out(r6)); });
    line("sum(lazy(permuted) * b, axes (0,1))", ms, r6.to_host()[5]);
    auto A4 = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + (1 << 24)), {64, 64, 64, 64});
    auto Q = A4.view().permuted({3, 1, 2, 0});
    auto r5 = ufunc::empty<float>({64, 64});
    ms = time_device_ms([&] { ufunc::sum(Q, ufunc::axes{0, 2}, ufunc::out(r5)); });
    line("sum (64^4) permuted (3,1,2,0) axes (0,2)", ms, r5.to_host()[5]);
  }
  {
    auto A = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + (1 << 26)), {8192, 8192});
    auto r = ufunc::empty<float>({8192});
    for (int a : {0, 1}) {
      double ms = time_device_ms([&] { ufunc::sum(A, ufunc::axis(a), ufunc::out(r)); });
      std::printf("%-58s %9.4f ms  (check %.6g)\n", a ? "sum (8192,8192) axis 1" : "sum (8192,8192) axis 0", ms,
                  double(r.to_host()[7]));
    }
    auto T = A.view().transposed();
    double ms = time_device_ms([&] { ufunc::sum(T, ufunc::axis(1), ufunc::out(r)); });
    line("sum transposed (8192,8192) axis 1 [strided rows]", ms, r.to_host()[7]);
    auto o = ufunc::empty<float>({8192, 8192});
    ms = time_device_ms([&] { scale(T, ufunc::out(o)); });
    line("2x transposed (8192,8192) [tiles]", ms, o.to_host()[7]);
    ufunc::array<float> c;
    ms = time_device_ms([&] { c = ufunc::cumsum(A, ufunc::axis(0)); });
    line("cumsum (8192,8192) axis 0 (new array each call)", ms, c.to_host()[8192 * 3 + 1]);
  }
  {
    // More than 2^31 elements in a strided view: the elementwise kernels' 64-bit plan.
    const ufunc::index_t R = 32768, C = 65600;
    auto big = ufunc::empty<float>({R, C});
    ufunc::vectorize([] UFUNC_HD(float) { return 1.f; })(big, ufunc::out(big));
    auto V = big.view().sliced(1, 0, 65540);  // 2^31 + 131,072 elements, row stride 65600
    auto o = ufunc::empty<float>({R, 65540});
    double ms = time_device_ms([&] { scale(V, ufunc::out(o)); }, 2, 9);
    line("2x sliced (32768, 65540 of 65600) [> 2^31, 64-bit]", ms, o.to_host()[12345]);
  }
  return 0;
}
