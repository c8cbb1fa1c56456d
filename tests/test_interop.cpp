// ufunc/interop.hpp: DLPack tensors in (every element type, byte_offset, strides
// of every sign, each check's message) and out (arrays and views, deleters
// counted, owners kept alive), and mdspans both ways, checked against loops over
// the raw buffers written here. The DLPack cases compile only where the build
// found <dlpack/dlpack.h> (UFUNC_HAVE_DLPACK); the mdspan cases always.
#include "test_support.hpp"

#include <ufunc/interop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

struct add_fn {
  template <class A>
  UFUNC_HD A operator()(A a, A b) const {
    return static_cast<A>(a + b);
  }
};
struct copy_fn {
  template <class A>
  UFUNC_HD A operator()(A a) const {
    return a;
  }
};

template <class Tg>
constexpr bool is_host() {
  return std::is_same_v<Tg, ufunc::target::host>;
}
template <class Tg>
const char* target_str() {
  return is_host<Tg>() ? "host" : "device";
}

/// Small integers (0..100; bool: odd) as T: exact in every element type.
template <class T>
T from_int(int v) {
  if constexpr (std::is_same_v<T, bool>)
    return v % 2 != 0;
  else
    return ufunc::detail::convert<T>(static_cast<double>(v));
}
template <class T>
double num(const T& v) {
  return ufunc::detail::convert<double>(v);
}

/// `n` random elements in a plain buffer (std::vector<bool> has no data()).
template <class T>
std::unique_ptr<T[]> random_buffer(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(0, 100);
  std::unique_ptr<T[]> b(new T[n]);
  for (std::size_t i = 0; i < n; ++i) b[i] = from_int<T>(d(rng));
  return b;
}

/// The row-major elements of a view, read through the library on its target
/// (a ufunc copy, then to_host).
template <class Tg, class T>
std::vector<double> values_of(const ufunc::array_view<T, Tg>& v) {
  const auto h = ufunc::vectorize<Tg>(copy_fn{})(v).to_host();
  std::vector<double> out;
  for (std::size_t i = 0; i < h.size(); ++i) out.push_back(num(static_cast<std::remove_cv_t<T>>(h[i])));
  return out;
}

/// What element k (row-major over `dims`) of a view with `strides` at `base`
/// reads from the raw buffer: the reference every strided case is held to.
template <class T>
std::vector<double> raw_values(const T* buf, index_t base, const std::vector<index_t>& dims,
                               const std::vector<index_t>& strides) {
  std::vector<double> out;
  for (index_t k = 0; k < test::count_of(dims); ++k) {
    const auto idx = test::unravel(k, dims);
    index_t off = base;
    for (std::size_t d = 0; d < dims.size(); ++d) off += idx[d] * strides[d];
    out.push_back(num(buf[off]));
  }
  return out;
}

}  // namespace

#if defined(UFUNC_HAVE_DLPACK)
namespace {

/// A DLTensor built by hand, with its shape and strides (empty: NULL) beside it.
struct hand_tensor {
  std::vector<std::int64_t> dims, strides;
  DLTensor t{};

