// Category "sharded": reductions of a sharded array (host shards: device_set
// ids only label shards in host memory, so every build runs them on any
// machine) against NumPy on the unsharded data. Shapes have rank 1..4 with
// zero-size dims common (the sharded axis 0 too), over 1..4 shards split
// evenly (ufunc::shard) or any way (from_shards, 0-row shards anywhere). Ops:
//   sum, prod, min, max, mean                 np.sum/prod/min/max/mean
//   map_reduce(T(v*v), plus)                  np.sum(np.multiply(x, x))
//   reduce(plus, init)                        np.sum(x, initial=init)
//   reduce(larger, init), reduce(larger)      np.maximum.reduce(x, initial=init), without
//                                             (a custom op with no identity: value_error when empty)
//   sum(add.lazy(x, x))                       np.sum(np.add(x, x))
// each whole (a host value), over a random set of axes (negative, sometimes
// repeated or out of range) with and without keepdims, or keepdims alone.
#include "cat_sharded.hpp"

namespace oracle {
namespace sharded_impl {

void case_float(int code, rng_t& g, writer& w, record& rec) {
  if (code == f32)
    sharded_case<float>(g, w, rec);
  else
    sharded_case<double>(g, w, rec);
}

}  // namespace sharded_impl

void category_sharded(rng_t& g, writer& w, record& rec) {
  using namespace sharded_impl;
  const int code = static_cast<int>(uniform(g, 0, n_dtypes - 1));
  if (code == f32 || code == f64)
    case_float(code, g, w, rec);
  else if (code == i8 || code == u8 || code == i32)
    case_narrow(code, g, w, rec);
  else
    case_wide(code, g, w, rec);
}

}  // namespace oracle
