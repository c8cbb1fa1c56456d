// ufunc_example: ufunc functions, written as C++ lambdas, called from Python.
//
// A nanobind extension module. Every function takes any object that speaks
// DLPack (__dlpack__/__dlpack_device__, or the buffer protocol): NumPy arrays
// (host memory), PyTorch tensors and CuPy arrays (CUDA memory, CUDA backend).
// Nothing is copied on the way in (nanobind's ndarray gives the tensor's pointer,
// shape and element strides, which become a ufunc::array_view) nor on the way out
// (the result is a ufunc::array whose ownership passes to Python through a capsule:
// the returned array's memory is the ufunc array's). The result is an object of
// the first input's framework: numpy in, numpy out; torch in, torch out; CuPy and
// JAX alike; anything else gets nanobind's framework-neutral ndarray, which speaks
// DLPack (np.from_dlpack / torch.from_dlpack take it without a copy).
//
//   gaussian_pdf(x, mean=0.0, sigma=1.0, out=None, stream=None)  elementwise, any strides
//   weighted_exp(x, y, w, a=0.0, b=0.0, out=None, stream=None)   exp(-((x-a)^2+(y-b)^2)/2)*w,
//                                                                 a lazy expression: one pass
//   kernel_sum(points, sources, weights, sigma=1.0, stream=None) sum_j exp(-|p_i-s_j|^2/2s^2) w_j
//   sum(x, axis=None, stream=None)                                float32 sum, all or one axis
//
// Inputs must be float32 (no silent conversion: another dtype raises TypeError).
// Errors: ufunc::shape_error and value_error raise ValueError, type_error raises
// TypeError, out_of_memory raises MemoryError.
//
// Where the work runs: inputs in host memory (NumPy; kDLCPU, kDLCUDAHost) run on
// the host's cores (ufunc::target::host, in every build); inputs in CUDA memory
// (kDLCUDA, kDLCUDAManaged) run as CUDA kernels on the tensor's device, in a
// module built with the CUDA backend (a host-backend build refuses them).
//
// CUDA streams (DLPack's stream protocol, as far as a function call can follow it):
// the work and the result's allocation are enqueued on the caller's stream, and
// nothing waits for them. That stream is `stream=` when given (an integer as in
// __dlpack__(stream=...): 1 the legacy default stream, 2 the per-thread default
// stream, else a cudaStream_t; or an object with .cuda_stream (torch.cuda.Stream)
// or .ptr (cupy.cuda.Stream)); else, for torch tensors, torch.cuda.current_stream()
// of the tensor's device, for CuPy arrays cupy.cuda.get_current_stream(); for other
// frameworks the legacy default stream, which is then synchronised before the call
// returns (we cannot know which stream their next operation uses). The inputs are
// read on that stream: work the producer queued on it comes first (nanobind calls
// __dlpack__() without a stream, so the producer inserts no wait of its own). The
// result is freed, when Python drops it, stream-ordered on the stream it was made
// on; a caller using it on another stream synchronises as with any tensor of its
// framework (torch: Tensor.record_stream).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

