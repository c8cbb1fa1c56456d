// atomic_counter: why a shared counter needs an atomic. 64 blocks of 64 threads
// each add 1 to one counter, first with a plain `c[0] += 1`, then with
// ufunc::atomic_add.
//
// `c[0] += 1` is three steps: load, add, store. Threads that load the counter at
// the same moment all store the same value + 1, so most increments are lost: the
// count printed is far below 4096 on a GPU, and varies from run to run (this part
// races on purpose; it is printed, not checked). atomic_add does the three steps
// as one indivisible operation, so the count is exactly 4096 (checked). On the
// host backend the plain version races between OpenMP threads the same way,
// though with only a few threads it may lose few increments or none.
#include <ufunc/ufunc.hpp>

#include <cstdio>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("atomic_counter: no CUDA device, skipped");
    return 77;
  }
  const int blocks = 64, threads = 64;
  const int expected = blocks * threads;

  auto racy = ufunc::zeros<int>(ufunc::shape{1});
  auto rv = racy.view();
  ufunc::parallel_for(expected, [=] UFUNC_HD (std::size_t) { rv[0] += 1; },  // a data race: on purpose
                      ufunc::launch_config{blocks, threads});
  std::printf("without atomics: %d (should be %d)\n", racy.to_host()[0], expected);

  auto counter = ufunc::zeros<int>(ufunc::shape{1});
  auto cv = counter.view();
  ufunc::parallel_for(expected, [=] UFUNC_HD (std::size_t) { ufunc::atomic_add(&cv[0], 1); },
                      ufunc::launch_config{blocks, threads});
  const int count = counter.to_host()[0];
  std::printf("with atomic_add: %d (should be %d)\n", count, expected);

  if (count != expected) {
    std::puts("atomic_counter: FAILED");
    return 1;
  }
  std::puts("atomic_counter: ok");
  return 0;
}
