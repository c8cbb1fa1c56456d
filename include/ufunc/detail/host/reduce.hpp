// Host backend of the reduction engine: the same reduction sources as the CUDA
// kernels, run on the OpenMP threads. Floating-point sums use
// pairwise (tree) order within each output, so rounding error grows like log N.
#pragma once

#include <algorithm>
#include <memory>
#include <new>

#include "../../stream.hpp"
#include "../memory.hpp"
#include "../reduce_job.hpp"
#include "../reduce_source.hpp"
#include "elementwise.hpp"
#include "parallel.hpp"

namespace ufunc::detail::host {

/// Elements reduced serially at the leaves of the pairwise tree (as NumPy's
/// pairwise sum); the tree above them has depth log2(n / leaf).
inline constexpr index_t pairwise_leaf = 128;

template <class Acc, class At, class Op>
Acc pairwise(const At& at, index_t lo, index_t hi, const Op& op) {
  if (hi - lo <= pairwise_leaf) {
    Acc a = at(lo);
    for (index_t r = lo + 1; r < hi; ++r) a = op(a, at(r));
    return a;
  }
  const index_t mid = lo + (hi - lo) / 2;
  return op(pairwise<Acc>(at, lo, mid, op), pairwise<Acc>(at, mid, hi, op));
}

/// n default-constructed T in host memory from the library's allocator (so that
/// out-of-memory is ufunc::out_of_memory and the test allocation limit sees it),
/// destroyed and freed on scope exit.
template <class T>
class host_temp {
 public:
  explicit host_temp(index_t n)
      : p_(static_cast<T*>(memory<target::host>::allocate(static_cast<std::size_t>(n) * sizeof(T)))), n_(n) {
    std::uninitialized_default_construct_n(p_, static_cast<std::size_t>(n_));
  }
  ~host_temp() {
    std::destroy_n(p_, static_cast<std::size_t>(n_));
    memory<target::host>::deallocate(p_);
  }
  host_temp(const host_temp&) = delete;
  host_temp& operator=(const host_temp&) = delete;
  T& operator[](index_t i) const { return p_[i]; }

 private:
  T* p_;
  index_t n_;
};

/// out[o] = tail(reduction of src's elements of output o) for o in [0, K); R >= 1.
/// `rows_like`: the reduced elements of one output are close in memory, so each
/// output is reduced on its own; otherwise a block of outputs advances together
/// through the reduced dims, reading memory in order.
template <class Src, class Op, class Tail, class Res>
void reduce(const Src& src, index_t K, index_t R, bool rows_like, const Op& op, const Tail& tail, Res* out) {
  using Acc = typename Src::acc_type;
  if (K == 1) {
    const auto b = src.base(0);
    auto at = [&](index_t r) { return src.at(b, r); };
    const index_t nchunks = (R + chunk - 1) / chunk;
    host_temp<Acc> part(nchunks);  // before anything is written to out
    parallel_n(nchunks, [&](index_t c) { part[c] = pairwise<Acc>(at, c * chunk, std::min(R, (c + 1) * chunk), op); });
    out[0] = static_cast<Res>(tail(pairwise<Acc>([&](index_t c) { return part[c]; }, 0, nchunks, op)));
    return;
  }
  if (rows_like) {
    const index_t per = std::max<index_t>(1, chunk / R);  // outputs per work item
    parallel_n((K + per - 1) / per, [&](index_t c) {
      for (index_t o = c * per, e = std::min(K, o + per); o < e; ++o) {
        const auto b = src.base(o);
        out[o] = static_cast<Res>(tail(pairwise<Acc>([&](index_t r) { return src.at(b, r); }, 0, R, op)));
      }
    });
    return;
  }
  constexpr index_t W = 256;  // outputs advanced together
  parallel_n((K + W - 1) / W, [&](index_t c) {
    const index_t o0 = c * W, w = std::min(W, K - o0);
    typename Src::base_t b[W];
    Acc acc[W];  // on the stack: no allocation inside the parallel region
    for (index_t j = 0; j < w; ++j) {
      b[j] = src.base(o0 + j);
      acc[j] = src.at(b[j], 0);
    }
    for (index_t r = 1; r < R; ++r)
      for (index_t j = 0; j < w; ++j) acc[j] = op(acc[j], src.at(b[j], r));
    for (index_t j = 0; j < w; ++j) out[o0 + j] = static_cast<Res>(tail(acc[j]));
  });
}

}  // namespace ufunc::detail::host

namespace ufunc::detail {

template <class Target>
struct reduce_backend;

template <>
struct reduce_backend<target::host> {
  /// out[0..K) = the K reductions (R >= 1).
  template <class Job, class Res>
  static void run(const Job& j, Res* out, stream_ref) {
    host::reduce(j.src, j.g.K, j.g.R, j.g.rows_like, j.op, j.tail(), out);
  }
  /// The single reduction (K == 1) returned to the caller.
  template <class Res, class Job>
  static Res to_host(const Job& j, stream_ref s) {
    Res r{};
    run(j, &r, s);
    return r;
  }
};

}  // namespace ufunc::detail
