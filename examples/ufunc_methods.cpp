// ufunc_methods: NumPy's ufunc methods on a small matrix, each printed next to
// the expected result (computed here with plain loops) and checked exactly
// (small integers in float are exact).
//   add.outer(a, b)         r[i, j] = a[i] + b[j]
//   add.accumulate(M, k)    running sums along axis k
//   add.reduce(M)           sums along axis 0 (NumPy's default)
//   ufunc::sum / max / argmax with axis and keepdims
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

bool show(const char* what, const std::vector<float>& got, const std::vector<float>& want, int cols) {
  std::printf("%s\n  %-36s %s\n", what, "got", "expected");
  for (std::size_t r = 0; r < got.size() / static_cast<std::size_t>(cols); ++r) {
    std::string a, b;
    for (int c = 0; c < cols; ++c) {
      a += std::to_string(static_cast<int>(got[r * cols + c])) + " ";
      b += std::to_string(static_cast<int>(want[r * cols + c])) + " ";
    }
    std::printf("  %-36s %s\n", a.c_str(), b.c_str());
  }
  const bool ok = got == want;
  std::printf("  %s\n\n", ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("ufunc_methods: no CUDA device, skipped");
    return 77;
  }
  const auto add = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x + y; }, "add");
  const int R = 3, C = 4;
  std::vector<float> m(R * C);
  for (int i = 0; i < R * C; ++i) m[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 10);
  const auto M = ufunc::to_device(m, {R, C});
  bool ok = true;

  const std::vector<float> a{1, 2, 3}, b{10, 20, 30, 40};
  std::vector<float> outer;
  for (float x : a)
    for (float y : b) outer.push_back(x + y);
  ok &= show("add.outer([1 2 3], [10 20 30 40])", add.outer(ufunc::to_device(a), ufunc::to_device(b)).to_host(), outer, C);

  std::vector<float> acc0(m), acc1(m);
  for (int i = 1; i < R; ++i)
    for (int j = 0; j < C; ++j) acc0[i * C + j] += acc0[(i - 1) * C + j];
  for (int i = 0; i < R; ++i)
    for (int j = 1; j < C; ++j) acc1[i * C + j] += acc1[i * C + j - 1];
  ok &= show("M", M.to_host(), m, C);
  ok &= show("add.accumulate(M, axis 0)", add.accumulate(M, ufunc::axis(0)).to_host(), acc0, C);
  ok &= show("add.accumulate(M, axis 1)", add.accumulate(M, ufunc::axis(1)).to_host(), acc1, C);

  std::vector<float> s0(C, 0), s1(R, 0), mx1(R, -1), am1(R, 0);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const float v = m[i * C + j];
      s0[j] += v, s1[i] += v;
      if (v > mx1[i]) mx1[i] = v, am1[i] = static_cast<float>(j);
    }
  ok &= show("add.reduce(M)  (axis 0)", add.reduce(M).to_host(), s0, C);
  ok &= show("sum(M, axis(1))", ufunc::sum(M, ufunc::axis(1)).to_host(), s1, R);
  const auto mk = ufunc::max(M, ufunc::axis(1), ufunc::keepdims);
  std::printf("max(M, axis(1), keepdims) has shape %s\n", mk.shape().str().c_str());
  ok &= mk.shape() == ufunc::shape(R, 1);
  ok &= show("  values", mk.to_host(), mx1, 1);
  const auto am = ufunc::argmax(M, ufunc::axis(1)).to_host();
  ok &= show("argmax(M, axis(1))", std::vector<float>(am.begin(), am.end()), am1, R);
  std::printf("ufunc_methods: %s\n", ok ? "all results as expected" : "MISMATCH");
  return ok ? 0 : 1;
}