// A named namespace: nvcc's extended lambdas may not live in an anonymous one's functions.
namespace ufunc_py {

using P3 = cuda::std::array<float, 3>;
constexpr float inv_sqrt_2pi = 0.3989422804014327f;

// ---------------------------------------------------------------------------
// Where the result's framework comes from: the first input's type's module.
enum class framework { numpy, pytorch, cupy, jax, other };

framework framework_of(nb::handle obj) {
  nb::object mod = nb::getattr(obj.type(), "__module__", nb::none());
  if (!nb::isinstance<nb::str>(mod)) return framework::other;
  const std::string m = nb::str(mod).c_str();
  auto in = [&](const char* pkg) {
    const std::string p(pkg);
    return m == p || m.rfind(p + ".", 0) == 0;
  };
  if (in("numpy")) return framework::numpy;
  if (in("torch")) return framework::pytorch;
  if (in("cupy")) return framework::cupy;
  if (in("jax") || in("jaxlib")) return framework::jax;
  return framework::other;
}

// Live results owned by Python, and the address of the last one made: the tests
// check that results are freed when Python drops them and are not copied.
std::atomic<long> live_results{0};
std::atomic<std::uintptr_t> last_result{0};

// ---------------------------------------------------------------------------
// In: any DLPack object as an nb::ndarray (no conversion), checked, as a view.
std::string dtype_name(nb::dlpack::dtype d) {
  const char* kinds[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  std::string k = d.code < 7 ? kinds[d.code] : "code" + std::to_string(d.code);
  return k + std::to_string(d.bits) + (d.lanes != 1 ? "x" + std::to_string(d.lanes) : "");
}

bool device_memory(int device_type) {
  return device_type == nb::device::cuda::value || device_type == nb::device::cuda_managed::value;
}

/// PyTorch's types, looked up the first time a torch tensor is passed (this
/// module never imports torch itself); deliberately leaked, as Python objects
/// must not be released after the interpreter is gone.
struct torch_types {
  nb::object tensor, float32, strided;
};
const torch_types& torch_types_once() {
  static const torch_types* t = [] {
    nb::object torch = nb::module_::import_("torch");
    return new torch_types{torch.attr("Tensor"), torch.attr("float32"), torch.attr("strided")};
  }();
  return *t;
}

/// A plain float32 torch.Tensor (strided, not requiring grad, on the CPU or a
/// CUDA device) as an array without asking it for a DLPack capsule: the same
/// facts (pointer, shape, element strides, device), read from the tensor, which
/// the array holds a reference to. torch's __dlpack__ costs about 2.7 us a call
/// from Python (H200 host, torch 2.11), two thirds of a small ufunc call's own
/// host time. Anything else (other dtypes, subclasses, tensors requiring grad)
/// goes through nanobind's DLPack import and its checks and messages.
template <class Arr>
std::optional<Arr> import_torch_directly(nb::handle obj) {
  if (framework_of(obj) != framework::pytorch) return std::nullopt;
  const torch_types& t = torch_types_once();
  if (!obj.type().is(t.tensor) || !obj.attr("dtype").is(t.float32) || !obj.attr("layout").is(t.strided) ||
      nb::cast<bool>(obj.attr("requires_grad")))
    return std::nullopt;
  const nb::object dev = obj.attr("device");
  const std::string kind = nb::str(dev.attr("type")).c_str();
  int device_type = 0, device_id = 0;
  if (kind == "cpu") {
    device_type = nb::device::cpu::value;
  } else if (kind == "cuda") {
    device_type = nb::device::cuda::value;
    device_id = nb::cast<int>(dev.attr("index"));
  } else {
    return std::nullopt;
  }
  const nb::tuple shp = nb::borrow<nb::tuple>(obj.attr("shape"));
  const nb::tuple st = nb::borrow<nb::tuple>(obj.attr("stride")());
  const std::size_t nd = nb::len(shp);
  if (nd > ufunc::shape::max_rank || nb::len(st) != nd) return std::nullopt;
  std::size_t dims[ufunc::shape::max_rank];
  std::int64_t strides[ufunc::shape::max_rank];
  for (std::size_t d = 0; d < nd; ++d) {
    dims[d] = nb::cast<std::size_t>(shp[d]);
    strides[d] = nb::cast<std::int64_t>(st[d]);
  }
  const auto ptr = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(obj.attr("data_ptr")()));
  return Arr(ptr, nd, dims, obj, strides, nb::dtype<float>(), device_type, device_id);
}

/// `obj` as a float32 array (Arr: nb::ndarray<nb::ro> for inputs, nb::ndarray<>
/// for a writable out), or TypeError naming the function, the argument and why.
template <class Arr>
Arr import_float32(nb::handle obj, const char* fn, const char* name) {
  Arr a;
  constexpr bool writable = !Arr::ReadOnly;
  if (auto direct = import_torch_directly<Arr>(obj)) {
    a = std::move(*direct);
  } else if (!nb::try_cast(obj, a, /*convert=*/false)) {
    throw nb::type_error((std::string(fn) + "(): " + name + " must be " + (writable ? "a writable " : "an ") +
                          "array that speaks DLPack (__dlpack__) or the buffer protocol; got " +
                          nb::str(nb::handle(obj.type()).attr("__name__")).c_str() +
                          (writable ? " (or a read-only array)" : ""))
                             .c_str());
  }
  if (a.dtype() != nb::dtype<float>())
    throw nb::type_error((std::string(fn) + "(): " + name + " has dtype " + dtype_name(a.dtype()) +
                          ", float32 is required (convert it first: x.astype(numpy.float32), x.float())")
                             .c_str());
  const int dt = a.device_type();
  const bool host = dt == nb::device::cpu::value || dt == nb::device::cuda_host::value;
  if (!host && !(ufunc::cuda_backend && device_memory(dt)))
    throw nb::type_error((std::string(fn) + "(): " + name + " is in memory of DLPack device type " +
                          std::to_string(dt) + ", which this module (" +
                          (ufunc::cuda_backend ? "CUDA" : "host") + " backend) cannot address" +
                          (ufunc::cuda_backend ? "" : "; rebuild it with -DUFUNC_BACKEND=cuda for CUDA tensors"))
                             .c_str());
  return a;
}

/// Where a call's operands live: all in host memory or all on one CUDA device.
struct placement {
  bool device = false;
  int device_id = 0;
};

template <class Arr>
void place(placement& p, bool& first, const Arr& a, const char* fn, const char* name) {
  const placement here{device_memory(a.device_type()), device_memory(a.device_type()) ? a.device_id() : 0};
  if (first) {
    p = here;
    first = false;
  } else if (here.device != p.device || here.device_id != p.device_id) {
    throw nb::type_error((std::string(fn) + "(): " + name + " is on " +
                          (here.device ? "CUDA device " + std::to_string(here.device_id) : std::string("the host")) +
                          ", the first argument on " +
                          (p.device ? "CUDA device " + std::to_string(p.device_id) : std::string("the host")) +
                          ": all arrays of a call must be in one place")
                             .c_str());
  }
}

/// The ufunc view of an nb::ndarray: its pointer, shape and element strides.
template <class Target, class T, class Arr>
ufunc::array_view<T, Target> view_of(const Arr& a) {
  std::vector<ufunc::index_t> dims(a.ndim()), strides(a.ndim());
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    dims[d] = static_cast<ufunc::index_t>(a.shape(d));
    strides[d] = static_cast<ufunc::index_t>(a.stride(d));
  }
  return ufunc::make_view<Target>(static_cast<T*>(a.data()), ufunc::shape(dims), strides);
}

