// Runs the README's streams block (section "Streams and asynchrony", the block
// marked <!-- readme_streams ... -->, extracted by tests/CMakeLists.txt into
// readme_streams_block.inc) with the names it uses, `h` (host data) and `f` (a
// binary ufunc), and checks what it computed against a host loop on fresh
// random data. The same source runs on both backends; exits 1 on a mismatch.
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <random>
#include <vector>

int main() {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> quarters(-400, 400);
  std::vector<float> h(4096);
  for (auto& v : h) v = 0.25f * static_cast<float>(quarters(rng));  // sums of these are exact in float
  auto f = ufunc::vectorize([] UFUNC_HD (float v, float a) { return a * v + 1.0f; }, "affine");
  {
#include "readme_streams_block.inc"
    double want_total = 0.0;
    int bad = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const float want = 2.0f * h[i] + 1.0f;
      want_total += want;
      if (back[i] != want && bad++ == 0)
        std::printf("readme_streams: element %zu is %g, expected %g (seed %u)\n", i, back[i], want, seed);
    }
    if (static_cast<double>(total) != want_total) {
      std::printf("readme_streams: the sum is %g, expected %g (seed %u)\n", total, want_total, seed);
      ++bad;
    }
    if (bad) return 1;
    std::printf("readme_streams: %zu elements and their sum as expected\n", h.size());
  }
  return 0;
}
