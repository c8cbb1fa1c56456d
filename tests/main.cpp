// Test runner. In a CUDA build on a machine without a GPU there is nothing to
// run the tests on: exit 77 so ctest reports them as skipped, not failed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <ufunc/device.hpp>

int main(int argc, char** argv) {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("ufunc_tests: CUDA backend but no CUDA device visible: all tests skipped");
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