  DLTensor& get() {
    t.ndim = static_cast<std::int32_t>(dims.size());
    t.shape = dims.empty() ? nullptr : dims.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    return t;
  }
  DLManagedTensor managed() {
    DLManagedTensor m{};
    m.dl_tensor = get();
    return m;
  }
#  if DLPACK_MAJOR_VERSION >= 1
  DLManagedTensorVersioned versioned(std::uint64_t flags = 0, std::uint32_t major = DLPACK_MAJOR_VERSION) {
    DLManagedTensorVersioned m{};
    m.version.major = major;
    m.version.minor = 0;
    m.flags = flags;
    m.dl_tensor = get();
    return m;
  }
#  endif
};

template <class Tg>
int device_type_of() {
  return is_host<Tg>() ? 1 : 2;  // kDLCPU, kDLCUDA
}

template <class T, class Tg>
hand_tensor tensor_over(const void* data, std::vector<std::int64_t> dims, std::vector<std::int64_t> strides = {},
                        std::uint64_t byte_offset = 0) {
  hand_tensor h;
  h.dims = std::move(dims);
  h.strides = std::move(strides);
  h.t.data = const_cast<void*>(data);
  h.t.device.device_type = static_cast<decltype(h.t.device.device_type)>(device_type_of<Tg>());
  h.t.device.device_id = 0;
  h.t.dtype = ufunc::detail::dlpack::dtype_of<T>();
  h.t.byte_offset = byte_offset;
  return h;
}

/// Counts the calls of a tensor's deleter: install() puts a counting deleter in
/// front of the tensor's own.
template <class M>
struct counted_deleter {
  static inline int calls = 0;
  static inline void (*own)(M*) = nullptr;
  static void call(M* m) {
    ++calls;
    own(m);
  }
  static void install(M* m) {
    calls = 0;
    own = m->deleter;
    m->deleter = &call;
  }
};

/// One element type on one target: a (3,5) tensor over random data, imported
/// through both structs: same pointer, shape, row-major strides, same values.
template <class T, class Tg>
void check_dtype_round_trip(std::uint64_t seed) {
  INFO("type " << ufunc::detail::element_name<T>() << " target " << target_str<Tg>() << " seed " << seed);
  const auto buf = random_buffer<T>(15, seed);
  auto dev = ufunc::asarray<Tg>(buf.get(), shape{3, 5});
  T* p = is_host<Tg>() ? buf.get() : dev.data();
  const auto want = raw_values(buf.get(), 0, {3, 5}, {5, 1});

  auto h = tensor_over<T, Tg>(p, {3, 5});
  const DLManagedTensor m = h.managed();
  const auto v = ufunc::from_dlpack<T, Tg>(&m);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(v)>, ufunc::array_view<T, Tg>>);
  CHECK(v.data() == p);
  CHECK(v.shape() == shape{3, 5});
  CHECK(v.strides() == std::vector<index_t>{5, 1});
  if constexpr (is_host<Tg>()) {
    std::size_t bad = 0;
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 5; ++j) bad += !(num(v(i, j)) == want[static_cast<std::size_t>(i * 5 + j)]);
    CHECK(bad == 0);
  }
  CHECK(values_of(v) == want);
#  if DLPACK_MAJOR_VERSION >= 1
  const DLManagedTensorVersioned mv = h.versioned();
  const auto cv = ufunc::from_dlpack<const T, Tg>(&mv);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(cv)>, ufunc::array_view<const T, Tg>>);
  CHECK(cv.data() == p);
  CHECK(cv.shape() == shape{3, 5});
  CHECK(values_of(cv) == want);
  CHECK(ufunc::from_dlpack<T, Tg>(&mv).data() == p);
#  endif
  const auto tv = ufunc::from_dlpack<T, Tg>(&h.get());  // a bare DLTensor
  CHECK(tv.data() == p);
}

template <class Tg>
void check_every_dtype() {
  test::for_each_type<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                      std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>([](auto t) {
    check_dtype_round_trip<decltype(t), Tg>(test::fresh_seed());
  });
}

struct strided_case {
  std::vector<std::int64_t> dims, strides;  // strides empty: NULL (row-major)
  index_t base;                               // the element byte_offset points at
};

