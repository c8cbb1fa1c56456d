// Category "pairwise" (cases in cat_pairwise.hpp): float32 at every core
// dimension here, float64 and int32 in cat_pairwise_more.cpp (two sources, so
// that their many reductions compile in parallel).
#include "cat_pairwise.hpp"

namespace oracle {

void category_pairwise_more(rng_t& g, writer& w, record& rec, int which);

void category_pairwise(rng_t& g, writer& w, record& rec) {
  using namespace pairwise_impl;
  switch (const int which = static_cast<int>(uniform(g, 0, 9))) {
    case 0: pairwise_case<float, 0, false>(g, w, rec); break;
    case 1: pairwise_case<float, 1, false>(g, w, rec); break;
    case 2: pairwise_case<float, 2, false>(g, w, rec); break;
    case 3: pairwise_case<float, 3, false>(g, w, rec); break;
    case 4: pairwise_case<float, 4, false>(g, w, rec); break;
    case 5: pairwise_case<float, 3, true>(g, w, rec); break;
    default: category_pairwise_more(g, w, rec, which); break;
  }
}

}  // namespace oracle
