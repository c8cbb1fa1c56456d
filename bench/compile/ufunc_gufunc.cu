// Compile-time probe: one ufunc::gufunc call (a "(n),(n)->()" dot over rows of
// two device arrays); issue 41's target: <= 1.5x ufunc_vectorize.cu.
#include <ufunc/ufunc.hpp>

#include <cstdio>

int main() {
  ufunc::array<float> x(ufunc::shape(1 << 14, 64)), y(ufunc::shape(1 << 14, 64));
  auto dot = ufunc::gufunc(
      [] UFUNC_HD(const ufunc::array_view<const float>& a, const ufunc::array_view<const float>& b,
                  const ufunc::array_view<float>& r) {
        float s = 0;
        for (ufunc::index_t j = 0; j < a.shape()[0]; ++j) s += a(j) * b(j);
        r() = s;
      },
      "(n),(n)->()");
  auto r = dot(x, y);
  std::printf("%d\n", static_cast<int>(r.size()));
}
