// Sharded arrays: float and integer reductions and matmul against the same
// calls on the unsharded arrays (sharded_support.hpp).
#include "sharded_support.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

using namespace sharded_test;

TEST_CASE("sharded: reductions and matmul against the unsharded calls, host shards") {
  for (const auto& d : sets<host>()) run_reductions<host>(d);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("sharded: reductions and matmul against the unsharded calls, the GPUs present") {
  using dev = ufunc::target::device;
  const int n = static_cast<int>(ufunc::devices().size());
  INFO(n << " GPUs");
  for (const auto& d : sets<dev>()) {
    if (d.size() > 1 && !ufunc::have_nccl) continue;  // an error: test_sharded.cpp's device-set case
    run_reductions<dev>(d);
  }
}
#endif
