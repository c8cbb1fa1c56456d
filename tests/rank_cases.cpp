// The sharded calls both rank programs run over their communicator
// (rank_cases.hpp: tests/mpi over MPI, tests/file_comm over the file
// rendezvous), compiled once, in the object both link.
#define UFUNC_RANK_CASES_HERE
#include "rank_cases.hpp"

namespace rank_cases {

template void run_case<host>(const ufunc::device_set&, index_t);
template void broadcast_case<host>(const ufunc::device_set&);
template void ring_case<host>(const ufunc::device_set&);
#if defined(UFUNC_BACKEND_CUDA)
template void run_case<ufunc::target::device>(const ufunc::device_set&, index_t);
template void broadcast_case<ufunc::target::device>(const ufunc::device_set&);
template void ring_case<ufunc::target::device>(const ufunc::device_set&);
#endif

}  // namespace rank_cases
