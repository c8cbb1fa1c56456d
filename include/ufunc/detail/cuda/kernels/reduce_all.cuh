// Whole-array reduction (one output) of one contiguous input through
// cub::DeviceReduce::TransformReduce: CUB's tuned single-pass-per-tile kernels,
// with the map applied after its (vectorised) loads, so a fused map costs no
// extra memory traffic; float sums over several contiguous inputs too
// (wide_sum.hpp's pack_map_sum). Other whole reductions (other ops of several
// inputs, argmin/argmax, broadcasting, strides) take the row kernels instead:
// one CUB instantiation (32-bit offsets) per call site.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cstring>
#include <type_traits>

#include "../../reduce_source.hpp"
#include "../launch.hpp"
#include "grid_dependency.cuh"

namespace ufunc::detail {

/// Contiguous single input: element -> accumulator.
template <class Map, class Lift>
struct map_lift {
  Map map;
  Lift lift;
  template <class T>
  __host__ __device__ auto operator()(const T& v) const { return lift(map(v), index_t(0)); }
};

/// 16-bit floats: CUB does not vectorise their loads (2-byte items, about 0.82
/// of peak bandwidth where 4-byte floats reach 0.86 on an H100), so the
/// reduction runs over packs of 16 elements instead: item i is two 16-byte loads
/// of elements [16i, 16i+16) (scalar loads for the last, short pack), mapped,
/// lifted and folded in order with the accumulator op. Packs of 8 (one 16-byte
/// load an item) were no faster than CUB's scalar loads (0.815 vs 0.818 of peak
/// on an H200, float 0.91); 32 bytes an item reached 0.87 (bench/NOTES.md).
/// The base must be 16-byte aligned.
template <class T, class Map, class Lift, class Op>
struct pack_lift {
  static constexpr int width = 16;
  static_assert(sizeof(T) == 2, "pack_lift: 16-bit elements");
  const T* p;
  index_t n;
  Map map;
  Lift lift;
  Op op;
  __host__ __device__ auto operator()(index_t i) const {
    const index_t b = i * width;
    if (b + width <= n) {
      uint4 raw[2];  // both loads issued before any use
      raw[0] = *reinterpret_cast<const uint4*>(p + b);
      raw[1] = *reinterpret_cast<const uint4*>(p + b + 8);
      const T* v = reinterpret_cast<const T*>(raw);
      auto a = lift(map(v[0]), index_t(0));
#pragma unroll
      for (int k = 1; k < width; ++k) a = op(a, lift(map(v[k]), index_t(0)));
      return a;
    }
    auto a = lift(map(p[b]), index_t(0));
    for (index_t k = b + 1; k < n; ++k) a = op(a, lift(map(p[k]), index_t(0)));
    return a;
  }
};

template <class F>
struct wrap_maybe {
  F f;
  template <class X>
  __host__ __device__ auto operator()(const X& x) const {
    using A = decltype(f(x));
    return maybe<A>{f(x), true};
  }
};

/// Where the CUB call's one result goes (one device thread stores it after the
/// reduction). A whole reduction: finished (`fin`) into the output. A chunk of a
/// reduction of more items than 32-bit offsets count: kept in `carry` (device
/// memory), or first folded with what `carry` holds (`fold`, with `cop`, the op
/// CUB reduces with), then kept there or, for the last chunk, finished. A kept
/// chunk writes a placeholder to the output (which then points at scratch).
/// One chunk's part in a chunked reduction; the default is a whole reduction.
struct chunk_step {
  void* carry = nullptr;
  bool fold = false;
  bool finish = true;
};

/// No elements beside the CUB call's items.
struct no_tail {
  static constexpr bool present = false;
};

/// `tail`: elements the items do not cover (a pack sum's last R % W, pack_tail
/// in wide_sum.hpp), added to the last chunk's result before it is finished.
template <class Res, class Fin, class COp, class Tail = no_tail>
struct store_finished {
  Fin fin;
  COp cop;
  chunk_step step;
  Tail tail;
  template <class A>
  __host__ __device__ Res operator()(const A& a) const {
    A v = a;
    if (step.fold) v = cop(*static_cast<const A*>(step.carry), v);
    if (!step.finish) {
      *static_cast<A*>(step.carry) = v;
      return Res{};
    }
    if constexpr (Tail::present)
      if (tail.any()) v = cop(v, as_acc<A>(tail.value()));
    return done(v);
  }
  template <class A, class X>
  static __host__ __device__ A as_acc(const X& x) {
    if constexpr (std::is_same_v<A, X>)
      return x;
    else
      return A{x, true};  // maybe<X> (an op without an init)
  }
  template <class A>
  __host__ __device__ Res done(const A& a) const { return static_cast<Res>(fin(a)); }
  template <class A>
  __host__ __device__ Res done(const maybe<A>& a) const { return static_cast<Res>(fin(a.v)); }
};

/// Items per CUB call (its offsets are 32-bit): a longer whole reduction runs in
/// chunks of this many (a power of two, so that every chunk keeps the input's
/// alignment). The tests lower it to run the chunked path on small inputs.
#if defined(UFUNC_TESTING)
inline index_t& cub_chunk_items() {
  static index_t n = index_t(1) << 30;
  return n;
}
#else
constexpr index_t cub_chunk_items() { return index_t(1) << 30; }
#endif

/// Whether `init` is the op's identity (bit for bit): every chunk of a chunked
/// reduction may then start from it. False for an op without one.
template <class Op, class Acc>
bool is_identity_init(const Acc& init) {
  if constexpr (has_identity<Op, Acc>::value && std::is_trivially_copyable_v<Acc>) {
    const Acc e = Op::template identity<Acc>();
    return std::memcmp(static_cast<const void*>(&e), static_cast<const void*>(&init), sizeof(Acc)) == 0;
  } else {
    return false;
  }
}

/// A pointer input as it is; a counting input (the pack sums' item indices) as
/// a counting iterator of the offset type I.
template <class I, class In>
In narrow_counting(In in) {
  return in;
}
template <class I>
thrust::counting_iterator<I> narrow_counting(thrust::counting_iterator<index_t> in) {
  return thrust::counting_iterator<I>(static_cast<I>(*in));
}

/// CUB's two one-block kernels (the input of at most one tile, and the second
/// pass over the first pass's per-block partials) as one lean block loop. CUB
/// unrolls each over a whole tile (16 items a thread, vector and scalar loads):
/// about a third of a whole-reduction call site's nvcc time at -O3 (bench/NOTES.md,
/// session 24). Both run one block of 1,024 threads (reduce_all_policies) over at
/// most a few thousand items: a tile, or one partial per first-pass block. Same
/// contract as CUB's DeviceReduceSingleTileKernel: no items stores `init`,
/// otherwise op(init, reduction of the items). (The library's own one-block
/// pass, finish_one, stores through store_result; CUB's dispatch launches this
/// one with its own arguments.)
template <class MaxPolicy, class In, class Out, class Off, class Op, class Init, class A, class X>
__global__ void __launch_bounds__(MaxPolicy::ActivePolicy::SingleTilePolicy::BLOCK_THREADS)
    reduce_tile_kernel(In in, Out out, Off n, Op op, Init init, X x) {
  constexpr int B = MaxPolicy::ActivePolicy::SingleTilePolicy::BLOCK_THREADS;
  using block_reduce = cub::BlockReduce<A, B>;
  __shared__ typename block_reduce::TempStorage shared;
  grid_dependency_wait();  // (the second pass is a dependent launch: second_pass_dependent)
  if (n == 0) {
    if (threadIdx.x == 0) *out = init;
    return;
  }
  const Off t = static_cast<Off>(threadIdx.x);
  A a{};
  if (t < n) {
    a = x(in[t]);
#pragma unroll 4
    for (Off i = t + B; i < n; i += B) a = op(a, x(in[i]));
  }
  const A all = n >= B ? block_reduce(shared).Reduce(a, op) : block_reduce(shared).Reduce(a, op, static_cast<int>(n));
  if (threadIdx.x == 0) *out = op(init, all);
}

#if CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION == 0
#define UFUNC_LEAN_CUB_REDUCE 1
/// The policies for CUB's dispatch: the first pass is CUB's own policy for the
/// op (its sm_60 to sm_90 one: its sm_100 tunings are for cuda::std::plus only);
/// the one-block kernels are 1,024 threads wide with a quarter of the items, so
/// the same inputs take the one-tile path and the second pass over 5,280
/// partials (an H200's first-pass grid) has about five loads a thread. With 256
/// threads the lean second pass cost 4.6 us at 2^27 floats (an H200,
/// bench/NOTES.md).
template <class A, class Op>
struct reduce_all_policies {
  struct Policy600 : cub::ChainedPolicy<600, Policy600, Policy600> {
    using ReducePolicy = typename cub::detail::reduce::policy_hub<A, int, Op>::Policy600::ReducePolicy;
    using SingleTilePolicy = cub::AgentReducePolicy<1024, 4, A, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::LOAD_LDG>;
    using SegmentedReducePolicy = ReducePolicy;
  };
  using MaxPolicy = Policy600;
};

/// CUB's kernels for DispatchReduce (its KernelSource parameter, CCCL 3.0):
/// the first pass is CUB's; both one-block kernels are reduce_tile_kernel.
/// Other CCCL versions name these differently: they take CUB's public call.
template <class MaxPolicy, class In, class Out, class Off, class Op, class Init, class A, class X>
struct lean_reduce_kernels {
  CUB_RUNTIME_FUNCTION static constexpr auto SingleTileKernel() {
    return &reduce_tile_kernel<MaxPolicy, In, Out, Off, Op, Init, A, X>;
  }
  CUB_RUNTIME_FUNCTION static constexpr auto ReductionKernel() {
    return &cub::detail::reduce::DeviceReduceKernel<MaxPolicy, In, Off, Op, A, X>;
  }
  CUB_RUNTIME_FUNCTION static constexpr auto SingleTileSecondKernel() {
    return &reduce_tile_kernel<MaxPolicy, A*, Out, int, Op, Init, A, ::cuda::std::__identity>;
  }
  CUB_RUNTIME_FUNCTION static constexpr std::size_t AccumSize() { return sizeof(A); }
};

/// CUB's launcher, except that the second pass (Kernels::SingleTileSecondKernel,
/// over the first pass's per-block partials) is a programmatic dependent launch
/// (cuda_launch::launch_dependent): the runtime processes it while the first
/// pass's last blocks run, and reduce_tile_kernel waits for them. H200, argmax's
/// second pass launched so: about 1 % of a 2^27 reduction (bench/NOTES.md,
/// session 26).
template <class Kernels>
struct second_pass_dependent : cub::detail::TripleChevronFactory {
  struct launcher {
    dim3 grid, block;
    std::size_t smem;
    cudaStream_t stream;
    template <class K, class... Args>
    CUB_RUNTIME_FUNCTION cudaError_t doit(K k, const Args&... args) const {
      NV_IF_TARGET(NV_IS_HOST, (return launch(k, args...);), (return cudaErrorNotSupported;));
    }
    template <class K, class... Args>
    cudaError_t launch(K k, const Args&... args) const {
      if constexpr (std::is_same_v<K, decltype(Kernels::SingleTileSecondKernel())>)
        if (k == Kernels::SingleTileSecondKernel() && smem == 0) {
          cuda_launch::launch_dependent(k, grid, block, stream, args...);
          return cudaPeekAtLastError();
        }
      cuda_launch::launch(k, grid, block, smem, stream, args...);
      return cudaPeekAtLastError();
    }
  };
  CUB_RUNTIME_FUNCTION launcher operator()(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                                           bool = false) const {
    return {grid, block, smem, stream};
  }
};
#endif

/// cub::DeviceReduce::TransformReduce's dispatch, with lean_reduce_kernels
/// where the CCCL version has them.
template <class In, class Out, class Op, class X, class Init>
cudaError_t transform_reduce(void* temp, std::size_t& bytes, In in, Out out, int count, Op op, X x, Init init,
                             cudaStream_t s) {
#if defined(UFUNC_LEAN_CUB_REDUCE)
  using A = ::cuda::std::__accumulator_t<Op, cub::detail::invoke_result_t<X, cub::detail::it_value_t<In>>, Init>;
  using hub = reduce_all_policies<A, Op>;
  using kernels = lean_reduce_kernels<typename hub::MaxPolicy, In, Out, int, Op, Init, A, X>;
  return cub::DispatchTransformReduce<In, Out, int, Op, X, Init, A, hub, kernels, second_pass_dependent<kernels>>::Dispatch(
      temp, bytes, in, out, count, op, init, s, x);
#else
  return cub::DeviceReduce::TransformReduce(temp, bytes, in, out, count, op, x, init, s);
#endif
}

/// One CUB call over `count` items (32-bit offsets: each call site compiles
/// CUB's kernels once; a longer reduction is run in chunks, reduce.hpp), and
/// `tail` (the last chunk's; see store_finished); with
/// temp == nullptr it only sets `bytes` (CUB's two-phase protocol). HasInit:
/// start from `init` (an identity or the user's value); otherwise reduce `maybe`
/// values so that no identity is needed. A counting input (the pack sums' item
/// indices) counts from 0 in 32 bits.
template <bool HasInit, class In, class Xform, class Acc, class Op, class Fin, class Res, class Tail = no_tail>
cudaError_t cub_reduce_all(void* temp, std::size_t& bytes, In in, const Xform& x, int count, const acc_op<Acc, Op>& op,
                           const Acc& init, const Fin& fin, Res* out, cudaStream_t s, const chunk_step& step = {},
                           const Tail& tail = {}) {
  auto it = narrow_counting<int>(in);
  if constexpr (HasInit) {
    using SF = store_finished<Res, Fin, acc_op<Acc, Op>, Tail>;
    auto o = thrust::make_transform_output_iterator(out, SF{fin, op, step, tail});
    return transform_reduce(temp, bytes, it, o, count, op, x, init, s);
  } else {
    using MO = maybe_op<Acc, Op>;
    using SF = store_finished<Res, Fin, MO, Tail>;
    auto o = thrust::make_transform_output_iterator(out, SF{fin, MO{op}, step, tail});
    return transform_reduce(temp, bytes, it, o, count, MO{op}, wrap_maybe<Xform>{x}, maybe<Acc>{Acc{}, false}, s);
  }
}

}  // namespace ufunc::detail