/// byte_offset and strides of every sign: element for element the raw buffer
/// at base + sum(i_d * stride_d), read directly (host) and through a ufunc call
/// and a sum on the imported view (both targets).
template <class T, class Tg>
void check_strided(std::uint64_t seed) {
  INFO("type " << ufunc::detail::element_name<T>() << " target " << target_str<Tg>() << " seed " << seed);
  constexpr std::size_t n = 40;
  const auto buf = random_buffer<T>(n, seed);
  auto dev = ufunc::asarray<Tg>(buf.get(), shape{index_t(n)});
  T* p = is_host<Tg>() ? buf.get() : dev.data();
  const std::vector<strided_case> cases = {
      {{3, 4}, {}, 4},             // row-major from an offset
      {{3, 4}, {1, 3}, 0},         // column-major
      {{3, 4}, {-4, 1}, 8},        // rows reversed
      {{3, 4}, {4, -1}, 3},        // columns reversed
      {{3, 4}, {0, 1}, 2},         // one row broadcast
      {{3, 4}, {1, 0}, 5},         // one column broadcast
      {{2, 3, 2}, {1, -2, 12}, 4},  // rank 3, mixed signs
      {{5}, {-7}, 30},             // 1-D, every 7th element backwards
      {{}, {}, 9},                 // rank 0
      {{2, 0, 3}, {}, 0},          // empty
  };
  for (const auto& c : cases) {
    const std::vector<index_t> dims(c.dims.begin(), c.dims.end());
    const std::vector<index_t> st = c.strides.empty() ? test::row_major(dims)
                                                      : std::vector<index_t>(c.strides.begin(), c.strides.end());
    INFO("shape " << test::dims_str(dims) << " strides " << test::dims_str(st) << " base " << c.base);
    auto h = tensor_over<T, Tg>(p, c.dims, c.strides, static_cast<std::uint64_t>(c.base) * sizeof(T));
    const DLManagedTensor m = h.managed();
    const auto v = ufunc::from_dlpack<T, Tg>(&m);
    CHECK(v.data() == p + c.base);
    CHECK(v.strides() == st);
    const auto want = raw_values(buf.get(), c.base, dims, st);
    if constexpr (is_host<Tg>()) {
      std::size_t bad = 0;
      for (index_t k = 0; k < v.size(); ++k) bad += !(num(v[k]) == want[static_cast<std::size_t>(k)]);
      CHECK(bad == 0);
    }
    CHECK(values_of(v) == want);
    // A ufunc call and a reduction on the imported view, against the reference.
    const auto sum2 = ufunc::vectorize<Tg>(add_fn{})(v, v).to_host();
    REQUIRE(sum2.size() == want.size());
    std::size_t bad = 0;
    double total = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      bad += !(num(sum2[k]) == 2 * want[k]);
      total += want[k];
    }
    CHECK(bad == 0);
    CHECK(test::close(num(ufunc::sum(v)), total, 1e-12, 1e-9));
  }
}

