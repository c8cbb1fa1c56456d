#include <ufunc/ufunc.hpp>
auto f(const ufunc::array<float>& a) { auto P = a.view().permuted({2, 0, 1}); return ufunc::topk(P, 16); }
auto g(const ufunc::array<float>& a) { auto P = a.view().permuted({2, 0, 1}); return ufunc::argmin_k<8>(ufunc::lazy(P) * 2.0f, ufunc::axis(1)); }
auto h(const ufunc::array<float>& a) { auto P = a.view().permuted({2, 0, 1}); return ufunc::mean(P, ufunc::axes{0, 2}); }