// ---------------------------------------------------------------------------
// Out: the ufunc::array handed to Python (no copy), in the caller's framework.
template <class Target>
nb::object to_python(ufunc::array<float, Target>&& a, framework fw, int device_id) {
  using A = ufunc::array<float, Target>;
  auto owned = std::make_unique<A>(std::move(a));
  float* data = owned->data();
  std::vector<std::size_t> shp(static_cast<std::size_t>(owned->ndim()));
  for (std::size_t d = 0; d < shp.size(); ++d) shp[d] = static_cast<std::size_t>(owned->shape()[static_cast<int>(d)]);
  // The capsule owns the array from here: its deleter runs when the last Python
  // object using the memory goes (a stream-ordered free on the CUDA backend).
  nb::capsule owner(owned.get(), [](void* p) noexcept {
    delete static_cast<A*>(p);
    --live_results;
  });
  owned.release();
  ++live_results;
  last_result = reinterpret_cast<std::uintptr_t>(data);
  constexpr bool on_device = !std::is_same_v<Target, ufunc::target::host>;
  const int dev_type = on_device ? nb::device::cuda::value : nb::device::cpu::value;
  const std::size_t one = 1;  // a valid shape pointer for 0-d results
  const std::size_t* sp = shp.empty() ? &one : shp.data();
  auto make = [&](auto tag) -> nb::object {
    using FW = decltype(tag);
    nb::ndarray<FW, float> r(data, shp.size(), sp, owner, nullptr, nb::dtype<float>(), dev_type,
                             on_device ? device_id : 0);
    return nb::cast(r, nb::rv_policy::reference);  // the owner keeps the memory: no copy
  };
  switch (fw) {
    case framework::numpy: return make(nb::numpy{});
    case framework::pytorch: return make(nb::pytorch{});
    case framework::cupy: return make(nb::cupy{});
    case framework::jax: return make(nb::jax{});
    default: return make(nb::array_api{});
  }
}

// ---------------------------------------------------------------------------
// Streams and devices (CUDA backend only; the host backend is synchronous).
#if defined(UFUNC_BACKEND_CUDA)
cudaStream_t stream_from_python(nb::handle s) {
  if (nb::hasattr(s, "cuda_stream")) s = s.attr("cuda_stream");  // torch.cuda.Stream
  else if (nb::hasattr(s, "ptr")) s = s.attr("ptr");              // cupy.cuda.Stream
  const auto v = nb::cast<std::uintptr_t>(s);
  if (v == 1) return nullptr;                                      // DLPack: the legacy default stream
  if (v == 2) return cudaStreamPerThread;                          // DLPack: the per-thread default stream
  return reinterpret_cast<cudaStream_t>(v);
}

