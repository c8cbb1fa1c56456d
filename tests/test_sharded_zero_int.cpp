// Sharded arrays: reductions of ints with zero-size dims and empty shards
// against the unsharded calls (sharded_support.hpp; doubles:
// test_sharded_zero.cpp).
#include "sharded_support.hpp"

#include <vector>

using namespace sharded_test;

TEST_CASE("sharded: int reductions with zero-size dims and empty shards equal the unsharded call, host shards") {
  const std::vector<ufunc::device_set> d{ufunc::device_set{0}, ufunc::device_set{0, 1}, ufunc::device_set{0, 1, 2},
                                         ufunc::device_set{5, 2, 9, 3}};
  zero_size_reduce_cases<host, int>(d, 300);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("sharded: int reductions with zero-size dims and empty shards equal the unsharded call, the GPUs present") {
  const ufunc::device_set all;
  if (all.size() == 1 || ufunc::have_nccl) zero_size_reduce_cases<ufunc::target::device, int>({ufunc::device_set{0}, all}, 60);
}
#endif
