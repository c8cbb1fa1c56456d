// Compile-time reference: one thrust::reduce call over device floats.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>

#include <cstdio>

int main() {
  thrust::device_vector<float> x(1 << 20, 1.0f);
  const float s = thrust::reduce(x.begin(), x.end(), 0.0f);
  std::printf("%g\n", s);
}