/// The stream the caller's framework would use now, if it tells (see the top).
std::optional<cudaStream_t> caller_stream(framework fw, nb::handle stream, int device_id) {
  if (!stream.is_none()) return stream_from_python(stream);
  if (fw == framework::pytorch) {
    // torch.cuda.current_stream(d).cuda_stream without making a Stream object:
    // torch._C._cuda_getCurrentRawStream (what torch's own extensions call) where
    // this torch has it. Looked up once; deliberately leaked (no destructor runs
    // after the interpreter is gone).
    static nb::object* raw = [] {
      nb::object c = nb::module_::import_("torch").attr("_C");
      return new nb::object(nb::getattr(c, "_cuda_getCurrentRawStream", nb::none()));
    }();
    if (!raw->is_none()) return stream_from_python((*raw)(device_id));
    nb::object torch = nb::module_::import_("torch");
    return stream_from_python(torch.attr("cuda").attr("current_stream")(device_id));
  }
  if (fw == framework::cupy) {
    nb::object cupy = nb::module_::import_("cupy");
    return stream_from_python(cupy.attr("cuda").attr("get_current_stream")());
  }
  return std::nullopt;
}

/// Makes the tensors' device current for a call (ufunc runs on the current one).
class device_scope {
 public:
  explicit device_scope(int dev) {
    if (cudaGetDevice(&prev_) != cudaSuccess) throw std::runtime_error("ufunc_example: cudaGetDevice failed");
    if (prev_ != dev && cudaSetDevice(dev) != cudaSuccess)
      throw std::runtime_error("ufunc_example: cudaSetDevice(" + std::to_string(dev) + ") failed");
  }
  ~device_scope() { (void)cudaSetDevice(prev_); }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int prev_ = 0;
};
#endif

/// Runs `body(target tag, stream)` where the operands live: on the host's cores
/// for host memory, on their CUDA device and the caller's stream for CUDA memory.
template <class Body>
nb::object run(const placement& p, framework fw, nb::handle stream, Body&& body) {
  if (!p.device) return body(ufunc::target::host{}, ufunc::stream_ref{});
#if defined(UFUNC_BACKEND_CUDA)
  const std::optional<cudaStream_t> s = caller_stream(fw, stream, p.device_id);
  device_scope scope(p.device_id);
  nb::object r = body(ufunc::target::device{}, ufunc::stream_ref(s.value_or(nullptr)));
  if (!s) ufunc::stream_ref().synchronize();  // a framework whose stream we do not know
  return r;
#else
  (void)fw, (void)stream;
  throw nb::type_error("ufunc_example: CUDA memory needs a CUDA-backend build");  // refused at import already
#endif
}

// ---------------------------------------------------------------------------
// The functions. Each is a scalar lambda lifted by ufunc; Target is where the
// operands live (ufunc::target::host, or the CUDA target on the CUDA backend).

/// The ufunc behind gaussian_pdf (and its C++ timing twin, _time_gaussian_pdf);
/// a function object, as a function returning the ufunc cannot hold an extended
/// lambda.
struct pdf_fn {
  UFUNC_HD float operator()(float v, float m, float s) const {
    const float z = (v - m) / s;
    return ufunc::math::exp(-0.5f * z * z) * (inv_sqrt_2pi / s);
  }
};
template <class Target>
const ufunc::vectorized<Target, pdf_fn>& pdf_ufunc() {
  static const auto pdf = ufunc::vectorize<Target>(pdf_fn{}, "gaussian_pdf");
  return pdf;
}

template <class Target>
nb::object gaussian_pdf_on(const nb::ndarray<nb::ro>& x, float mean, float sigma, nb::handle out,
                           const nb::ndarray<>* o, framework fw, int dev, ufunc::stream_ref st) {
  const auto& pdf = pdf_ufunc<Target>();
  const auto xv = view_of<Target, const float>(x);
  if (o) {
    const auto ov = view_of<Target, float>(*o);
    {
      nb::gil_scoped_release unlocked;
      pdf(xv, mean, sigma, ufunc::out(ov), st);
    }
    return nb::borrow(out);
  }
  ufunc::array<float, Target> y;
  {
    nb::gil_scoped_release unlocked;
    y = pdf(xv, mean, sigma, st);
  }
  return to_python(std::move(y), fw, dev);
}

