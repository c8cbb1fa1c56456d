// Planning for matmul and transpose, shared by every backend: the problem
// descriptions the kernels receive (gemm_args, copy_args), and the host-only
// logic that builds them from views: numpy.matmul's shape rules, batch
// broadcasting with merged batch dims, and the reduction of a strided N-d copy to
// a batched 2-D copy whose two dims are the source's and the destination's
// fastest. Nothing here needs nvcc; tests exercise it on the host backend.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../config.hpp"
#include "../error.hpp"
#include "../linalg_variants.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "layout.hpp"

namespace ufunc::detail {

// ---------------------------------------------------------------------------
// Batch index -> per-operand element offsets.

/// The batch dims of a batched problem, merged and with size-1 dims dropped,
/// and each operand's element stride along them (0 where it broadcasts).
/// `offsets(b)` maps batch index b (row-major over `dims`) to an offset per
/// operand; kernels call it once per block, not per element.
template <int NOPS>
struct batch_plan {
  int ndim = 0;
  index_t count = 1;
  index_t dims[max_rank] = {};
  index_t strides[NOPS][max_rank] = {};

  UFUNC_HD void offsets(index_t b, index_t (&off)[NOPS]) const {
    for (int k = 0; k < NOPS; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const index_t q = b / dims[d];
      const index_t r = b - q * dims[d];
      for (int k = 0; k < NOPS; ++k) off[k] += r * strides[k][d];
      b = q;
    }
  }
};

/// Builds a batch plan over `dims` (the broadcast batch shape) from per-operand
/// layouts (shape and strides of each operand's own batch dims, right-aligned).
template <int NOPS>
batch_plan<NOPS> make_batch_plan(const shape& dims, const std::array<operand_layout, NOPS>& ops) {
  const auto m = merge_layout<NOPS>(dims, ops);
  batch_plan<NOPS> p;
  p.ndim = m.ndim;
  p.count = dims.count();
  for (int d = 0; d < m.ndim; ++d) {
    p.dims[d] = m.dims[static_cast<std::size_t>(d)];
    for (int k = 0; k < NOPS; ++k)
      p.strides[k][d] = m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
  }
  return p;
}

// ---------------------------------------------------------------------------
// Matrix products.

/// The accumulator of a product of T: float for the 16-bit floats (each product
/// and sum in float, one rounding to T at the end, as cuBLAS's FP32-compute
/// mode), T itself otherwise.
template <class T>
struct matmul_acc {
  using type = T;
};
template <>
struct matmul_acc<__half> {
  using type = float;
};
template <>
struct matmul_acc<__nv_bfloat16> {
  using type = float;
};
/// The 16-bit inputs that the CUDA target multiplies on the tensor cores.
template <class T>
inline constexpr bool is_matmul16 = !std::is_same_v<typename matmul_acc<T>::type, T>;

/// One batched product C[b] = A[b] @ B[b] as the kernels see it. Every matrix
/// has unit stride along its rows' elements (columns); `lda`, `ldb`, `ldc` are
/// the row strides in elements (any value, zero included for broadcast rows).
/// Batch offsets: operand 0 is A, 1 is B, 2 is C.
template <class T>
struct gemm_args {
  const T* a = nullptr;
  const T* b = nullptr;
  T* c = nullptr;
  index_t m = 0, n = 0, k = 0;
  index_t lda = 0, ldb = 0, ldc = 0;
  batch_plan<3> batch;
};

/// numpy.matmul's shape rules: the result shape, the matrix sizes, and which
/// operands were 1-D (promoted, with the added dim removed from the result).
struct matmul_shape {
  shape out;        ///< the result's shape
  shape batch;      ///< the broadcast batch dims (rank 0 for plain 2-D products)
  index_t m = 0, n = 0, k = 0;
  bool a_vector = false, b_vector = false;
};

inline matmul_shape matmul_shapes(const shape& a, const shape& b, const char* op = "matmul") {
  if (a.size() == 0 || b.size() == 0)
    throw shape_error(std::string(op) + ": operands must have at least one dimension, got " + a.str() + " and " +
                      b.str());
  matmul_shape r;
  r.a_vector = a.size() == 1;
  r.b_vector = b.size() == 1;
  r.m = r.a_vector ? 1 : a[a.size() - 2];
  const index_t ka = a[a.size() - 1];
  const index_t kb = r.b_vector ? b[0] : b[b.size() - 2];
  r.n = r.b_vector ? 1 : b[b.size() - 1];
  if (ka != kb)
    throw shape_error(std::string(op) + ": inner dimensions do not match: " + a.str() + " @ " + b.str() + " (" +
                      std::to_string(ka) + " != " + std::to_string(kb) + ")");
  r.k = ka;
  const shape ab = r.a_vector ? shape{} : shape(a.begin(), a.end() - 2);
  const shape bb = r.b_vector ? shape{} : shape(b.begin(), b.end() - 2);
  r.batch = ab;
  if (!broadcast_into(r.batch, bb))
    throw shape_error(std::string(op) + ": batch dimensions of " + a.str() + " and " + b.str() +
                      " do not broadcast (" + ab.str() + " with " + bb.str() + ")");
  index_t dims[max_rank];
  int nd = 0;
  for (int d = 0; d < r.batch.size(); ++d) dims[nd++] = r.batch[d];
  if (!r.a_vector) dims[nd++] = r.m;
  if (!r.b_vector) dims[nd++] = r.n;
  r.out = shape(dims, dims + nd);  // rank <= max(rank a, rank b): never above 8
  return r;
}

/// A view's matrix part as (rows, cols, row stride, col stride) and its batch
/// dims; a 1-D operand is a row (`as_row`) or a column vector.
struct matrix_layout {
  index_t rows = 0, cols = 0, rs = 0, cs = 0;
  operand_layout batch;  ///< the dims before the last two (rank 0 for vectors)
};

inline matrix_layout matrix_of(const operand_layout& v, bool as_row) {
  matrix_layout r;
  const int nd = v.shp.size();
  r.batch.is_array = true;
  r.batch.data = v.data;
  r.batch.elem_size = v.elem_size;
  if (nd == 1) {
    const index_t len = v.shp[0], st = v.strides[0];
    if (as_row) {
      r.rows = 1, r.cols = len, r.rs = 0, r.cs = st;
    } else {
      r.rows = len, r.cols = 1, r.rs = st, r.cs = 0;
    }
    r.batch.shp = shape{};
    return r;
  }
  r.rows = v.shp[nd - 2];
  r.cols = v.shp[nd - 1];
  r.rs = v.strides[static_cast<std::size_t>(nd - 2)];
  r.cs = v.strides[static_cast<std::size_t>(nd - 1)];
  r.batch.shp = shape(v.shp.begin(), v.shp.end() - 2);
  for (int d = 0; d < nd - 2; ++d) r.batch.strides[static_cast<std::size_t>(d)] = v.strides[static_cast<std::size_t>(d)];
  return r;
}

/// True when the kernels can read (or write) the matrix in place: unit stride
/// along each row (a single column needs none).
inline bool unit_cols(const matrix_layout& m) { return m.cols <= 1 || m.cs == 1; }

/// The out layout of a matmul result with shape `s` as a (rows, cols) matrix.
inline matrix_layout result_matrix_of(const operand_layout& out, const matmul_shape& ms) {
  matrix_layout r;
  r.rows = ms.m;
  r.cols = ms.n;
  r.batch.is_array = true;
  r.batch.data = out.data;
  r.batch.elem_size = out.elem_size;
  const int nb = ms.batch.size();
  r.batch.shp = ms.batch;
  for (int d = 0; d < nb; ++d) r.batch.strides[static_cast<std::size_t>(d)] = out.strides[static_cast<std::size_t>(d)];
  int d = nb;
  r.rs = ms.a_vector ? 0 : out.strides[static_cast<std::size_t>(d++)];
  r.cs = ms.b_vector ? 0 : out.strides[static_cast<std::size_t>(d)];
  return r;
}

/// Assembles gemm_args from matrices already known to have unit column stride.
/// When B is the same matrix for every batch entry and A's and C's batches are
/// stacked rows (batch stride = m * row stride), the batch folds into m: one
/// tall product fills the GPU better than many short ones.
template <class T>
gemm_args<T> make_gemm_args(const matmul_shape& ms, const matrix_layout& a, const matrix_layout& b,
                            const matrix_layout& c) {
  gemm_args<T> g;
  g.a = static_cast<const T*>(a.batch.data);
  g.b = static_cast<const T*>(b.batch.data);
  g.c = static_cast<T*>(const_cast<void*>(c.batch.data));
  g.m = ms.m, g.n = ms.n, g.k = ms.k;
  g.lda = a.rs, g.ldb = b.rs, g.ldc = c.rs;
  g.batch = make_batch_plan<3>(ms.batch, std::array<operand_layout, 3>{a.batch, b.batch, c.batch});
  if (g.batch.ndim == 1 && g.batch.strides[1][0] == 0 && g.m > 0 && g.batch.strides[0][0] == g.m * g.lda &&
      g.batch.strides[2][0] == g.m * g.ldc) {
    g.m *= g.batch.dims[0];
    g.batch = batch_plan<3>{};
  }
  return g;
}

// ---------------------------------------------------------------------------
// Strided copies (transpose, and materialising views for matmul).

/// A batched 2-D copy dst[b, i, j] = src[b, i, j] of elements of one storage
/// type. `i` is the source's fastest dim and `j` the destination's, so a tiled
/// kernel reads along i and writes along j, both coalesced. Strides in elements;
/// batch offsets: operand 0 is the destination, 1 the source.
struct copy_args {
  const void* src = nullptr;
  void* dst = nullptr;
  index_t ni = 1, nj = 1;
  index_t s_i = 0, s_j = 0, d_i = 0, d_j = 0;
  batch_plan<2> batch;
};

/// How a copy runs: not at all, as one contiguous block, as strided rows (no
/// dims to swap: source and destination are fastest along the same dim, so
/// a plain per-element kernel is coalesced on both sides) or as tiles (a
/// transpose of the two fastest dims).
enum class copy_kind { none, contiguous, rows, tiles };

struct copy_plan {
  copy_kind kind = copy_kind::none;
  std::size_t bytes = 0;  ///< for contiguous copies
  copy_args args;
};

inline index_t abs_index(index_t x) { return x < 0 ? -x : x; }

/// Plans dst = src for two layouts of the same shape (`dst` and `src` give
/// data, element size and strides in elements).
inline copy_plan plan_copy(const operand_layout& dst, const operand_layout& src) {
  copy_plan p;
  const shape& s = dst.shp;
  if (s.count() == 0) return p;
  const auto m = merge_layout<2>(s, std::array<operand_layout, 2>{dst, src});
  p.args.dst = const_cast<void*>(dst.data);
  p.args.src = src.data;
  if (m.ndim == 0 || (m.ndim == 1 && m.strides[0][0] == 1 && m.strides[1][0] == 1)) {
    p.kind = copy_kind::contiguous;
    p.bytes = static_cast<std::size_t>(s.count()) * dst.elem_size;
    return p;
  }
  // The fastest dim of each side (innermost on ties).
  auto fastest = [&](int k) {
    int best = m.ndim - 1;
    for (int d = m.ndim - 2; d >= 0; --d)
      if (abs_index(m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)]) <
          abs_index(m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(best)]))
        best = d;
    return best;
  };
  const int J = fastest(0);
  int I = fastest(1);
  int second = -1;  // rows: the largest other dim spreads over the grid's second axis
  if (I == J) {
    p.kind = copy_kind::rows;
    for (int d = 0; d < m.ndim; ++d)
      if (d != I && (second < 0 || m.dims[static_cast<std::size_t>(d)] > m.dims[static_cast<std::size_t>(second)]))
        second = d;
  } else {
    p.kind = copy_kind::tiles;
    second = J;
  }
  auto st = [&](int k, int d) { return m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)]; };
  p.args.ni = m.dims[static_cast<std::size_t>(I)];
  p.args.s_i = st(1, I);
  p.args.d_i = st(0, I);
  if (second >= 0) {
    p.args.nj = m.dims[static_cast<std::size_t>(second)];
    p.args.s_j = st(1, second);
    p.args.d_j = st(0, second);
  }
  auto& b = p.args.batch;
  for (int d = 0; d < m.ndim; ++d) {
    if (d == I || d == second) continue;
    b.dims[b.ndim] = m.dims[static_cast<std::size_t>(d)];
    b.strides[0][b.ndim] = st(0, d);
    b.strides[1][b.ndim] = st(1, d);
    b.count *= b.dims[b.ndim];
    ++b.ndim;
  }
  return p;
}

