// The pairwise cases with both operands sharded (ring_cases.hpp), compiled once
// for the three programs that run them (ufunc_tests' test_sharded_ring.cpp,
// tests/mpi, tests/file_comm), each linking this object: every one of them took
// a minute of g++ under CI's flags, and as long of nvcc -ptx, per file.
#define UFUNC_RING_CASES_HERE
#include "ring_cases.hpp"

namespace ring_cases {

template void run<host>(const ufunc::device_set&, index_t, index_t, std::uint64_t, const check_fn&);
template void errors<host>(const ufunc::device_set&, const ufunc::device_set&, const check_fn&);
#if defined(UFUNC_BACKEND_CUDA)
template void run<ufunc::target::device>(const ufunc::device_set&, index_t, index_t, std::uint64_t, const check_fn&);
#endif

}  // namespace ring_cases