template <class Target>
nb::object weighted_exp_on(const nb::ndarray<nb::ro>& x, const nb::ndarray<nb::ro>& y, const nb::ndarray<nb::ro>& w,
                           float a, float b, nb::handle out, framework fw, int dev, ufunc::stream_ref st) {
  static const auto sq_diff = ufunc::vectorize<Target>(
      [] UFUNC_HD (float v, float c) {
        const float d = v - c;
        return d * d;
      },
      "sq_diff");
  static const auto damp = ufunc::vectorize<Target>(
      [] UFUNC_HD (float r2, float wt) { return ufunc::math::exp(-0.5f * r2) * wt; }, "weighted_exp");
  const auto xv = view_of<Target, const float>(x), yv = view_of<Target, const float>(y),
             wv = view_of<Target, const float>(w);
  // Nothing runs here: the tree is built (and its shapes broadcast and checked).
  const auto e = damp.lazy(sq_diff.lazy(xv, a) + sq_diff.lazy(yv, b), wv);
  if (!out.is_none()) {
    const auto o = import_float32<nb::ndarray<>>(out, "weighted_exp", "out");
    const auto ov = view_of<Target, float>(o);
    {
      nb::gil_scoped_release unlocked;
      ufunc::evaluate(e, ufunc::out(ov), st);  // one kernel / one pass for the whole tree
    }
    return nb::borrow(out);
  }
  ufunc::array<float, Target> r;
  {
    nb::gil_scoped_release unlocked;
    r = ufunc::evaluate(e, st);
  }
  return to_python(std::move(r), fw, dev);
}

template <class Target>
nb::object kernel_sum_on(const nb::ndarray<nb::ro>& p, const nb::ndarray<nb::ro>& s, const nb::ndarray<nb::ro>& w,
                         float sigma, framework fw, int dev, ufunc::stream_ref st) {
  auto shp = [](const nb::ndarray<nb::ro>& a) {
    std::string r = "(";
    for (std::size_t d = 0; d < a.ndim(); ++d) r += (d ? "," : "") + std::to_string(a.shape(d));
    return r + (a.ndim() == 1 ? ",)" : ")");
  };
  if (p.ndim() != 2 || p.shape(1) != 3 || s.ndim() != 2 || s.shape(1) != 3 || w.ndim() != 1 ||
      w.shape(0) != s.shape(0))
    throw ufunc::shape_error("kernel_sum(): points must be (n,3), sources (m,3) and weights (m,); got " + shp(p) +
                             ", " + shp(s) + " and " + shp(w));
  if (!(sigma > 0.0f)) throw ufunc::value_error("kernel_sum(): sigma must be positive, got " + std::to_string(sigma));
  const auto n = static_cast<ufunc::index_t>(p.shape(0)), m = static_cast<ufunc::index_t>(s.shape(0));
  // points as (n,1,3) and sources as (1,m,3), weights as (1,m): broadcast to all
  // n x m pairs, reduced over axis 1 without the n x m matrix (zero strides).
  const auto X = ufunc::make_view<Target>(static_cast<const float*>(p.data()), ufunc::shape{n, 1, 3},
                                          {static_cast<ufunc::index_t>(p.stride(0)), 0,
                                           static_cast<ufunc::index_t>(p.stride(1))});
  const auto Y = ufunc::make_view<Target>(static_cast<const float*>(s.data()), ufunc::shape{1, m, 3},
                                          {0, static_cast<ufunc::index_t>(s.stride(0)),
                                           static_cast<ufunc::index_t>(s.stride(1))});
  const auto B = ufunc::make_view<Target>(static_cast<const float*>(w.data()), ufunc::shape{1, m},
                                          {0, static_cast<ufunc::index_t>(w.stride(0))});
  const float scale = -0.5f / (sigma * sigma);
  const auto k = ufunc::map_reduce(
      [scale] UFUNC_HD (const P3& x, const P3& y, float b) {
        const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
        return ufunc::math::exp(scale * (dx * dx + dy * dy + dz * dz)) * b;
      },
      ufunc::plus{});
  ufunc::array<float, Target> r;
  {
    nb::gil_scoped_release unlocked;
    r = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), st);
  }
  return to_python(std::move(r), fw, dev);
}