// ---------------------------------------------------------------------------
// Element storage for copies: kernels move bytes, so every element type of a
// given size and alignment shares one instantiation.

/// The unsigned word of A bytes (A = 1, 2, 4, 8, 16; 16 is the CUDA uint4 layout).
template <std::size_t A>
struct word_of {
  static_assert(A == 1 || A == 2 || A == 4 || A == 8 || A == 16, "a word is 1, 2, 4, 8 or 16 bytes");
  using type = std::conditional_t<
      A == 1, std::uint8_t,
      std::conditional_t<A == 2, std::uint16_t,
                         std::conditional_t<A == 4, std::uint32_t,
                                            std::conditional_t<A == 8, std::uint64_t, vec_reg<std::uint32_t, 4>>>>>;
};

/// E bytes moved as words of A bytes (A = alignment, a power of two dividing E).
template <std::size_t E, std::size_t A>
struct alignas(A) multiword {
  typename word_of<A>::type w[E / A];
};

template <std::size_t E, std::size_t A, bool = (E == A)>
struct storage_select {
  using type = typename word_of<A>::type;
};
template <std::size_t E, std::size_t A>
struct storage_select<E, A, false> {
  using type = multiword<E, A>;
};

/// The storage type that copies a T: a plain word when sizeof(T) is its own
/// alignment (1, 2, 4, 8, 16 bytes), else a struct of alignment-sized words.
template <class T>
using storage_t = typename storage_select<sizeof(T), (alignof(T) < 16 ? alignof(T) : 16)>::type;

