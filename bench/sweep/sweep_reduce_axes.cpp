// Workload (7) axis reductions: sum of a square float32 matrix along axis 0
// (columns) and axis 1 (rows), 1024^2 ... 8192^2, and of the tall (2^20, 64)
// matrix along both; the whole-matrix sum (CUB's path) of the same bytes beside
// them; every output checked against double sums first. Timed in batches of
// back-to-back calls (bench/NOTES.md, issue 3). Bytes: the matrix read and the
// outputs written.
#include "sweep.hpp"

namespace sweep {

void axis_workload(context& c) {
  using ufunc::index_t;
  std::vector<std::pair<index_t, index_t>> shapes;
  if (c.cfg.quick)
    shapes = {{256, 256}, {1024, 64}};
  else
    shapes = {{1024, 1024}, {2048, 2048}, {4096, 4096}, {8192, 8192}, {index_t(1) << 20, 64}};
  const auto lim = bandwidth_limit(c, ufunc::cuda_backend);
  for (auto [r, cl] : shapes) {
    const std::size_t count = std::size_t(r * cl);
    const int k = rotation_copies(4.0 * count, 16);
    const auto h = uniform(count, 61);
    std::vector<ufunc::array<float>> xs;
    for (int q = 0; q < k; ++q) xs.push_back(ufunc::to_device(h, {r, cl}));
    const std::string shp = shape_str({r, cl});
    double total = 0, total_abs = 0;
    std::vector<double> col(std::size_t(cl), 0), col_abs(std::size_t(cl), 0), row(std::size_t(r), 0),
        row_abs(std::size_t(r), 0);
    for (index_t i = 0; i < r; ++i)
      for (index_t j = 0; j < cl; ++j) {
        const double v = h[std::size_t(i * cl + j)];
        col[std::size_t(j)] += v, col_abs[std::size_t(j)] += std::fabs(v);
        row[std::size_t(i)] += v, row_abs[std::size_t(i)] += std::fabs(v);
        total += v, total_abs += std::fabs(v);
      }
    for (int axis : {0, 1}) {
      const std::string impl = "ufunc sum axis " + std::to_string(axis);
      c.rec.progress("axis " + impl + " " + shp);
      const index_t outs = axis == 0 ? cl : r;
      auto res = ufunc::empty<float>({outs});
      ufunc::sum(xs[0], ufunc::axis(axis), ufunc::out(res));
      const auto got = res.to_host();
      const auto& want = axis == 0 ? col : row;
      const auto& mag = axis == 0 ? col_abs : row_abs;
      const double terms = double(axis == 0 ? r : cl);
      bool ok = true;
      for (index_t q = 0; q < outs && ok; ++q)
        ok = close(got[std::size_t(q)], want[std::size_t(q)], 2 * std::log2(terms) * std::ldexp(1.0, -24),
                   mag[std::size_t(q)], 1e-6);
      if (!c.rec.check(ok, impl + " " + shp)) continue;
      int rot = 0;
      c.rec.row("axis_sum", impl, shp, "float32", double(count),
                measure<ufunc::target::device>([&] { ufunc::sum(xs[rot++ % k], ufunc::axis(axis), ufunc::out(res)); },
                                               c.cfg.device),
                4.0 * (double(count) + outs), "GB/s", lim.first, lim.second);
    }
    c.rec.progress("axis whole sum " + shp);
    auto r0 = ufunc::empty<float>(ufunc::shape{});
    ufunc::sum(xs[0], ufunc::out(r0));
    if (c.rec.check(close(r0.to_host()[0], total, 2 * std::log2(double(count)) * std::ldexp(1.0, -24), total_abs, 1e-6),
                    "whole sum " + shp)) {
      int rot = 0;
      c.rec.row("axis_sum", "ufunc sum whole (CUB path)", shp, "float32", double(count),
                measure<ufunc::target::device>([&] { ufunc::sum(xs[rot++ % k], ufunc::out(r0)); }, c.cfg.device),
                4.0 * double(count), "GB/s", lim.first, lim.second);
    }
  }
}

}  // namespace sweep