template <class Target>
nb::object sum_on(const nb::ndarray<nb::ro>& x, std::optional<int> axis, framework fw, int dev,
                  ufunc::stream_ref st) {
  const auto xv = view_of<Target, const float>(x);
  ufunc::array<float, Target> r;
  {
    nb::gil_scoped_release unlocked;
    if (axis) {
      r = ufunc::sum(xv, ufunc::axis(*axis), st);
    } else {  // a 0-d result, filled without waiting (NumPy returns a scalar; we return a 0-d array)
      r = ufunc::array<float, Target>(ufunc::shape(std::vector<ufunc::index_t>{}), st);
      ufunc::sum(xv, ufunc::out(r), st);
    }
  }
  return to_python(std::move(r), fw, dev);
}

}  // namespace ufunc_py

NB_MODULE(ufunc_example, m) {
  using namespace ufunc_py;
  m.doc() = "ufunc functions written as C++ lambdas, called on any DLPack array (zero-copy both ways)";
  m.attr("backend") = ufunc::cuda_backend ? "cuda" : "host";

  // ufunc's exceptions as Python's (nanobind maps std::invalid_argument and
  // std::bad_alloc alike by default; this states it and adds type_error).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ufunc::type_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ufunc::shape_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ufunc::value_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ufunc::out_of_memory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    }
  });

  m.def(
      "gaussian_pdf",
      [](nb::handle x, float mean, float sigma, nb::handle out, nb::handle stream) {
        const auto xa = import_float32<nb::ndarray<nb::ro>>(x, "gaussian_pdf", "x");
        placement p;
        bool first = true;
        place(p, first, xa, "gaussian_pdf", "x");
        std::optional<nb::ndarray<>> oa;  // imported once (each import asks the object for a new capsule)
        if (!out.is_none()) {
          oa = import_float32<nb::ndarray<>>(out, "gaussian_pdf", "out");
          place(p, first, *oa, "gaussian_pdf", "out");
        }
        const framework fw = framework_of(x);
        return run(p, fw, stream, [&](auto tgt, ufunc::stream_ref st) {
          return gaussian_pdf_on<decltype(tgt)>(xa, mean, sigma, out, oa ? &*oa : nullptr, fw, p.device_id, st);
        });
      },
      "x"_a, "mean"_a = 0.0f, "sigma"_a = 1.0f, "out"_a = nb::none(), "stream"_a = nb::none(),
      "The normal density exp(-((x-mean)/sigma)^2/2) / (sigma sqrt(2 pi)), elementwise, float32.\n"
      "x: any float32 DLPack array (any strides). out: a float32 array of x's shape (or one x broadcasts\n"
      "to), written in place and returned; else a new array of x's framework.");

  m.def(
      "weighted_exp",
      [](nb::handle x, nb::handle y, nb::handle w, float a, float b, nb::handle out, nb::handle stream) {
        const auto xa = import_float32<nb::ndarray<nb::ro>>(x, "weighted_exp", "x");
        const auto ya = import_float32<nb::ndarray<nb::ro>>(y, "weighted_exp", "y");
        const auto wa = import_float32<nb::ndarray<nb::ro>>(w, "weighted_exp", "w");
        placement p;
        bool first = true;
        place(p, first, xa, "weighted_exp", "x");
        place(p, first, ya, "weighted_exp", "y");
        place(p, first, wa, "weighted_exp", "w");
        if (!out.is_none()) place(p, first, import_float32<nb::ndarray<>>(out, "weighted_exp", "out"), "weighted_exp", "out");
        const framework fw = framework_of(x);
        return run(p, fw, stream, [&](auto tgt, ufunc::stream_ref st) {
          return weighted_exp_on<decltype(tgt)>(xa, ya, wa, a, b, out, fw, p.device_id, st);
        });
      },
      "x"_a, "y"_a, "w"_a, "a"_a = 0.0f, "b"_a = 0.0f, "out"_a = nb::none(), "stream"_a = nb::none(),
      "exp(-((x-a)^2 + (y-b)^2)/2) * w, broadcast as NumPy does, as one fused lazy expression.");

  m.def(
      "kernel_sum",
      [](nb::handle points, nb::handle sources, nb::handle weights, float sigma, nb::handle stream) {
        const auto pa = import_float32<nb::ndarray<nb::ro>>(points, "kernel_sum", "points");
        const auto sa = import_float32<nb::ndarray<nb::ro>>(sources, "kernel_sum", "sources");
        const auto wa = import_float32<nb::ndarray<nb::ro>>(weights, "kernel_sum", "weights");
        placement p;
        bool first = true;
        place(p, first, pa, "kernel_sum", "points");
        place(p, first, sa, "kernel_sum", "sources");
        place(p, first, wa, "kernel_sum", "weights");
        const framework fw = framework_of(points);
        return run(p, fw, stream, [&](auto tgt, ufunc::stream_ref st) {
          return kernel_sum_on<decltype(tgt)>(pa, sa, wa, sigma, fw, p.device_id, st);
        });
      },
      "points"_a, "sources"_a, "weights"_a, "sigma"_a = 1.0f, "stream"_a = nb::none(),
      "Gaussian kernel sum: r[i] = sum_j exp(-|points[i]-sources[j]|^2 / (2 sigma^2)) * weights[j].\n"
      "points (n,3), sources (m,3), weights (m,), float32, any strides; returns (n,). No n x m matrix.");

  m.def(
      "sum",
      [](nb::handle x, std::optional<int> axis, nb::handle stream) {
        const auto xa = import_float32<nb::ndarray<nb::ro>>(x, "sum", "x");
        placement p;
        bool first = true;
        place(p, first, xa, "sum", "x");
        const framework fw = framework_of(x);
        return run(p, fw, stream, [&](auto tgt, ufunc::stream_ref st) {
          return sum_on<decltype(tgt)>(xa, axis, fw, p.device_id, st);
        });
      },
      "x"_a, "axis"_a = nb::none(), "stream"_a = nb::none(),
      "float32 sum (pairwise: error like log2(N) ulps). axis=None: a 0-d array; axis=k (negative counts\n"
      "from the end): the array without axis k.");

  // For bench_python.py: the gaussian_pdf call into `out`, made `reps` times in a
  // row from C++ on the stream gaussian_pdf would use; seconds per call. Device
  // time (CUDA events around the batch; the steady clock on the host backend),
  // or with host=True the calling thread's time per call (what the call costs
  // the host without Python).
  m.def(
      "_time_gaussian_pdf",
      [](nb::handle x, nb::handle out, int reps, bool host) {
        const auto xa = import_float32<nb::ndarray<nb::ro>>(x, "_time_gaussian_pdf", "x");
        const auto oa = import_float32<nb::ndarray<>>(out, "_time_gaussian_pdf", "out");
        placement p;
        bool first = true;
        place(p, first, xa, "_time_gaussian_pdf", "x");
        place(p, first, oa, "_time_gaussian_pdf", "out");
        double t = 0;
        run(p, framework_of(x), nb::none(), [&](auto tgt, ufunc::stream_ref st) {
          using Target = decltype(tgt);
          const auto& pdf = pdf_ufunc<Target>();
          const auto xv = view_of<Target, const float>(xa);
          const auto ov = view_of<Target, float>(oa);
          {
            nb::gil_scoped_release unlocked;
            constexpr bool device = !std::is_same_v<Target, ufunc::target::host>;
            if (host || !device) {
              st.synchronize();
              const auto a = std::chrono::steady_clock::now();
              for (int i = 0; i < reps; ++i) pdf(xv, 0.0f, 1.0f, ufunc::out(ov), st);
              t = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count() / reps;
              st.synchronize();
            } else {
#if defined(UFUNC_BACKEND_CUDA)
              ufunc::event a, b;
              a.record(st);
              for (int i = 0; i < reps; ++i) pdf(xv, 0.0f, 1.0f, ufunc::out(ov), st);
              b.record(st);
              b.synchronize();
              t = ufunc::elapsed_ms(a, b) * 1e-3 / reps;
#endif
            }
          }
          return nb::none();
        });
        return t;
      },
      "x"_a, "out"_a, "reps"_a, "host"_a = false);

#if defined(UFUNC_BACKEND_CUDA)
  // For the tests: the device's default memory pool's release threshold and
  // reserved bytes (ufunc must leave that pool, which other libraries share, alone).
  m.def("_default_pool_state", [](int device) {
    cudaMemPool_t pool;
    std::uint64_t threshold = 0, reserved = 0;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess)
      throw std::runtime_error("_default_pool_state: the CUDA runtime refused");
    return std::make_pair(threshold, reserved);
  });
#endif

  // For the tests: how many results Python holds, and the address of the last.
  m.def("_live_results", [] { return live_results.load(); });
  m.def("_last_result_address", [] { return last_result.load(); });
}