template <class Tg>
void check_exports(std::uint64_t seed) {
  INFO("target " << target_str<Tg>() << " seed " << seed);
  const auto h = test::random_vector<float>(24, seed);
#  if defined(UFUNC_TESTING)
  namespace alloc = ufunc::detail::testing;
  const long long live0 = alloc::live_allocations();
#  endif
  {  // the legacy struct
    auto a = ufunc::asarray<Tg>(h, shape{4, 6});
    float* p = a.data();
    DLManagedTensor* m = ufunc::to_dlpack(std::move(a));
    CHECK(a.data() == nullptr);  // moved into the tensor
    REQUIRE(m != nullptr);
    CHECK(m->dl_tensor.data == p);
    CHECK(static_cast<int>(m->dl_tensor.device.device_type) == device_type_of<Tg>());
#  if defined(UFUNC_BACKEND_CUDA)
    if constexpr (!is_host<Tg>()) {
      int cur = -1;
      REQUIRE(cudaGetDevice(&cur) == cudaSuccess);
      CHECK(m->dl_tensor.device.device_id == cur);
    }
#  endif
    if constexpr (is_host<Tg>()) CHECK(m->dl_tensor.device.device_id == 0);
    CHECK(m->dl_tensor.ndim == 2);
    CHECK(m->dl_tensor.shape[0] == 4);
    CHECK(m->dl_tensor.shape[1] == 6);
    REQUIRE(m->dl_tensor.strides != nullptr);
    CHECK(m->dl_tensor.strides[0] == 6);
    CHECK(m->dl_tensor.strides[1] == 1);
    CHECK(m->dl_tensor.byte_offset == 0);
    CHECK(m->dl_tensor.dtype.code == 2);  // kDLFloat
    CHECK(m->dl_tensor.dtype.bits == 32);
    CHECK(m->dl_tensor.dtype.lanes == 1);
    const auto back = ufunc::from_dlpack<float, Tg>(m);  // a consumer's read
    CHECK(back.data() == p);
    CHECK(values_of(back) == std::vector<double>(h.begin(), h.end()));
#  if defined(UFUNC_TESTING)
    CHECK(alloc::live_allocations() == live0 + 1);  // alive until the deleter
#  endif
    counted_deleter<DLManagedTensor>::install(m);
    m->deleter(m);
    CHECK(counted_deleter<DLManagedTensor>::calls == 1);
#  if defined(UFUNC_TESTING)
    CHECK(alloc::live_allocations() == live0);  // freed
#  endif
  }
#  if DLPACK_MAJOR_VERSION >= 1
  {  // the versioned struct, taken over by a dlpack_view
    auto a = ufunc::asarray<Tg>(h, shape{2, 3, 4});
    float* p = a.data();
    DLManagedTensorVersioned* m = ufunc::to_dlpack_versioned(std::move(a));
    CHECK(m->version.major == DLPACK_MAJOR_VERSION);
    CHECK(m->version.minor == DLPACK_MINOR_VERSION);
    CHECK(m->flags == 0);
    CHECK(m->dl_tensor.ndim == 3);
    CHECK(m->dl_tensor.strides[0] == 12);
    counted_deleter<DLManagedTensorVersioned>::install(m);
    {
      ufunc::dlpack_view<float, Tg> owner(m);
      CHECK(owner.data() == p);
      CHECK(owner.shape() == shape{2, 3, 4});
      CHECK(values_of(owner.view()) == std::vector<double>(h.begin(), h.end()));
      ufunc::dlpack_view<float, Tg> moved(std::move(owner));
      CHECK(owner.data() == nullptr);
      CHECK(moved.data() == p);
      ufunc::dlpack_view<float, Tg> assigned;
      assigned = std::move(moved);
      CHECK(counted_deleter<DLManagedTensorVersioned>::calls == 0);
#    if defined(UFUNC_TESTING)
      CHECK(alloc::live_allocations() == live0 + 1);
#    endif
    }  // three dlpack_views destroyed, one of them holding the tensor
    CHECK(counted_deleter<DLManagedTensorVersioned>::calls == 1);
#    if defined(UFUNC_TESTING)
    CHECK(alloc::live_allocations() == live0);
#    endif
  }
#  endif
  {  // a view, with a shared_ptr owner kept until the deleter
    auto arr = std::make_shared<ufunc::array<float, Tg>>(ufunc::asarray<Tg>(h, shape{4, 6}));
    const std::weak_ptr<ufunc::array<float, Tg>> watch = arr;
    const auto v = arr->view().transposed();  // (6,4), strides (1,6)
    DLManagedTensor* m = ufunc::to_dlpack(v, arr);
    arr.reset();
    CHECK(!watch.expired());
    CHECK(m->dl_tensor.shape[0] == 6);
    CHECK(m->dl_tensor.strides[0] == 1);
    CHECK(m->dl_tensor.strides[1] == 6);
    const auto back = ufunc::from_dlpack<float, Tg>(m);
    CHECK(back.data() == v.data());
    CHECK(values_of(back) == values_of(v));
    counted_deleter<DLManagedTensor>::install(m);
    m->deleter(m);
    CHECK(counted_deleter<DLManagedTensor>::calls == 1);
    CHECK(watch.expired());
  }
#  if DLPACK_MAJOR_VERSION >= 1
  {  // a view of const elements: a read-only versioned tensor; the owner an array moved in
    auto a = ufunc::asarray<Tg>(h, shape{24});
    const ufunc::array_view<const float, Tg> cv = a.view().sliced(0, 1, 24, 2);
    DLManagedTensorVersioned* m = ufunc::to_dlpack_versioned(cv, std::move(a));
    CHECK((m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
    CHECK(m->dl_tensor.strides[0] == 2);
    CHECK(test::contains(test::message_of<ufunc::value_error>([&] { (void)ufunc::from_dlpack<float, Tg>(m); }),
                         "read-only"));
    const auto back = ufunc::from_dlpack<const float, Tg>(m);
    CHECK(back.data() == cv.data());
    std::vector<double> want;
    for (std::size_t i = 1; i < 24; i += 2) want.push_back(h[i]);
    CHECK(values_of(back) == want);
    ufunc::dlpack_view<const float, Tg> owner(m);  // calls the deleter, freeing the array
  }
#  endif
#  if defined(UFUNC_TESTING)
  CHECK(alloc::live_allocations() == live0);
#  endif
}

}  // namespace

TEST_CASE("interop: from_dlpack views every element type in place") {
  test::for_each_target([](auto tg) { check_every_dtype<decltype(tg)>(); });
}

TEST_CASE("interop: from_dlpack applies byte_offset and strides (zero, negative, NULL)") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    check_strided<double, Tg>(test::fresh_seed());
    check_strided<std::int16_t, Tg>(test::fresh_seed());
    check_strided<float, Tg>(test::fresh_seed());
  });
}

