#!/usr/bin/env bash
# The NumPy oracle: for every category, ufunc_oracle_gen writes CASES seeded
# random cases (default 5000) at OMP_NUM_THREADS=16; check.py recomputes them
# with NumPy. The later thread counts (1 and 2) share those cases: each runs
# LATER_CASES of them (default CASES / 2: 1 takes cases 0-2499, 2 takes
# 2500-4999), check.py recomputes its run with NumPy too and compares it with
# the 16-thread run byte for byte, case by case (float reductions excepted:
# their rounding may depend on how the work is split; each run is checked
# against NumPy within the documented bound). So every case is compared at 16
# threads and at one other count (the few percent of large cases, where the
# host splits work, are about 75 per category at each of 1 and 2), in two
# thirds of the time of running every case at all three (all categories on a
# 2-core VM: 165 s -> 117 s); LATER_CASES=$CASES reruns every case at each.
#   tests/oracle/run.sh GEN [OUTDIR]     env: CASES (per category), SEED, CATEGORIES, THREADS ("16 1 2"),
#                                        LATER_CASES, PART (i/n: every n-th category from the i-th)
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
nlater=$((${#threads[@]} > 1 ? ${#threads[@]} - 1 : 1))
later=${LATER_CASES:-$(((cases + nlater - 1) / nlater))}
"$py" -c 'import numpy' || { echo "ufunc_oracle: NumPy is missing (scripts/install-deps.sh installs it)"; exit 1; }
cats=${CATEGORIES:-$("$gen" --category list)}
if [ -n "${PART:-}" ]; then  # ctest's ufunc_oracle_<i> (tests/oracle/CMakeLists.txt)
  k=0 mine=""
  for cat in $cats; do
    [ $((k % ${PART#*/})) -eq "${PART%/*}" ] && mine+="$cat "
    k=$((k + 1))
  done
  cats=$mine
fi
rc=0
for cat in $cats; do
  t0=$(date +%s%N)
  for i in "${!threads[@]}"; do
    t=${threads[$i]}
    off=0 n=$cases
    if [ "$i" -gt 0 ] && [ "$cases" -gt 0 ]; then  # later counts: LATER_CASES of the first run's cases each
      off=$((((i - 1) * later) % cases))
      n=$((later < cases - off ? later : cases - off))
    fi
    OMP_DYNAMIC=false OMP_NUM_THREADS=$t "$gen" --category "$cat" --seed "$seed" --first "$off" --cases "$n" \
      --out "$out/$cat-t$t"
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
  printf 'ufunc_oracle: %-15s %d cases at %s threads, %d of them at each of %s: generate %d ms, check %d ms\n' "$cat" \
    "$cases" "${threads[0]}" $((later < cases ? later : cases)) "${threads[*]:1}" $(((t1 - t0) / 1000000)) \
    $(((t2 - t1) / 1000000))
done
exit $rc
