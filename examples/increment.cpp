// increment: the seeds' first explicit kernel, increment_by_one, written with
// ufunc::parallel_for instead of a hand-made grid.
//
// The seed computes its thread's position with cuda.grid(1) (or cuda.grid(2) for a
// matrix), picks threads per block and blocks per grid by hand, and must guard
// `if pos < an_array.size` because the grid is rounded up past the end.
// parallel_for takes the index space instead: it asks the CUDA occupancy API for
// the block size, walks the space with a grid-stride loop, and calls the lambda
// once per index, so there is no grid arithmetic and no bounds guard to forget.
// A view (`a.view()`) is what the lambda captures: a pointer plus shape, usable
// on the device as v[i] or m(i, j).
//
// Checked against a serial loop: 10,000 values (1-D) and a 1000x1000 matrix (2-D).
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <random>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("increment: no CUDA device, skipped");
    return 77;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);

  // 1-D: an_array[pos] += 1 for every pos.
  std::vector<float> h1(10'000);
  for (auto& x : h1) x = dist(rng);
  auto a = ufunc::to_device(h1);
  auto v = a.view();
  ufunc::parallel_for(a.size(), [=] UFUNC_HD (std::size_t i) { v[i] += 1; });
  const auto r1 = a.to_host();  // waits for the kernel
  std::size_t bad = 0;
  for (std::size_t i = 0; i < h1.size(); ++i) bad += r1[i] != h1[i] + 1.0f;
  std::printf("1-D: %zu values incremented, %zu mismatches\n", h1.size(), bad);

  // 2-D: one call per (row, column) of a 1000x1000 matrix.
  const std::size_t rows = 1000, cols = 1000;
  std::vector<float> h2(rows * cols);
  for (auto& x : h2) x = dist(rng);
  auto m = ufunc::to_device(h2, ufunc::shape{rows, cols});
  auto mv = m.view();
  ufunc::parallel_for(ufunc::shape{rows, cols}, [=] UFUNC_HD (std::size_t i, std::size_t j) { mv(i, j) += 1; });
  const auto r2 = m.to_host();
  std::size_t bad2 = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) bad2 += r2[i * cols + j] != h2[i * cols + j] + 1.0f;
  std::printf("2-D: %zux%zu matrix incremented, %zu mismatches\n", rows, cols, bad2);

  if (bad != 0 || bad2 != 0) {
    std::puts("increment: FAILED");
    return 1;
  }
  std::puts("increment: ok");
  return 0;
}
