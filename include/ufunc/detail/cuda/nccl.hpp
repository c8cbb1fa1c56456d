// NCCL for sharded arrays over several GPUs of one process (single-process
// multi-GPU mode): one communicator per device of a device set, made by
// ncclCommInitAll and cached per set (process lifetime, behind a mutex), and
// the collectives the sharded operations use (all-reduce / reduce of partial
// results, broadcast of a replicated operand), each issued for every device
// inside one ncclGroupStart/ncclGroupEnd on the devices' sharded streams,
// one thread at a time (enqueue_mutex: NCCL requires it of a communicator).
// Compiled only in CUDA builds that found NCCL (UFUNC_HAVE_NCCL).
//
// NVLink multicast (NVLS) stays off: before the first communicator is made
// NCCL_NVLS_ENABLE is set to 0 (overriding the environment), so NCCL never
// creates multicast objects; the library itself never calls cuMulticastCreate.
#pragma once

#if defined(UFUNC_BACKEND_CUDA) && defined(UFUNC_HAVE_NCCL)

#include <nccl.h>

#include <unistd.h>  // gethostname

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../../communicator.hpp"
#include "../../config.hpp"
#include "../../error.hpp"
#include "../../ops.hpp"
#include "../../stream.hpp"

namespace ufunc::detail::nccl {

[[noreturn]] inline void throw_nccl_error(ncclResult_t r, const char* call) {
  throw nccl_error(std::string(call) + " failed: " + ncclGetErrorString(r), static_cast<int>(r));
}
#define UFUNC_NCCL_CHECK(call)                                                  \
  do {                                                                          \
    ncclResult_t ufunc_nccl_r_ = (call);                                        \
    if (ufunc_nccl_r_ != ncclSuccess) ::ufunc::detail::nccl::throw_nccl_error(ufunc_nccl_r_, #call); \
  } while (0)

/// NCCL's element type for T, if it has one.
template <class T>
constexpr bool has_type() {
  return std::is_same_v<T, float> || std::is_same_v<T, double> ||
         (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8));
}
template <class T>
ncclDataType_t type_of() {
  static_assert(has_type<T>(), "ufunc: NCCL has no type for this element type");
  if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else if constexpr (std::is_same_v<T, double>) return ncclFloat64;
  else if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? ncclInt8 : ncclUint8;
  else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? ncclInt32 : ncclUint32;
  else return std::is_signed_v<T> ? ncclInt64 : ncclUint64;
}

/// Turns NVLink multicast off for every communicator this process makes.
inline void disable_nvls() {
#if !defined(_WIN32)
  setenv("NCCL_NVLS_ENABLE", "0", 1);
#endif
}

/// The communicators of a device set (one per device, in its order), made once.
inline const std::vector<ncclComm_t>& comms(const std::vector<int>& ids) {
  static std::mutex m;
  static std::map<std::vector<int>, std::vector<ncclComm_t>> cache;  // never destroyed: process lifetime
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(ids);
  if (it != cache.end()) return it->second;
  disable_nvls();
  std::vector<ncclComm_t> c(ids.size());
  int prev = 0;
  UFUNC_CUDA_CHECK(cudaGetDevice(&prev));
  const ncclResult_t r = ncclCommInitAll(c.data(), static_cast<int>(ids.size()), ids.data());
  (void)cudaSetDevice(prev);
  if (r != ncclSuccess) throw_nccl_error(r, "ncclCommInitAll");
  return cache.emplace(ids, std::move(c)).first->second;
}

/// Serialises the enqueue of collectives: a communicator may not be used by two
/// threads at once, and every device must see the groups in one order (the
/// per-device streams then keep that order on the GPUs).
inline std::mutex& enqueue_mutex() {
  static std::mutex m;
  return m;
}

/// Closes an ncclGroupStart even when an enqueue in the group throws.
struct group {
  bool open = false;
  group() {
    UFUNC_NCCL_CHECK(ncclGroupStart());
    open = true;
  }
  void end() {
    open = false;
    UFUNC_NCCL_CHECK(ncclGroupEnd());
  }
  ~group() {
    if (open) (void)ncclGroupEnd();
  }
};

/// In place: buf[i] (count elements on device ids[i]) becomes op over all
/// devices' buffers, on every device (all) or on ids[root] only.
template <class T>
void reduce(const std::vector<int>& ids, const std::vector<T*>& buf, std::size_t count, ncclRedOp_t op,
            const std::vector<stream_ref>& st, bool all, int root = 0) {
  const auto& c = comms(ids);
  std::lock_guard<std::mutex> lock(enqueue_mutex());
  group g;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (all)
      UFUNC_NCCL_CHECK(ncclAllReduce(buf[i], buf[i], count, type_of<T>(), op, c[i], st[i].get()));
    else
      UFUNC_NCCL_CHECK(ncclReduce(buf[i], buf[i], count, type_of<T>(), op, root, c[i], st[i].get()));
  }
  g.end();
}

