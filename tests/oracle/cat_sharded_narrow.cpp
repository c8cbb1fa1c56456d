// The sharded category (cat_sharded.cpp) for i8, u8 and i32.
#include "cat_sharded.hpp"

namespace oracle {
namespace sharded_impl {

void case_narrow(int code, rng_t& g, writer& w, record& rec) {
  if (code == i8)
    sharded_case<std::int8_t>(g, w, rec);
  else if (code == u8)
    sharded_case<std::uint8_t>(g, w, rec);
  else
    sharded_case<std::int32_t>(g, w, rec);
}

}  // namespace sharded_impl
}  // namespace oracle