// ---------------------------------------------------------------------------
// Transpose axes (host-only shape logic)

/// Validates `axes` as a permutation of x's dims (negative values count from
/// the end, as in NumPy) and returns it normalised.
inline std::vector<int> normalize_axes(const std::vector<int>& axes, const shape& s) {
  const int nd = s.size();
  std::vector<int> r;
  std::vector<bool> seen(static_cast<std::size_t>(nd), false);
  bool ok = static_cast<int>(axes.size()) == nd;
  for (int a : axes) {
    const int v = a < 0 ? a + nd : a;
    if (!ok || v < 0 || v >= nd || seen[static_cast<std::size_t>(v)]) {
      ok = false;
      break;
    }
    seen[static_cast<std::size_t>(v)] = true;
    r.push_back(v);
  }
  if (!ok) {
    std::string list;
    for (std::size_t i = 0; i < axes.size(); ++i) list += (i ? "," : "") + std::to_string(axes[i]);
    throw shape_error("transpose: axes (" + list + ") are not a permutation of the " + std::to_string(nd) +
                      " axes of an array of shape " + s.str());
  }
  return r;
}

// ---------------------------------------------------------------------------
// Registry entries: a variant and its launcher (see linalg.hpp).

template <class T>
using gemm_fn = void (*)(const gemm_args<T>&, stream_ref);
using copy_fn = void (*)(const copy_args&, stream_ref);

template <class T>
struct matmul_impl {
  matmul_variant variant;
  gemm_fn<T> run;
};
struct transpose_impl {
  transpose_variant variant;
  copy_fn run;
};

}  // namespace ufunc::detail
