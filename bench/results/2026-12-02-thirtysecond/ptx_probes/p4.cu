#include <ufunc/ufunc.hpp>
ufunc::array<float> g(const ufunc::array<float>& a, const ufunc::array<int>& idx) {
  const auto mx = ufunc::vectorize(ufunc::maximum{}, "maximum");
  return mx.reduceat(a, idx, ufunc::axis(0));
}