TEST_CASE("interop: to_dlpack of arrays and views: one deleter call frees the memory or drops the owner") {
  test::for_each_target([](auto tg) { check_exports<decltype(tg)>(test::fresh_seed()); });
}

TEST_CASE("interop: from_dlpack names what does not match") {
  using H = ufunc::target::host;
  float buf[64] = {};
  auto err = [](auto&& fn) { return test::message_of<ufunc::value_error>(fn); };
  auto msg_for = [&](hand_tensor& h, auto tag) {
    using T = decltype(tag);
    const DLManagedTensor m = h.managed();
    return err([&] { (void)ufunc::from_dlpack<T, H>(&m); });
  };
  {  // dtype: code, bits, lanes
    auto h = tensor_over<float, H>(buf, {4});
    const auto m = msg_for(h, double{});
    CHECK(test::contains(m, "float32"));
    CHECK(test::contains(m, "float64"));
    h.t.dtype.lanes = 4;
    CHECK(test::contains(msg_for(h, float{}), "float32x4"));
    auto b = tensor_over<__nv_bfloat16, H>(buf, {4});
    const auto mb = msg_for(b, __half{});
    CHECK(test::contains(mb, "bfloat16"));
    CHECK(test::contains(mb, "float16"));
    auto u = tensor_over<std::uint8_t, H>(buf, {4});
    const auto mu = msg_for(u, bool{});
    CHECK(test::contains(mu, "uint8"));
    CHECK(test::contains(mu, "bool"));
    auto i = tensor_over<std::int32_t, H>(buf, {4});
    CHECK(test::contains(msg_for(i, std::uint32_t{}), "int32"));
  }
  {  // device
    auto h = tensor_over<float, H>(buf, {4});
    h.t.device.device_type = static_cast<decltype(h.t.device.device_type)>(2);  // kDLCUDA
    const auto m = msg_for(h, float{});
    CHECK(test::contains(m, "kDLCUDA"));
    CHECK(test::contains(m, "target::host"));
    h.t.device.device_type = static_cast<decltype(h.t.device.device_type)>(3);  // kDLCUDAHost: host-readable
    const DLManagedTensor pinned = h.managed();
    CHECK(ufunc::from_dlpack<float, H>(&pinned).data() == buf);
#  if defined(UFUNC_BACKEND_CUDA)
    h.t.device.device_type = static_cast<decltype(h.t.device.device_type)>(1);  // kDLCPU
    const DLManagedTensor cpu = h.managed();
    const auto mc = err([&] { (void)ufunc::from_dlpack<float, ufunc::target::cuda>(&cpu); });
    CHECK(test::contains(mc, "kDLCPU"));
    CHECK(test::contains(mc, "target::cuda"));
#  endif
  }
  {  // rank, shape, data, alignment
    auto h = tensor_over<float, H>(buf, {1, 1, 1, 1, 1, 1, 1, 1, 2});
    const auto m = msg_for(h, float{});
    CHECK(test::contains(m, "rank 9"));
    CHECK(test::contains(m, "maximum rank is 8"));
    auto eight = tensor_over<float, H>(buf, {1, 1, 1, 1, 1, 1, 2, 2});
    const DLManagedTensor m8 = eight.managed();
    CHECK(ufunc::from_dlpack<float, H>(&m8).ndim() == 8);
    auto neg = tensor_over<float, H>(buf, {3, -1});
    CHECK(test::contains(msg_for(neg, float{}), "dimension 1 is negative"));
    auto null = tensor_over<float, H>(nullptr, {3});
    CHECK(test::contains(msg_for(null, float{}), "data pointer is null"));
    auto null_empty = tensor_over<float, H>(nullptr, {0, 3});
    const DLManagedTensor me = null_empty.managed();
    CHECK(ufunc::from_dlpack<float, H>(&me).size() == 0);
    auto odd = tensor_over<float, H>(buf, {3}, {}, 2);
    CHECK(test::contains(msg_for(odd, float{}), "not aligned"));
    CHECK(test::contains(err([] { (void)ufunc::from_dlpack<float, H>(static_cast<const DLManagedTensor*>(nullptr)); }),
                         "null tensor"));
  }
#  if DLPACK_MAJOR_VERSION >= 1
  {  // the versioned struct: read-only and version
    auto h = tensor_over<float, H>(buf, {2, 3});
    const DLManagedTensorVersioned ro = h.versioned(DLPACK_FLAG_BITMASK_READ_ONLY);
    const auto m = err([&] { (void)ufunc::from_dlpack<float, H>(&ro); });
    CHECK(test::contains(m, "read-only"));
    CHECK(test::contains(m, "const"));
    CHECK(ufunc::from_dlpack<const float, H>(&ro).data() == buf);
    const DLManagedTensorVersioned v2 = h.versioned(0, DLPACK_MAJOR_VERSION + 1);
    const auto mv = err([&] { (void)ufunc::from_dlpack<const float, H>(&v2); });
    CHECK(test::contains(mv, "DLPack " + std::to_string(DLPACK_MAJOR_VERSION + 1) + ".0"));
    CHECK(test::contains(mv, "major version " + std::to_string(DLPACK_MAJOR_VERSION)));
    // A dlpack_view that throws has taken nothing: the deleter is not called.
    static int calls = 0;
    calls = 0;
    DLManagedTensorVersioned bad = h.versioned(0, DLPACK_MAJOR_VERSION + 1);
    bad.deleter = [](DLManagedTensorVersioned*) { ++calls; };
    CHECK(test::contains(err([&] { ufunc::dlpack_view<const float, H> v(&bad); }), "DLPack"));
    CHECK(calls == 0);
    bad.version.major = DLPACK_MAJOR_VERSION;
    { ufunc::dlpack_view<const float, H> v(&bad); }
    CHECK(calls == 1);
  }
#  endif
}
#endif  // UFUNC_HAVE_DLPACK

