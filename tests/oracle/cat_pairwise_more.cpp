// Category "pairwise" (cases in cat_pairwise.hpp): float64 and int32 at two
// core dimensions each (cat_pairwise.cpp chooses, and holds float32).
#include "cat_pairwise.hpp"

namespace oracle {

void category_pairwise_more(rng_t& g, writer& w, record& rec, int which) {
  using namespace pairwise_impl;
  switch (which) {
    case 6: pairwise_case<double, 0, false>(g, w, rec); break;
    case 7: pairwise_case<double, 2, false>(g, w, rec); break;
    case 8: pairwise_case<std::int32_t, 0, false>(g, w, rec); break;
    default: pairwise_case<std::int32_t, 3, false>(g, w, rec); break;
  }
}

}  // namespace oracle
