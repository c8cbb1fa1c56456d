// Probe (session 22): the sort paths the order-bits change touches (built
// from the old and the new headers, run alternately): argsort of 2^28 int32
// and of 2^28 uint32 (one row), argsort of 2^14 x 2^14 float32 rows, topk
// k = 100 largest of 4096 x 8192 float32 (a full sort of every row), and
// unique_inverse of 2^26 int32 with many repeats. Medians of device time.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cstdio>
using namespace bench;
int main() {
  using ufunc::index_t;
  const index_t n = index_t(1) << 28;
  auto xf = ufunc::empty<float>(ufunc::shape{n});
  ufunc::random::fill_uniform(xf.view(), 11);
  auto xi = ufunc::empty<int>(ufunc::shape{n});
  auto xu = ufunc::empty<unsigned>(ufunc::shape{n});
  const float* fp = xf.data();
  int* ip = xi.data();
  unsigned* up = xu.data();
  ufunc::parallel_for(n, [=] UFUNC_HD(std::size_t i) {
    ip[i] = static_cast<int>((fp[i] - 0.5f) * 2e9f);
    up[i] = static_cast<unsigned>(fp[i] * 4e9f);
  });
  ufunc::synchronize();
  const ufunc::array_view<const float> rows(xf.data(), ufunc::shape{16384, 16384});
  const ufunc::array_view<const float> tk(xf.data(), ufunc::shape{4096, 8192});
  auto xq = ufunc::empty<int>(ufunc::shape{index_t(1) << 26});
  int* qp = xq.data();
  ufunc::parallel_for(index_t(1) << 26, [=] UFUNC_HD(std::size_t i) { qp[i] = static_cast<int>(fp[i] * 1e6f) - 500000; });
  ufunc::synchronize();
  auto t = time_interleaved_ms({[&] { (void)ufunc::argsort(xi); }, [&] { (void)ufunc::argsort(xu); },
                                [&] { (void)ufunc::argsort(rows); }, [&] { (void)ufunc::topk(tk, 100); },
                                [&] { (void)ufunc::unique_inverse(xq); }, [&] { (void)ufunc::sort(xi); }},
                               9, 1);
  std::printf("argsort int32 2^28 %.3f ms\nargsort uint32 2^28 %.3f ms\nargsort rows 2^14x2^14 float %.3f ms\n"
              "topk 100 of 4096x8192 float %.3f ms\nunique_inverse int32 2^26 %.3f ms\nsort int32 2^28 %.3f ms\n",
              t[0], t[1], t[2], t[3], t[4], t[5]);
  // check: the argsorts give sorted keys, topk's values are the keys at its indices (host)
  const auto ai = ufunc::argsort(xi).to_host();
  const auto hi = xi.to_host();
  bool ok = true;
  for (std::size_t j = 1; j < ai.size(); ++j) ok = ok && hi[ai[j - 1]] <= hi[ai[j]] && (hi[ai[j - 1]] < hi[ai[j]] || ai[j - 1] < ai[j]);
  std::printf("argsort int32 ordered and stable: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
