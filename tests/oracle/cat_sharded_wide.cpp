// The sharded category (cat_sharded.cpp) for i64 and bool.
#include "cat_sharded.hpp"

namespace oracle {
namespace sharded_impl {

void case_wide(int code, rng_t& g, writer& w, record& rec) {
  if (code == i64)
    sharded_case<std::int64_t>(g, w, rec);
  else
    sharded_case<bool>(g, w, rec);
}

}  // namespace sharded_impl
}  // namespace oracle
