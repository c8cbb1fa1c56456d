#!/usr/bin/env bash
# The NumPy oracle: for every category, ufunc_oracle_gen writes CASES seeded
# random cases (default 5000) at OMP_NUM_THREADS=16 and again at 1 and 2; check.py
# recomputes every run with NumPy and compares the later runs with the first byte
# for byte (float reductions excepted: their rounding may depend on how the work
# is split; each run is checked against NumPy within the documented bound).
#   tests/oracle/run.sh GEN [OUTDIR]     env: CASES (per category), SEED, CATEGORIES, THREADS ("16 1 2")
# Many more on demand: CASES=100000 tests/oracle/run.sh build/tests/oracle/ufunc_oracle_gen
# Exit 77 when the generator cannot run (a CUDA build without a GPU).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gen=${1:?usage: run.sh path/to/ufunc_oracle_gen [outdir]}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
py=${PYTHON:-python3}
"$py" -c 'import numpy' 2>/dev/null || py=python3  # CMake's Python may not be the one with NumPy
cases=${CASES:-5000}
seed=${SEED:-20261125}
threads=(${THREADS:-16 1 2})
"$py" -c 'import numpy' || { echo "ufunc_oracle: NumPy is missing (scripts/install-deps.sh installs it)"; exit 1; }
cats=${CATEGORIES:-$("$gen" --category list)}
rc=0
for cat in $cats; do
  t0=$(date +%s%N)
  for t in "${threads[@]}"; do
    OMP_DYNAMIC=false OMP_NUM_THREADS=$t "$gen" --category "$cat" --seed "$seed" --cases "$cases" --out "$out/$cat-t$t"
    r=$?
    [ $r -eq 77 ] && exit 77
    [ $r -eq 0 ] || { echo "ufunc_oracle: generator failed ($cat, $t threads)"; rc=1; continue 2; }
  done
  t1=$(date +%s%N)
  first=$out/$cat-t${threads[0]}
  "$py" "$here/check.py" "$first" --gen "$gen" || rc=1
  for t in "${threads[@]:1}"; do
    "$py" "$here/check.py" "$out/$cat-t$t" --same-as "$first" --gen "$gen" || rc=1
  done
  t2=$(date +%s%N)
  printf 'ufunc_oracle: %-15s %d cases x %d thread counts: generate %d ms, check %d ms\n' "$cat" "$cases" \
    "${#threads[@]}" $(((t1 - t0) / 1000000)) $(((t2 - t1) / 1000000))
done
exit $rc
