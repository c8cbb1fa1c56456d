#include <ufunc/ufunc.hpp>
ufunc::array<float> f(const ufunc::array<float>& a) {
  return ufunc::sum(a, ufunc::axis(1));
}
