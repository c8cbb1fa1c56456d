#!/usr/bin/env bash
# Compile-time benchmark: what users pay in nvcc time at one call site. Compiles
# bench/compile/*.cu one at a time (nvcc -O3 for sm_90, as a Release CUDA build
# does) and prints seconds, object size and the ratio to the thrust::reduce file.
#   usage: scripts/compile_times.sh [repeats]    (default 3; rounds interleave the files, medians kept)
#   FILES="ufunc_sum ..." times a subset (the first one named is the ratio reference).
#   matx_*.cu probes (NVIDIA MatX, issue 43) compile with -std=c++20 and -I$MATX_INCLUDE
#   (MatX's include dir; bench/README.md "MatX"), e.g.
#   ARCH=90a MATX_INCLUDE=/tmp/matx/include FILES="ufunc_six_node matx_six_node" scripts/compile_times.sh
# Targets (issue 19): ufunc_sum <= 1.5x thrust_reduce, ufunc_vectorize <= 1.2x.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
REPEATS=${1:-3}
ARCH=${ARCH:-90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cccl=$(dirname "$(command -v nvcc)")/../include/cccl
flags=(-O3 "-gencode=arch=compute_$ARCH,code=sm_$ARCH" --extended-lambda -Xcompiler=-fopenmp
       -DUFUNC_BACKEND_CUDA -Iinclude)
[ -d "$cccl" ] && flags+=(-isystem "$cccl")
compile() {  # prints the wall seconds of one compile of bench/compile/$1.cu
  local t0 t1
  local extra=(-std=c++17)
  if [[ $1 == matx_* ]]; then
    [ -f "${MATX_INCLUDE:-}/matx.h" ] || { echo "$1: set MATX_INCLUDE to MatX's include dir" >&2; exit 2; }
    extra=(-std=c++20 -I"$MATX_INCLUDE")
  fi
  t0=$(date +%s%N)
  nvcc "${flags[@]}" "${extra[@]}" -c "bench/compile/$1.cu" -o "$tmp/$1.o"
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1e9}'
}
files=(${FILES:-thrust_reduce ufunc_vectorize ufunc_sum ufunc_sum_axis})
# Rounds over all files (interleaved, so that drift of a shared machine hits each
# file alike); each file's median is kept.
declare -A times
for ((i = 0; i < REPEATS; ++i)); do
  for f in "${files[@]}"; do times[$f]+="$(compile "$f") "; done
done
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-18s %8s %10s %12s %8s\n' file seconds object_MB object_bytes ratio
ref=""
for f in "${files[@]}"; do
  s=$(median "${times[$f]}")
  bytes=$(stat -c %s "$tmp/$f.o")
  [ -z "$ref" ] && ref=$s
  awk -v f="$f" -v s="$s" -v b="$bytes" -v r="$ref" -v all="${times[$f]}" \
    'BEGIN {printf "%-18s %8.1f %10.2f %12d %8.2f   (runs: %s)\n", f, s, b / 1048576, b, s / r, all}'
done