/// buf[root]'s `bytes` bytes copied into every buf[i].
inline void broadcast(const std::vector<int>& ids, const std::vector<void*>& buf, std::size_t bytes, int root,
                      const std::vector<stream_ref>& st) {
  const auto& c = comms(ids);
  std::lock_guard<std::mutex> lock(enqueue_mutex());
  group g;
  for (std::size_t i = 0; i < ids.size(); ++i)
    UFUNC_NCCL_CHECK(ncclBroadcast(buf[static_cast<std::size_t>(root)], buf[i], bytes, ncclUint8, root, c[i], st[i].get()));
  g.end();
}

/// A communicator across processes, destroyed with the transport unless it was
/// aborted (ncclCommAbort frees it).
struct rank_nccl {
  ncclComm_t comm = nullptr;
  bool aborted = false;
  rank_nccl() = default;
  rank_nccl(const rank_nccl&) = delete;
  rank_nccl& operator=(const rank_nccl&) = delete;
  ~rank_nccl() {
    if (comm && !aborted) (void)ncclCommDestroy(comm);
  }
};

/// Across processes: this rank's NCCL communicator for `device` over the
/// ranks of `c` (ncclCommInitRank, its unique id from rank 0 through the
/// communicator's all-gather; collective on first use per device, then kept
/// with the communicator's transport). Null, on every rank, when two ranks
/// share a GPU (NCCL refuses that): their partials then go through host memory.
inline std::shared_ptr<rank_nccl> rank_nccl_of(const communicator& c, int device) {
  auto held = c.transport()->attachment(device, [&]() -> std::shared_ptr<void> {
    struct who {
      char host[64];
      char bus[32];
      ncclUniqueId id;
    };
    who me{};
    gethostname(me.host, sizeof(me.host) - 1);
    UFUNC_CUDA_CHECK(cudaDeviceGetPCIBusId(me.bus, sizeof(me.bus), device));
    if (c.rank() == 0) UFUNC_NCCL_CHECK(ncclGetUniqueId(&me.id));
    const auto all = c.allgather(me);
    for (std::size_t a = 0; a < all.size(); ++a)
      for (std::size_t b = 0; b < a; ++b)
        if (std::strcmp(all[a].host, all[b].host) == 0 && std::strcmp(all[a].bus, all[b].bus) == 0)
          return std::shared_ptr<void>();  // two ranks on one GPU
    disable_nvls();
    int prev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&prev));
    UFUNC_CUDA_CHECK(cudaSetDevice(device));
    auto made = std::make_shared<rank_nccl>();
    const ncclResult_t r = ncclCommInitRank(&made->comm, c.size(), all[0].id, c.rank());
    (void)cudaSetDevice(prev);
    if (r != ncclSuccess) {
      made->comm = nullptr;
      throw_nccl_error(r, "ncclCommInitRank");
    }
    return made;
  });
  return std::static_pointer_cast<rank_nccl>(held);
}
inline ncclComm_t rank_comm(const communicator& c, int device) {
  const auto rc = rank_nccl_of(c, device);
  return rc ? rc->comm : nullptr;
}

/// Seconds a rank waits for a collective across processes before it gives up
/// (UFUNC_COLLECTIVE_TIMEOUT, default 600, as PyTorch's NCCL timeout).
inline double collective_timeout_s() {
  const char* e = std::getenv("UFUNC_COLLECTIVE_TIMEOUT");
  if (e && *e) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && v > 0) return v;
  }
  return 600.0;
}

/// Gives up this rank's communicator for `device`: ncclCommAbort (which ends
/// its kernels still waiting for other ranks), and the transport forgets it, so
/// that the ranks' next collective makes a new one.
inline void abandon(const communicator& c, int device, rank_nccl& rc) {
  if (!rc.aborted) {
    rc.aborted = true;
    (void)ncclCommAbort(rc.comm);
  }
  c.transport()->detach(device);
}

