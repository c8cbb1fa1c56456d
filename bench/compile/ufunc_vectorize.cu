// Compile-time probe: one ufunc::vectorize call (hypot over two device arrays).
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>

int main() {
  ufunc::array<float> x(ufunc::shape(1 << 20)), y(ufunc::shape(1 << 20));
  auto hyp = ufunc::vectorize([] UFUNC_HD(float a, float b) { return sqrtf(a * a + b * b); }, "hypot");
  auto r = hyp(x, y);
  std::printf("%d\n", static_cast<int>(r.size()));
}
