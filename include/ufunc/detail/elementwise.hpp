// Elementwise dispatch: given outputs and operands (already validated by the
// public layer), merge their layouts, decide flat or N-d, and run the target's
// backend (host/elementwise.hpp, cuda/elementwise.hpp). Also the elementwise
// jobs other operations need: fill a layout with a value, copy with a cast, and
// a call over the library's own contiguous buffers (flat kernel only).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cuda/std/tuple>

#include "../config.hpp"
#include "../stream.hpp"
#include "host/elementwise.hpp"
#include "layout.hpp"
#include "operand.hpp"

#include UFUNC_CUDA_BACKEND("cuda/elementwise.hpp")

namespace ufunc::detail {

/// Runs out_j = f(ins...)_j over `out_shape` on Target. `outs` holds output base
/// pointers, `ins` in_ptr/in_value operands; `layouts` describes outputs then
/// inputs (in that order) for planning. Validation is the caller's job.
template <class Target, class R, class F, class Outs, class Ins, std::size_t NOPS>
void run_elementwise(const F& f, const shape& out_shape, const Outs& outs, const Ins& ins,
                     const std::array<operand_layout, NOPS>& layouts, stream_ref s) {
  const index_t n = out_shape.count();
  if (n == 0) return;
  const auto m = merge_layout<static_cast<int>(NOPS)>(out_shape, layouts);
  elementwise_backend<Target>::template run<R, static_cast<int>(NOPS)>(f, outs, ins, layouts, m, m.flat(layouts), n, s);
}

/// run_elementwise over n elements of operands that are contiguous, row-major
/// and of one shape by construction (the library's own fresh buffers: a
/// reduction's partials and their folds): the backends' flat kernel alone
/// (run_elementwise also compiles the strided and tiled kernels, which such
/// layouts never take).
template <class Target, class R, class F, class Outs, class Ins, std::size_t NOPS>
void run_contiguous(const F& f, index_t n, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>& layouts,
                    stream_ref s) {
  if (n == 0) return;
  elementwise_backend<Target>::template run_flat<R, static_cast<int>(NOPS)>(f, outs, ins, layouts, n, s);
}

template <class T>
struct cast_to {
  template <class U>
  UFUNC_HD T operator()(const U& v) const { return convert<T>(v); }
};

/// Every element of `dst` (the layout of the T elements at `p`) = value.
template <class Target, class T>
void fill_layout(T* p, const operand_layout& dst, T value, stream_ref s) {
  run_elementwise<Target, T>(fill_value<T>{value}, dst.shp, cuda::std::make_tuple(p),
                             cuda::std::tuple<>{}, std::array<operand_layout, 1>{dst}, s);
}

/// The n contiguous T at p = value: the flat kernel alone, for the vector
/// width only (a fresh array's fill; fill_layout compiles every layout's
/// kernel). A start before a 16-byte boundary (not the library's own
/// allocations) is filled first, as a launch of fewer elements than a vector.
template <class Target, class T>
void fill_contiguous(T* p, index_t n, T value, stream_ref s) {
  const auto head = static_cast<index_t>((16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16 / sizeof(T));
  auto fill = [&](T* q, index_t k) {
    if (k == 0) return;
    elementwise_backend<Target>::template run_flat<T, 1, true>(
        fill_value<T>{value}, cuda::std::make_tuple(q), cuda::std::tuple<>{},
        std::array<operand_layout, 1>{contiguous_layout(q, sizeof(T), shape(k))}, k, s);
  };
  const index_t h = std::min(n, head);
  fill(p, h);
  fill(p + h, n - h);
}

/// dst = OutT(src) elementwise, for the layouts of the elements at `d` and `x`
/// (src has dst's shape or broadcasts to it).
template <class Target, class OutT, class InT>
void cast_layout(OutT* d, const operand_layout& dst, const InT* x, const operand_layout& src, stream_ref s) {
  run_elementwise<Target, OutT>(cast_to<OutT>{}, dst.shp, cuda::std::make_tuple(d), cuda::std::make_tuple(in_ptr<InT>{x}),
                                std::array<operand_layout, 2>{dst, src}, s);
}

}  // namespace ufunc::detail
