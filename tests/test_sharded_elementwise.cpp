// Sharded arrays: elementwise calls and lazy expressions against the same calls
// on the unsharded arrays (sharded_support.hpp).
#include "sharded_support.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

using namespace sharded_test;

TEST_CASE("sharded: elementwise calls and lazy expressions against the unsharded calls, host shards") {
  for (const auto& d : sets<host>()) run_elementwise<host>(d);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("sharded: elementwise calls and lazy expressions against the unsharded calls, the GPUs present") {
  using dev = ufunc::target::device;
  const int n = static_cast<int>(ufunc::devices().size());
  INFO(n << " GPUs");
  for (const auto& d : sets<dev>()) {
    if (d.size() > 1 && !ufunc::have_nccl) continue;  // an error: test_sharded.cpp's device-set case
    run_elementwise<dev>(d);
  }
  // Each shard in its own device's memory.
  const auto x = ufunc::zeros<float, dev>(ufunc::shape{std::max(n, 1) * 3, 2}, ufunc::device_set());
  for (int i = 0; i < x.num_shards(); ++i) CHECK(ufunc::detail::device_of<dev>(x.shard(i).data()) == x.devices()[i]);
}
#endif
