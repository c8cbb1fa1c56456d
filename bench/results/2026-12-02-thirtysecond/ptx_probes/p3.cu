#include <ufunc/ufunc.hpp>
ufunc::array<float> f(const ufunc::array<float>& a) { return ufunc::cumsum(a, ufunc::axis(0)); }
