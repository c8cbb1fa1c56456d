// Compile-time probe (issue 18): ten distinct eager ufunc calls, the reference
// for lazy_ten.cu.
#include <ufunc/ufunc.hpp>

#include <cstdio>

template <int I>
void call(const ufunc::array<float>& x, const ufunc::array<float>& y, ufunc::array<float>& r) {
  auto f = ufunc::vectorize([] UFUNC_HD(float a, float b) { return a * b + float(I); }, "f");
  f(x, y, ufunc::out(r));
}

int main() {
  ufunc::array<float> x(ufunc::shape{1024, 1024}), y(ufunc::shape{1024, 1024}), r(ufunc::shape{1024, 1024});
  call<0>(x, y, r), call<1>(x, y, r), call<2>(x, y, r), call<3>(x, y, r), call<4>(x, y, r);
  call<5>(x, y, r), call<6>(x, y, r), call<7>(x, y, r), call<8>(x, y, r), call<9>(x, y, r);
  std::printf("%d\n", static_cast<int>(r.size()));
}