/// Waits for `st`, where this rank's collective over `c` was enqueued, for at
/// most collective_timeout_s(): a rank that died or never arrived, or an error
/// NCCL reports asynchronously, makes this rank abandon its communicator and
/// throw communication_error (or nccl_error) instead of waiting for ever.
inline void wait_ranks(const communicator& c, int device, stream_ref st, const char* what) {
  const auto rc = rank_nccl_of(c, device);
  const auto t0 = std::chrono::steady_clock::now();
  const double limit = collective_timeout_s();
  for (long spin = 0;; ++spin) {
    const cudaError_t q = cudaStreamQuery(st.get());
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) UFUNC_CUDA_CHECK(q);
    ncclResult_t async = ncclSuccess;
    if (rc && ncclCommGetAsyncError(rc->comm, &async) == ncclSuccess && async != ncclSuccess &&
        async != ncclInProgress) {
      abandon(c, device, *rc);
      throw_nccl_error(async, what);
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > limit) {
      if (rc) abandon(c, device, *rc);
      throw communication_error(std::string(what) + ": the NCCL all-reduce across " + std::to_string(c.size()) +
                                " ranks did not complete within " + std::to_string(static_cast<long>(limit)) +
                                " s (UFUNC_COLLECTIVE_TIMEOUT): a rank died or never entered it; this rank's "
                                "NCCL communicator was aborted");
    }
    // Spin first (a collective usually ends within microseconds), then sleep.
    if (spin < 20000)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace ufunc::detail::nccl

namespace ufunc::detail {
/// The CUDA target's collectives (config.hpp): NCCL's.
template <>
struct collectives<target::cuda> {
  static constexpr bool available = true;
  /// Where NCCL computes what Op computes: sums and products of NCCL's types,
  /// min/max of integers (NCCL's float min/max does not propagate NaN as
  /// ufunc::minimum/maximum do: those gather instead).
  template <class Op, class T>
  static constexpr bool reducible() {
    if constexpr (!nccl::has_type<T>()) return false;
    else if constexpr (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies>) return true;
    else return (std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>) && std::is_integral_v<T>;
  }
  /// In place: buf[i] (count elements on device ids[i]) becomes Op over all
  /// devices' buffers, on every device (all) or on ids[root] only (reducible<Op, T>).
  template <class Op, class T>
  static void reduce(const std::vector<int>& ids, const std::vector<T*>& buf, std::size_t count,
                     const std::vector<stream_ref>& st, bool all, int root = 0) {
    static_assert(reducible<Op, T>(), "ufunc: NCCL does not compute this reduction");
    ncclRedOp_t op = ncclMax;
    if constexpr (std::is_same_v<Op, plus>) op = ncclSum;
    else if constexpr (std::is_same_v<Op, multiplies>) op = ncclProd;
    else if constexpr (std::is_same_v<Op, minimum>) op = ncclMin;
    nccl::reduce<T>(ids, buf, count, op, st, all, root);
  }
  /// Across processes: whether this rank's device has an NCCL communicator
  /// over the ranks of `c` (collective on first use; false where ranks share a GPU).
  static bool spans(const communicator& c, int device) { return nccl::rank_comm(c, device) != nullptr; }
  /// Across processes, in place: buf (count elements on this rank's device)
  /// becomes Op over every rank's buf (reducible<Op, T>; spans(c, device)).
  template <class Op, class T>
  static void allreduce_ranks(const communicator& c, int device, T* buf, std::size_t count, stream_ref st) {
    static_assert(reducible<Op, T>(), "ufunc: NCCL does not compute this reduction");
    ncclRedOp_t op = ncclMax;
    if constexpr (std::is_same_v<Op, plus>) op = ncclSum;
    else if constexpr (std::is_same_v<Op, multiplies>) op = ncclProd;
    else if constexpr (std::is_same_v<Op, minimum>) op = ncclMin;
    std::lock_guard<std::mutex> lock(nccl::enqueue_mutex());
    UFUNC_NCCL_CHECK(ncclAllReduce(buf, buf, count, nccl::type_of<T>(), op, nccl::rank_comm(c, device), st.get()));
  }
  /// Waits for this rank's collective on `st` (allreduce_ranks) for at most
  /// UFUNC_COLLECTIVE_TIMEOUT seconds; then throws communication_error on this
  /// rank, its communicator aborted (nccl::wait_ranks).
  static void wait_ranks(const communicator& c, int device, stream_ref st, const char* what) {
    nccl::wait_ranks(c, device, st, what);
  }
#if defined(UFUNC_TESTING)
  /// Tests: this rank leaves its communicator as a rank that died would (aborted, forgotten).
  static void abandon_ranks(const communicator& c, int device) {
    if (const auto rc = nccl::rank_nccl_of(c, device)) nccl::abandon(c, device, *rc);
  }
#endif
  /// buf[root]'s `bytes` bytes copied into every buf[i].
  static void broadcast(const std::vector<int>& ids, const std::vector<void*>& buf, std::size_t bytes, int root,
                        const std::vector<stream_ref>& st) {
    nccl::broadcast(ids, buf, bytes, root, st);
  }
};
}  // namespace ufunc::detail

#endif
