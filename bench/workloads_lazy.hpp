// The functors of the lazy-expression workloads (issue 18), shared by
// bench_lazy.cu and the sweep (sweep/sweep_lazy.cpp) so that both time the same
// math: the nodes of x * b + c and of the six-node expression
// gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w, and each hand-fused into one
// functor.
#pragma once

#include <ufunc/ufunc.hpp>

#include <cmath>

namespace workloads {

struct mul_f {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};
struct add_f {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
struct sub_f {
  UFUNC_HD float operator()(float a, float b) const { return a - b; }
};
/// add(mul(x, b), c) hand-fused.
struct fma3_f {
  UFUNC_HD float operator()(float x, float b, float c) const { return x * b + c; }
};
struct hypot_f {
  UFUNC_HD float operator()(float a, float b) const { return sqrtf(a * a + b * b); }
};
/// The normal density at x with mean mu and standard deviation sigma.
struct gauss_f {
  UFUNC_HD float operator()(float x, float mu, float sigma) const {
    const float z = (x - mu) / sigma;
    return 0.3989422804f / sigma * expf(-0.5f * z * z);
  }
};
/// The six-node expression hand-fused.
struct six_f {
  UFUNC_HD float operator()(float x, float mx, float y, float my, float w) const {
    return gauss_f{}(hypot_f{}(x - mx, y - my), 0.0f, 1.0f) * w;
  }
};

}  // namespace workloads
