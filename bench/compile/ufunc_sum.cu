// Compile-time probe: one whole-array ufunc::sum call over a device array.
#include <ufunc/ufunc.hpp>

#include <cstdio>

int main() {
  ufunc::array<float> x(ufunc::shape(1 << 20));
  const float s = ufunc::sum(x);
  std::printf("%g\n", s);
}