// ---------------------------------------------------------------------------
// mdspan
namespace {

template <class T, class Tg, class M>
void check_mdspan_view(const M& m, const float* buf, index_t base, const std::vector<index_t>& strides) {
  const auto v = ufunc::make_view<Tg>(m);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(v)>, ufunc::array_view<T, Tg>>);
  const std::vector<index_t> dims = {static_cast<index_t>(m.extent(0)), static_cast<index_t>(m.extent(1))};
  CHECK(v.data() == m.data_handle());
  CHECK(v.shape() == test::shape_of(dims));
  CHECK(v.strides() == strides);
  const auto want = raw_values(buf, base, dims, strides);  // buf: the host copy of the memory
  if constexpr (is_host<Tg>()) {
    std::size_t bad = 0;
    for (index_t i = 0; i < dims[0]; ++i)
      for (index_t j = 0; j < dims[1]; ++j) bad += !(v(i, j) == m(i, j));
    CHECK(bad == 0);
  }
  // A ufunc call and a sum on the view, against the raw buffer.
  const auto r = ufunc::vectorize<Tg>(add_fn{})(v, v).to_host();
  REQUIRE(r.size() == want.size());
  std::size_t bad = 0;
  double total = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    bad += !(r[k] == static_cast<T>(2 * want[k]));
    total += want[k];
  }
  CHECK(bad == 0);
  CHECK(test::close(ufunc::sum(v), total, 1e-5, 1e-4));
  // And back: an mdspan of the view's rank, layout_stride, same pointer and strides.
  const auto back = ufunc::to_mdspan<2>(v);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(back)>,
                               cuda::std::mdspan<T, cuda::std::dextents<index_t, 2>, cuda::std::layout_stride>>);
  CHECK(back.data_handle() == m.data_handle());
  CHECK(back.extent(0) == dims[0]);
  CHECK(back.extent(1) == dims[1]);
  CHECK(back.stride(0) == strides[0]);
  CHECK(back.stride(1) == strides[1]);
  if constexpr (is_host<Tg>()) {
    std::size_t bad_back = 0;
    for (index_t i = 0; i < dims[0]; ++i)
      for (index_t j = 0; j < dims[1]; ++j) bad_back += !(back(i, j) == m(i, j));
    CHECK(bad_back == 0);
  }
}

