#!/usr/bin/env bash
# Compile-time benchmark: what users pay in nvcc time at one call site. Compiles
# bench/compile/*.cu one at a time (nvcc -O3 for sm_90, as a Release CUDA build
# does) and prints seconds, object size and the ratio to the thrust::reduce file.
#   usage: scripts/compile_times.sh [repeats]    (default 1; the median is kept)
#   FILES="ufunc_sum ..." times a subset (the first one named is the ratio reference).
# Targets (issue 19): ufunc_sum <= 1.5x thrust_reduce, ufunc_vectorize <= 1.2x.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
REPEATS=${1:-1}
ARCH=${ARCH:-90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
flags=(-O3 -std=c++17 "-gencode=arch=compute_$ARCH,code=sm_$ARCH" --extended-lambda -Xcompiler=-fopenmp
       -DUFUNC_BACKEND_CUDA -Iinclude)
[ -d "$cccl" ] && flags+=(-isystem "$cccl")
time_one() {  # prints the median wall seconds of REPEATS compiles of $1
  local src=$1 obj=$tmp/$(basename "$1" .cu).o ts=()
  for ((i = 0; i < REPEATS; ++i)); do
    local t0 t1
    t0=$(date +%s%N)
    nvcc "${flags[@]}" -c "$src" -o "$obj"
    t1=$(date +%s%N)
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1e9}')")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
printf '%-18s %8s %10s %8s\n' file seconds object_MB ratio
ref=""
for f in ${FILES:-thrust_reduce ufunc_vectorize ufunc_sum ufunc_sum_axis}; do
  s=$(time_one bench/compile/$f.cu)
  bytes=$(stat -c %s "$tmp/$f.o")
  [ -z "$ref" ] && ref=$s
  awk -v f="$f" -v s="$s" -v b="$bytes" -v r="$ref" 'BEGIN {printf "%-18s %8.1f %10.2f %8.2f\n", f, s, b / 1048576, s / r}'
done
