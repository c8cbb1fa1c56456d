// Whole-array reduction (one output) of one contiguous input through
// cub::DeviceReduce::TransformReduce: CUB's tuned single-pass-per-tile kernels,
// with the map applied after its (vectorised) loads, so a fused map costs no
// extra memory traffic; float sums over several contiguous inputs too
// (wide_sum.hpp's pack_map_sum). Other whole reductions (other ops of several
// inputs, argmin/argmax, broadcasting, strides) take the row kernels instead:
// one CUB instantiation (32-bit offsets) per call site.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
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
/// One block's reduction of items x(in[0]) .. x(in[n - 1]), n >= 1 (valid in
/// thread 0): a strided loop and cub::BlockReduce. reduce_tile_kernel's body,
/// and the finish of reduce_first_pass_kernel's last block.
template <int B, class A, class In, class Off, class Op, class X>
__device__ __forceinline__ A block_fold(In in, Off n, const Op& op, const X& x,
                                        typename cub::BlockReduce<A, B>::TempStorage& shared) {
  const Off t = static_cast<Off>(threadIdx.x);
  A a{};
  if (t < n) {
    a = x(in[t]);
#pragma unroll 4
    for (Off i = t + B; i < n; i += B) a = op(a, x(in[i]));
  }
  using block_reduce = cub::BlockReduce<A, B>;
  return n >= B ? block_reduce(shared).Reduce(a, op) : block_reduce(shared).Reduce(a, op, static_cast<int>(n));
}

template <class MaxPolicy, class In, class Out, class Off, class Op, class Init, class A, class X>
__global__ void __launch_bounds__(MaxPolicy::ActivePolicy::SingleTilePolicy::BLOCK_THREADS)
    reduce_tile_kernel(In in, Out out, Off n, Op op, Init init, X x) {
  constexpr int B = MaxPolicy::ActivePolicy::SingleTilePolicy::BLOCK_THREADS;
  __shared__ typename cub::BlockReduce<A, B>::TempStorage shared;
  grid_dependency_wait();  // (the second pass is a dependent launch: finish_in_first_pass)
  if (n == 0) {
    if (threadIdx.x == 0) *out = init;
    return;
  }
  const A all = block_fold<B, A>(in, n, op, x, shared);
  if (threadIdx.x == 0) *out = op(init, all);
}

#if CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION == 0
#define UFUNC_LEAN_CUB_REDUCE 1
/// CUB's first pass (its DeviceReduceKernel: AgentReduce over an even share of
/// tiles, one partial a block) that can also do the second pass's work: given
/// `done` (a counter at zero that the stream owns, scratch.hpp's
/// finish_counters), the last block to finish reduces the partials as
/// reduce_tile_kernel would (op(init, all) into out) and sets the counter back
/// to zero, and the launcher (finish_in_first_pass) launches no second pass.
/// Without `done`, CUB's first pass alone. A small reduction then costs one
/// launch, not two (bench/NOTES.md, session 27).
template <class MaxPolicy, class In, class Off, class Op, class A, class X, class Out, class Init>
__global__ void __launch_bounds__(int(MaxPolicy::ActivePolicy::ReducePolicy::BLOCK_THREADS))
    reduce_first_pass_kernel(In in, A* partials, Off n, cub::GridEvenShare<Off> share, Op op, X x, Out out, Init init,
                             unsigned* done) {
  using policy = typename MaxPolicy::ActivePolicy::ReducePolicy;
  using agent = cub::detail::reduce::AgentReduce<policy, In, A*, Off, Op, A, X>;
  constexpr int B = policy::BLOCK_THREADS;
  using block_reduce = cub::BlockReduce<A, B>;
  __shared__ union {
    typename agent::TempStorage agent;
    typename block_reduce::TempStorage reduce;
  } shared;
  (void)n;
  const A block = agent(shared.agent, in, op, x).ConsumeTiles(share);
  if (threadIdx.x == 0) cub::detail::uninitialized_copy_single(partials + blockIdx.x, block);
  if (!done || !last_block_arrives(done)) return;
  // The partials through L2 (LOAD_CG): other blocks wrote them in this kernel.
  const A all = block_fold<B, A>(cub::CacheModifiedInputIterator<cub::LOAD_CG, A, int>(partials),
                                 static_cast<int>(gridDim.x), op, ::cuda::std::__identity{}, shared.reduce);
  if (threadIdx.x == 0) {
    *out = op(init, all);
    *done = 0;  // for the stream's next kernel
  }
}

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
/// the first pass is CUB's (in reduce_first_pass_kernel, which takes three
/// more arguments: finish_in_first_pass gives them); both one-block kernels are
/// reduce_tile_kernel.
/// Other CCCL versions name these differently: they take CUB's public call.
template <class MaxPolicy, class In, class Out, class Off, class Op, class Init, class A, class X>
struct lean_reduce_kernels {
  CUB_RUNTIME_FUNCTION static constexpr auto SingleTileKernel() {
    return &reduce_tile_kernel<MaxPolicy, In, Out, Off, Op, Init, A, X>;
  }
  CUB_RUNTIME_FUNCTION static constexpr auto ReductionKernel() {
    return &reduce_first_pass_kernel<MaxPolicy, In, Off, Op, A, X, Out, Init>;
  }
  CUB_RUNTIME_FUNCTION static constexpr auto SingleTileSecondKernel() {
    return &reduce_tile_kernel<MaxPolicy, A*, Out, int, Op, Init, A, ::cuda::std::__identity>;
  }
  CUB_RUNTIME_FUNCTION static constexpr std::size_t AccumSize() { return sizeof(A); }
};

