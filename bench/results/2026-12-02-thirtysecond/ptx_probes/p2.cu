#include <ufunc/ufunc.hpp>
float f(const ufunc::array<float>& a) {
  auto P = a.view().permuted({2, 0, 1});
  return ufunc::sum(P);
}
ufunc::array<ufunc::index_t> g(const ufunc::array<float>& a) {
  auto P = a.view().permuted({2, 0, 1});
  return ufunc::argmax(P, ufunc::axis(1));
}
ufunc::array<float> h(const ufunc::array<float>& a, const ufunc::array<float>& b) {
  auto P = a.view().permuted({2, 0, 1});
  return ufunc::sum(ufunc::lazy(P) * b, ufunc::axes{0, 2});
}
