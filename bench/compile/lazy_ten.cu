// Compile-time probe (issue 18): ten distinct six-node lazy expressions
// (gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w + I), each evaluated into out.
// Target: at most twice eager_ten.cu's time.
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>

template <int I>
void expr(const ufunc::array<float>& x, const ufunc::array<float>& y, const ufunc::array<float>& w,
          const ufunc::array<float>& mx, const ufunc::array<float>& my, ufunc::array<float>& r) {
  auto sub = ufunc::vectorize([] UFUNC_HD(float a, float b) { return a - b; }, "sub");
  auto hyp = ufunc::vectorize([] UFUNC_HD(float a, float b) { return sqrtf(a * a + b * b); }, "hypot");
  auto gauss = ufunc::vectorize(
      [] UFUNC_HD(float v, float mu, float s) {
        const float z = (v - mu) / s;
        return 0.3989422804f / s * expf(-0.5f * z * z);
      },
      "gaussian_pdf");
  auto e = gauss.lazy(hyp.lazy(sub.lazy(x, mx), sub.lazy(y, my)), 0.0f, 1.0f) * w + float(I);
  ufunc::evaluate(e, ufunc::out(r));
}

int main() {
  const ufunc::shape s{1024, 1024};
  ufunc::array<float> x(s), y(s), w(s), r(s), mx(ufunc::shape{1, 1024}), my(ufunc::shape{1, 1024});
  expr<0>(x, y, w, mx, my, r), expr<1>(x, y, w, mx, my, r), expr<2>(x, y, w, mx, my, r);
  expr<3>(x, y, w, mx, my, r), expr<4>(x, y, w, mx, my, r), expr<5>(x, y, w, mx, my, r);
  expr<6>(x, y, w, mx, my, r), expr<7>(x, y, w, mx, my, r), expr<8>(x, y, w, mx, my, r);
  expr<9>(x, y, w, mx, my, r);
  std::printf("%d\n", static_cast<int>(r.size()));
}