template <class Tg>
void check_mdspans(std::uint64_t seed) {
  INFO("target " << target_str<Tg>() << " seed " << seed);
  namespace cs = cuda::std;
  const auto h = test::random_vector<float>(48, seed);
  auto dev = ufunc::asarray<Tg>(h);
  float* p = is_host<Tg>() ? const_cast<float*>(h.data()) : dev.data();
  {
    INFO("layout_right (3,4)");
    check_mdspan_view<float, Tg>(cs::mdspan<float, cs::dextents<int, 2>, cs::layout_right>(p, 3, 4), h.data(), 0,
                                 {4, 1});
    check_mdspan_view<float, Tg>(cs::mdspan<float, cs::extents<int, 3, 4>>(p + 5), h.data(), 5, {4, 1});
  }
  {
    INFO("layout_left (3,4)");
    check_mdspan_view<float, Tg>(cs::mdspan<float, cs::dextents<std::size_t, 2>, cs::layout_left>(p, 3, 4), h.data(), 0,
                                 {1, 3});
  }
  {
    INFO("layout_stride (3,4) strides (8,2) and (1,5)");
    using E = cs::dextents<long, 2>;
    const cs::layout_stride::mapping<E> m1(E(3, 4), cs::array<long, 2>{8, 2});
    check_mdspan_view<float, Tg>(cs::mdspan<float, E, cs::layout_stride>(p + 1, m1), h.data(), 1, {8, 2});
    const cs::layout_stride::mapping<E> m2(E(3, 4), cs::array<long, 2>{1, 5});
    check_mdspan_view<const float, Tg>(cs::mdspan<const float, E, cs::layout_stride>(p, m2), h.data(), 0, {1, 5});
  }
  {
    INFO("rank 0 and rank 3");
    const auto v0 = ufunc::make_view<Tg>(cs::mdspan<float, cs::extents<int>>(p + 7));
    CHECK(v0.ndim() == 0);
    CHECK(v0.data() == p + 7);
    CHECK(ufunc::to_mdspan<0>(v0).data_handle() == p + 7);
    const auto v3 = ufunc::make_view<Tg>(cs::mdspan<float, cs::dextents<int, 3>, cs::layout_left>(p, 2, 3, 4));
    CHECK(v3.strides() == std::vector<index_t>{1, 2, 6});
    const auto m3 = ufunc::to_mdspan<3>(v3);
    CHECK(m3.stride(2) == 6);
    CHECK(m3.extent(2) == 4);
  }
}

}  // namespace

TEST_CASE("interop: make_view of an mdspan (layout_right, layout_left, layout_stride) and to_mdspan back") {
  test::for_each_target([](auto tg) { check_mdspans<decltype(tg)>(test::fresh_seed()); });
}

TEST_CASE("interop: to_mdspan refuses what layout_stride cannot map") {
  using H = ufunc::target::host;
  float buf[16] = {};
  auto err = [](auto&& fn) { return test::message_of<ufunc::value_error>(fn); };
  const auto v = ufunc::make_view<H>(buf, shape{3, 4});
  const auto mr = err([&] { (void)ufunc::to_mdspan<3>(v); });
  CHECK(test::contains(mr, "rank 2"));
  CHECK(test::contains(mr, "rank 3"));
  CHECK(test::contains(err([&] { (void)ufunc::to_mdspan<2>(v.sliced(0, 2, -4, -1)); }), "positive strides"));
  CHECK(test::contains(err([&] { (void)ufunc::to_mdspan<2>(ufunc::make_view<H>(buf, shape{3, 4}, {0, 1})); }),
                       "stride 0 of dimension 0"));
  CHECK(test::contains(err([&] { (void)ufunc::to_mdspan<2>(ufunc::make_view<H>(buf, shape{3, 3}, {1, 1})); }),
                       "overlap"));
  // A zero or negative stride along an extent of 1 addresses nothing: accepted.
  const auto one = ufunc::to_mdspan<2>(ufunc::make_view<H>(buf, shape{1, 4}, {0, 1}));
  CHECK(one.stride(0) == 1);
  CHECK(one.extent(1) == 4);
  const auto reversed_one = ufunc::to_mdspan<2>(ufunc::make_view<H>(buf, shape{4, 1}, {1, -3}));
  CHECK(reversed_one.stride(0) == 1);
  // Transposed and sliced views are fine.
  const auto t = ufunc::to_mdspan<2>(v.transposed());
  CHECK(t.stride(0) == 1);
  CHECK(t.stride(1) == 4);
  const auto s = ufunc::to_mdspan<2>(v.sliced(1, 0, 4, 2));
  CHECK(s.stride(1) == 2);
  CHECK(s.extent(1) == 2);
}

