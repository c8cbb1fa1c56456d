// Probe (session 15): fill_uniform 2^28 float32 against a device copy of the same bytes and
// curandGenerateUniform, for the fill's launch shape (-DUFUNC_PROBE_FILL: Philox blocks a
// thread at 256 threads a block; 0: the occupancy API's one wave, grid-stride).
#include <ufunc/ufunc.hpp>
#include "bench_copy.cuh"
#include "bench_util.hpp"
#include <curand.h>
#include <cstdio>
using namespace bench;
int main() {
  const auto dev = bench_device("probe_fill", 0);
  if (!dev) return 77;
  const ufunc::index_t n = ufunc::index_t(1) << 28;
  const std::uint64_t seed = 20261129;
  auto x = ufunc::empty<float>(ufunc::shape{n});
  auto y = ufunc::empty<float>(ufunc::shape{n});
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  curandSetPseudoRandomGeneratorSeed(gen, seed);
  // check: the fill equals cuRAND's draws bit for bit (first 2^20)
  ufunc::random::fill_uniform(x.view(), seed);
  curandGenerateUniform(gen, y.data(), std::size_t(n));
  const auto a = x.to_host(), b = y.to_host();
  long bad = 0; for (std::size_t i = 0; i < (1u << 20); ++i) bad += a[i] != b[i];
  long badend = 0; for (std::size_t i = a.size() - 4096; i < a.size(); ++i) badend += a[i] != b[i];
  std::printf("check: %ld + %ld differ from curand %s\n", bad, badend, bad + badend ? "FAILED" : "ok");
  const bench_reference copy(bench_pass::copy, 4.0 * double(n), dev->multiprocessors);
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { copy(); }, [&] { ufunc::random::fill_uniform(x.view(), seed); },
                                        [&] { curandGenerateUniform(gen, y.data(), std::size_t(n)); },
                                        [&] { ufunc::random::fill_normal(x.view(), seed); },
                                        [&] { curandGenerateNormal(gen, y.data(), std::size_t(n), 0.f, 1.f); }},
                                       25, 1);
    std::printf("FILL=%d copy %.4f uniform %.4f (%.3f of copy) curandU %.4f (%.3f) | normal %.4f curandN %.4f (%.3f)\n",
                UFUNC_PROBE_FILL, t[0], t[1], t[0] / t[1], t[2], t[0] / t[2], t[3], t[4], t[4] / t[3]);
  }
  return 0;
}
