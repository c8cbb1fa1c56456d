// Compile-time probe: one axis reduction (ufunc::sum over axis 1) of a device matrix.
#include <ufunc/ufunc.hpp>

#include <cstdio>

int main() {
  ufunc::array<float> x(ufunc::shape{1024, 1024});
  auto r = ufunc::sum(x, ufunc::axis(1));
  std::printf("%d\n", static_cast<int>(r.size()));
}
