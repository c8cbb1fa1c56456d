// sum(lazy(X) * 2.0f, axis 1) against sum(X, axis 1) over (8192, 8192) floats:
// one call each, for ncu (the row kernels' DRAM throughput, registers, occupancy).
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <vector>

int main() {
  const ufunc::index_t K = 8192;
  std::vector<float> h(std::size_t(K) * K, 0.5f);
  auto X = ufunc::to_device(h, {K, K});
  auto o = ufunc::empty<float>({K});
  for (int i = 0; i < 2; ++i) {
    ufunc::sum(X, ufunc::axis(1), ufunc::out(o));
    ufunc::sum(ufunc::lazy(X) * 2.0f, ufunc::axis(1), ufunc::out(o));
  }
  ufunc::synchronize();
  std::printf("probe_scaled: %g (want %g)\n", double(o.to_host()[0]), double(K));
  return 0;
}
