#!/usr/bin/env bash
# The multi-process tests (tests/mpi/test_mpi.cpp: host and GPU shards) on a GPU
# machine that has no MPI: MPICH is brought as the `mpich` wheel from PyPI, which
# ships mpiexec, mpi.h and libmpi (here: `pip download mpich --no-deps -d .gpu/wheels`,
# then carry the folder; the wheel is about 13 MB). The test is built with nvcc against
# it (NCCL where the machine has it: each rank's GPU then joins one NCCL
# communicator), and run with 1 to 4 ranks; ranks take GPUs by local rank modulo the
# GPU count, so more ranks than GPUs share them (host-memory exchange, no NCCL).
# With --bench it also builds bench/bench_mpi.cu and runs it with 2 ranks and, on
# a machine of 4 GPUs or more, 4 (BENCH_MPI_K: the kernel sum's log2 size, 22).
#   usage: scripts/gpu_mpi.sh [--bench] [wheel-dir]   (default .gpu/wheels)
set -uo pipefail
BENCH=0
if [ "${1:-}" = --bench ]; then BENCH=1; shift; fi
WHEELS=${1:-.gpu/wheels}
whl=$(ls "$WHEELS"/mpich-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "gpu_mpi.sh: no mpich wheel in $WHEELS (pip download mpich --no-deps -d $WHEELS)" >&2; exit 1; }
root=$(mktemp -d)
python3 -m zipfile -e "$whl" "$root"
M=$(ls -d "$root"/mpich-*.data/data)
chmod +x "$M"/bin/* 2>/dev/null
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:${LD_LIBRARY_PATH:-}
nccl_h=$(find /usr /opt -name nccl.h 2>/dev/null | head -1)
nccl_so=$(find /usr /opt -name 'libnccl.so*' 2>/dev/null | head -1)
nccl=()
if [ -n "$nccl_h" ] && [ -n "$nccl_so" ]; then
  nccl=(-DUFUNC_HAVE_NCCL -I"$(dirname "$nccl_h")" -L"$(dirname "$nccl_so")" -l:"$(basename "$nccl_so")")
fi
export PATH=/usr/local/cuda/bin:$PATH
# -rpath-link: libmpi's own libfabric, not a system one of another version.
flags=(-std=c++17 -O2 -arch=sm_90a --extended-lambda --expt-relaxed-constexpr -DUFUNC_BACKEND_CUDA
  -Xcompiler -fopenmp -Iinclude -I"$M/include")
link=(-L"$M/lib" -Xlinker -rpath-link="$M/lib/mpich" -lmpi "${nccl[@]}" -ldl)
if [ $BENCH = 1 ]; then  # both programs built side by side
  nvcc "${flags[@]}" -Ibench -x cu bench/bench_mpi.cu -o "$root/bench_mpi" "${link[@]}" > "$root/bench_build.log" 2>&1 &
  bench_pid=$!
fi
# (with the shared rank and ring cases, compiled once each in the CMake build)
nvcc "${flags[@]}" -DUFUNC_TESTING -DUFUNC_POISON_ALLOCATIONS -x cu tests/mpi/test_mpi.cpp tests/rank_cases.cpp \
  tests/ring_cases.cpp -o "$root/test_mpi" "${link[@]}" || exit 1
rc=0
for n in 1 2 3 4; do
  OMP_NUM_THREADS=4 timeout 300 mpiexec -n "$n" "$root/test_mpi" || rc=1
done
if [ $BENCH = 1 ]; then
  wait $bench_pid || { cat "$root/bench_build.log"; exit 1; }
  gpus=$(nvidia-smi -L | wc -l)
  for n in 2 4; do
    [ "$n" -le "$gpus" ] || continue
    timeout 400 mpiexec -n "$n" "$root/bench_mpi" "${BENCH_MPI_K:-22}" || rc=1
  done
fi
exit $rc
