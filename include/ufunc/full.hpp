// ufunc::full: a new array filled with one value. Apart from array.hpp because it
// launches a fill kernel through the elementwise engine.
#pragma once

#include "array.hpp"
#include "config.hpp"
#include "detail/elementwise.hpp"
#include "detail/layout.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

/// An array filled with `value`, enqueued on `st` (on the CUDA target, call from
/// a TU nvcc compiles).
template <class T, class Target = target::device>
array<T, Target> full(const shape& s, T value, stream_ref st = {}) {
  array<T, Target> a(s, st);
  detail::fill_contiguous<Target, T>(a.data(), s.count(), value, st);
  return a;
}

}  // namespace ufunc
