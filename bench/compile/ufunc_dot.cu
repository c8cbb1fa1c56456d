// Compile-time probe: one dot product, a whole sum of a lazy expression of two
// device arrays (CUB over packs of both inputs, and the row kernels for layouts
// that path does not take).
#include <ufunc/ufunc.hpp>

#include <cstdio>

int main() {
  ufunc::array<float> x(ufunc::shape(1 << 20)), y(ufunc::shape(1 << 20));
  const float s = ufunc::sum(ufunc::lazy(x) * y);
  std::printf("%g\n", s);
}