/// The most first-pass blocks whose partials that pass's last block reduces
/// itself (finish_in_first_pass); more take the wide second pass. H200, float
/// sums into `out` in batches of ten, against the read kernel of the same
/// bytes: 2^16 to 2^20 floats (4 to 64 blocks) 0.30 -> 0.43-0.46, 2^23 (512)
/// 0.56-0.59 -> 0.57-0.67, but 2^24 (1,024) 0.89 -> 0.82 and 2^25 (5,280)
/// 0.91 -> 0.85 (bench/NOTES.md, session 27).
struct reduce_all_finish_tuning {
  static constexpr unsigned max_partials = 512;
};

/// CUB's launcher, except for the two passes of a reduction over several
/// blocks. The first (Kernels::ReductionKernel, reduce_first_pass_kernel) gets
/// `out`, `init` and the stream's counter `done` when it has at most
/// `max_partials` blocks: its last block then finishes, and the second pass
/// (Kernels::SingleTileSecondKernel) is not launched (`*finished`). Otherwise
/// the second pass is a programmatic dependent launch
/// (cuda_launch::launch_dependent): the runtime processes it while the first
/// pass's last blocks run, and reduce_tile_kernel waits for them (H200: about
/// 1 % of a 2^27 reduction; bench/NOTES.md, session 26). With many partials
/// (an H200's 5,280 at 2^27 floats) that wide one-block pass is quicker than a
/// 256-thread last block; with few, the launch saved counts more (a 2^20 float
/// sum returned to the host: 0.97-0.99 of the time of CUB's two launches, the
/// copy and the wait, against 1.11 before).
template <class Kernels, class Out, class Init>
struct finish_in_first_pass : cub::detail::TripleChevronFactory {
  Out out;
  Init init;
  unsigned* done;  // nullptr: no counter (a stream being captured)
  unsigned max_partials;
  bool* finished;
  struct launcher {
    dim3 grid, block;
    std::size_t smem;
    cudaStream_t stream;
    const finish_in_first_pass* f;
    template <class K, class... Args>
    CUB_RUNTIME_FUNCTION cudaError_t doit(K k, const Args&... args) const {
      NV_IF_TARGET(NV_IS_HOST, (return launch(k, args...);), (return cudaErrorNotSupported;));
    }
    template <class K, class... Args>
    cudaError_t launch(K k, const Args&... args) const {
      if constexpr (std::is_same_v<K, decltype(Kernels::ReductionKernel())>) {
        const bool fin = f->done && grid.x <= f->max_partials;
        *f->finished = fin;
        cuda_launch::launch(k, grid, block, smem, stream, args..., f->out, f->init, fin ? f->done : nullptr);
        return cudaPeekAtLastError();
      } else {
        if constexpr (std::is_same_v<K, decltype(Kernels::SingleTileSecondKernel())>)
          if (k == Kernels::SingleTileSecondKernel() && smem == 0) {
            if (*f->finished) return cudaSuccess;  // the first pass's last block did it
            cuda_launch::launch_dependent(k, grid, block, stream, args...);
            return cudaPeekAtLastError();
          }
        cuda_launch::launch(k, grid, block, smem, stream, args...);
        return cudaPeekAtLastError();
      }
    }
  };
  CUB_RUNTIME_FUNCTION launcher operator()(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                                           bool = false) const {
    return {grid, block, smem, stream, this};
  }
};
#endif

/// cub::DeviceReduce::TransformReduce's dispatch, with lean_reduce_kernels
/// where the CCCL version has them.
/// `done`: the stream's counter at zero (finish_counters), or nullptr.
template <class In, class Out, class Op, class X, class Init>
cudaError_t transform_reduce(void* temp, std::size_t& bytes, In in, Out out, int count, Op op, X x, Init init,
                             cudaStream_t s, unsigned* done) {
#if defined(UFUNC_LEAN_CUB_REDUCE)
  using A = ::cuda::std::__accumulator_t<Op, cub::detail::invoke_result_t<X, cub::detail::it_value_t<In>>, Init>;
  using hub = reduce_all_policies<A, Op>;
  using kernels = lean_reduce_kernels<typename hub::MaxPolicy, In, Out, int, Op, Init, A, X>;
  using factory = finish_in_first_pass<kernels, Out, Init>;
  bool finished = false;
  return cub::DispatchTransformReduce<In, Out, int, Op, X, Init, A, hub, kernels, factory>::Dispatch(
      temp, bytes, in, out, count, op, init, s, x, kernels{},
      factory{{}, out, init, done, reduce_all_finish_tuning::max_partials, &finished});
#else
  (void)done;
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
                           const Tail& tail = {}, unsigned* done = nullptr) {
  auto it = narrow_counting<int>(in);
  if constexpr (HasInit) {
    using SF = store_finished<Res, Fin, acc_op<Acc, Op>, Tail>;
    auto o = thrust::make_transform_output_iterator(out, SF{fin, op, step, tail});
    return transform_reduce(temp, bytes, it, o, count, op, x, init, s, done);
  } else {
    using MO = maybe_op<Acc, Op>;
    using SF = store_finished<Res, Fin, MO, Tail>;
    auto o = thrust::make_transform_output_iterator(out, SF{fin, MO{op}, step, tail});
    return transform_reduce(temp, bytes, it, o, count, MO{op}, wrap_maybe<Xform>{x}, maybe<Acc>{Acc{}, false}, s,
                            done);
  }
}

}  // namespace ufunc::detail
