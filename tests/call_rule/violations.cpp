// Calls that break the one rule of trailing arguments (detail/call.hpp), calls
// whose function cannot take the inputs given (detail/signature.hpp), lazy
// expressions built against their rules (expression.hpp) or given to eager
// operations. Each ctest test compiles this file with one CASE_* defined and
// passes only when the compiler's first error is the message that names the
// call (MATMUL_INT: an element type matmul refuses). Host target: no nvcc.
#include <ufunc/ufunc.hpp>

using namespace ufunc;
using H = target::host;

int main() {
  host_array<float> x(shape{4, 3}), y(shape{4, 3}), z(shape{4, 3});
  stream_ref s;
  auto f = vectorize<H>([](float a, float b) { return a + b; }, "add");
  (void)f, (void)s, (void)y, (void)z;
#if defined(CASE_UFUNC_TWO_STREAMS)
  f(x, y, s, s);
#elif defined(CASE_UFUNC_TWO_UNSAFE_CASTS)
  f(x, y, out(z), ufunc::unsafe_cast, ufunc::unsafe_cast);
#elif defined(CASE_UFUNC_TWO_OUTS)
  f(x, y, out(z), out(z));
#elif defined(CASE_UFUNC_INPUT_AFTER_CONTROL)
  f(x, out(z), y);
#elif defined(CASE_UFUNC_AXIS)
  f(x, y, axis(0));
#elif defined(CASE_REDUCE_TWO_AXES)
  sum(x, axis(0), axes{1});
#elif defined(CASE_REDUCE_TWO_STREAMS)
  sum(x, axis(0), s, s);
#elif defined(CASE_REDUCE_TWO_KEEPDIMS)
  sum(x, axis(0), keepdims, keepdims);
#elif defined(CASE_REDUCE_VARIANT)
  sum(x, matmul_variant::fastest);
#elif defined(CASE_METHOD_TWO_STREAMS)
  f.reduce(x, s, s);
#elif defined(CASE_MATMUL_TWO_OUTS)
  matmul(x, y, out(z), out(z));
#elif defined(CASE_MATMUL_TWO_VARIANTS)
  matmul(x, y, matmul_variant::blocked, matmul_variant::blocked);
#elif defined(CASE_MATMUL_INT)
  host_array<int> p(shape{2, 2}), q(shape{2, 2});  // no integer matmul
  (void)matmul(p, q);
#elif defined(CASE_TRANSPOSE_TWO_STREAMS)
  transpose(x, std::vector<int>{1, 0}, s, s);
#elif defined(CASE_PARALLEL_FOR_TWO_STREAMS)
  parallel_for<H>(4, [](std::size_t) {}, s, s);
#elif defined(CASE_PARALLEL_FOR_TWO_CONFIGS)
  parallel_for<H>(4, [](std::size_t) {}, launch_config{1, 32}, launch_config{1, 32});
#elif defined(CASE_EVALUATE_TWO_STREAMS)
  evaluate(lazy(x) + y, s, s);
#elif defined(CASE_LAZY_CONTROL)
  (void)f.lazy(x, out(z));
#elif defined(CASE_LAZY_VECTOR_LEAF)
  (void)(lazy(x) + std::vector<float>(12));
#elif defined(CASE_LAZY_METHOD)
  f.reduce(lazy(x) + y);
#elif defined(CASE_LAZY_SEVERAL_OUTPUTS_INSIDE)
  auto two = vectorize<H>([](float a) { return cuda::std::make_tuple(a, a); }, "two");
  (void)f.lazy(two.lazy(x), y);
#elif defined(CASE_LAZY_33_LEAVES)
  auto e8 = lazy(x) + x + x + x + x + x + x + x;  // 8 leaves
  auto e32 = e8 + e8 + e8 + e8;                   // 32 leaves: the limit
  (void)evaluate(e32);
  (void)(e32 + 1.0f);                             // 33
#elif defined(CASE_UFUNC_TOO_MANY_INPUTS)
  f(x, y, z);  // f takes 2
#elif defined(CASE_UFUNC_TOO_FEW_INPUTS)
  f(x, out(z));
#elif defined(CASE_LAZY_TOO_MANY_INPUTS)
  (void)f.lazy(x, y, 1.0f);
#elif defined(CASE_UFUNC_GENERIC_WRONG_COUNT)
  auto g = vectorize<H>([](auto a, auto b) { return a + b; }, "generic add");  // arity unknown
  g(x, y, z);
#elif defined(CASE_UFUNC_WRONG_ELEMENT_TYPE)
  struct tag {};
  f(x, tag{});
#elif defined(CASE_UFUNC_VEC_MISSING)
  using P3 = cuda::std::array<float, 3>;
  auto d = vectorize<H>([](P3 a, P3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }, "dot");
  d(x, y);  // x and y are (4, 3): vec<3>(x), vec<3>(y) was meant
#elif defined(CASE_LAZY_VEC_MISSING)
  using P3 = cuda::std::array<float, 3>;
  auto d = vectorize<H>([](P3 a, float b) { return a[0] * b; }, "scale");
  (void)d.lazy(x, 2.0f);
#elif defined(CASE_MATMUL_LAZY)
  (void)matmul(lazy(x) * 2.0f, y.view().transposed());
#elif defined(CASE_TRANSPOSE_LAZY)
  (void)transpose(lazy(x) + y);
#elif defined(CASE_NONE)
  f(x, y, out(z), s);  // the control case: a valid call compiles
  evaluate(f.lazy(lazy(x) * 2.0f, y), out(z), s);
  f(x, y, out(z), ufunc::unsafe_cast, s);
  evaluate(f.lazy(lazy(x) * 2.0f, y), out(z), ufunc::unsafe_cast);
  ufunc::sum(x, out(z), ufunc::unsafe_cast);
  using P3 = cuda::std::array<float, 3>;  // the fixed cases of the arity and vec checks
  auto d = vectorize<H>([](P3 a, P3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }, "dot");
  host_array<float> dz(shape{4});
  d(vec<3>(x), vec<3>(y), out(dz));
  (void)d.lazy(vec<3>(x), vec<3>(y));
  auto g = vectorize<H>([](auto a, auto b) { return a + b; }, "generic add");
  g(x, y, out(z), s);
  (void)matmul(evaluate(lazy(x) * 2.0f), y.view().transposed());
  (void)transpose(evaluate(lazy(x) + y));
#endif
  return 0;
}
