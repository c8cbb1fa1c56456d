// Compile-time probe (issue 43): one six-node lazy expression,
// gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w with (1, 1024) rows, evaluated
// into out; matx_six_node.cu is the same expression as a MatX user writes it.
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>

int main() {
  const ufunc::shape s{1024, 1024};
  ufunc::array<float> x(s), y(s), w(s), r(s), mx(ufunc::shape{1, 1024}), my(ufunc::shape{1, 1024});
  auto sub = ufunc::vectorize([] UFUNC_HD(float a, float b) { return a - b; }, "sub");
  auto hyp = ufunc::vectorize([] UFUNC_HD(float a, float b) { return sqrtf(a * a + b * b); }, "hypot");
  auto gauss = ufunc::vectorize(
      [] UFUNC_HD(float v, float mu, float sigma) {
        const float z = (v - mu) / sigma;
        return 0.3989422804f / sigma * expf(-0.5f * z * z);
      },
      "gaussian_pdf");
  ufunc::evaluate(gauss.lazy(hyp.lazy(sub.lazy(x, mx), sub.lazy(y, my)), 0.0f, 1.0f) * w, ufunc::out(r));
  std::printf("%d\n", static_cast<int>(r.size()));
}