#if UFUNC_HAVE_THRUST_VECTORS
namespace {

/// Thrust vectors of fresh random floats, used as call arguments and through
/// make_view, against loops over host copies of the same data.
template <class Vec>
void check_thrust_vectors(std::uint64_t seed) {
  using Tg = typename decltype(ufunc::make_view(std::declval<Vec&>()))::target_type;
  INFO("seed " << seed << ", target " << target_str<Tg>());
  std::mt19937_64 rng(seed);
  const std::size_t n = 1 + rng() % 20000;
  const std::vector<float> hx = test::random_vector<float>(n, rng()), hy = test::random_vector<float>(n, rng());
  Vec x(hx.begin(), hx.end()), y(hy.begin(), hy.end());

  // The view is the vector's memory, 1-d.
  const auto vx = ufunc::make_view(x);
  CHECK(vx.data() == thrust::raw_pointer_cast(x.data()));
  CHECK(vx.shape() == shape{static_cast<index_t>(n)});
  const Vec& cx = x;
  const auto cvx = ufunc::make_view(cx);
  static_assert(std::is_const_v<typename decltype(cvx)::element_type>);
  CHECK(cvx.data() == vx.data());

  // A call taking vectors (one const), into a new array and into a vector.
  const auto add = ufunc::vectorize<Tg>(add_fn{}, "add");
  const std::vector<float> r = add(cx, y).to_host();
  REQUIRE(r.size() == n);
  Vec z(n, -1.0f);
  add(x, y, ufunc::out(z));
  ufunc::stream_ref().synchronize();
  const thrust::host_vector<float> zh = z;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += r[i] != hx[i] + hy[i] || zh[i] != hx[i] + hy[i];
  CHECK(bad == 0);

  // A lazy expression over vectors: (x + y) + x, one pass.
  const std::vector<float> e = ufunc::evaluate(add.lazy(add.lazy(x, y), x)).to_host();
  bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += e[i] != (hx[i] + hy[i]) + hx[i];
  CHECK(bad == 0);

  // Reductions: ufunc::sum, with an axis, and the ufunc method, within the
  // documented bound (log2 N + 32) u sum|x| of the exact sum.
  double exact = 0, mag = 0;
  for (float v : hx) exact += v, mag += std::abs(v);
  const double bound = (std::log2(double(n)) + 32) * 0x1p-24 * mag;
  CHECK(std::abs(double(ufunc::sum(x)) - exact) <= bound);
  CHECK(std::abs(double(ufunc::sum(cx, ufunc::axis(0)).to_host()[0]) - exact) <= bound);
  CHECK(std::abs(double(add.reduce(x).to_host()[0]) - exact) <= bound);

  // outer of two short vectors, and transpose (a copy) of one.
  const std::size_t m = std::min<std::size_t>(n, 40);
  Vec xs(hx.begin(), hx.begin() + static_cast<std::ptrdiff_t>(m));
  const std::vector<float> o = add.outer(xs, xs).to_host();
  bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j) bad += o[i * m + j] != hx[i] + hx[j];
  CHECK(bad == 0);
  CHECK(ufunc::transpose(xs).to_host() == std::vector<float>(hx.begin(), hx.begin() + static_cast<std::ptrdiff_t>(m)));
}

}  // namespace

TEST_CASE("interop: Thrust device_vector and host_vector as views and as call arguments") {
  check_thrust_vectors<thrust::host_vector<float>>(test::fresh_seed());
  check_thrust_vectors<thrust::device_vector<float>>(test::fresh_seed());
  // An empty vector is an empty view.
  thrust::device_vector<float> none;
  CHECK(ufunc::make_view(none).size() == 0);
  CHECK(ufunc::sum(none) == 0.0f);
}
#endif
