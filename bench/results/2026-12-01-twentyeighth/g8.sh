#!/bin/bash
# Call 8 (one H200): the validation of this session's device code, from binaries
# built on the VM (no device build time):
#  - the whole GPU suite (scripts/gpu_prebuilt.sh ufunc_tests at 66c564b: the
#    owed 2198f5a/7bed8ed and the packed argmin/argmax finish) at 16 threads;
#    memcheck over the many-streams, graph-captured and argmin/argmax cases,
#    racecheck over the many-streams case;
#  - test_gufunc at 66b8c4f (16-byte cp.async staging; ufunc_subset_tests built
#    on the VM) and memcheck/racecheck over its GPU case;
#  - bench_gufunc at 66b8c4f, alternated with two experiments (below).
start=$(date +%s)
S=$OUT/summary.txt
nvidia-smi -L > $S
# The suite's archive (59 MB) and the tree exceed one call's 64 MiB: it came in two
# parts, the first in the call before (kept in /tmp on the warm machine).
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('/tmp/prebuilt')" ${PREBUILT_TAR:-.prebuilt/gpu-bin.tar.xz} || echo "unpack failed" >> $S
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('.')" .gpu2/gpu28.tar.xz || echo "unpack (.gpu) failed" >> $S
B=/tmp/prebuilt/build-gpu-bin
echo "prebuilt: $(cat $B/COMMIT | tr '\n' ' ')" >> $S
missing=$(ldd $B/tests/ufunc_tests 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
if [ -n "$missing" ]; then
  dirs=$(python3 -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) + '/lib')" 2>/dev/null)
  for lib in $missing; do
    hit=$(find $dirs /usr/local/cuda*/lib* /usr/lib/x86_64-linux-gnu /usr/local/lib /opt \
            $(python3 -c "import site; print(' '.join(site.getsitepackages()))" 2>/dev/null) -name "$lib" 2>/dev/null | head -1)
    [ -n "$hit" ] && LD_LIBRARY_PATH=$(dirname "$hit")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} && echo "  $lib: $hit" >> $S
  done
  export LD_LIBRARY_PATH
fi
t0=$(date +%s)
OMP_NUM_THREADS=16 timeout 280 $B/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "suite rc=$? $(( $(date +%s) - t0 )) s" >> $S
grep -E "^\[doctest\] (test cases|assertions|Status)|ERROR|FAILED" /tmp/tests.txt | tail -30 >> $S
tail -c 15000 /tmp/tests.txt > $OUT/tests_tail.txt
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*"
timeout 70 compute-sanitizer --tool memcheck $B/tests/ufunc_tests -tc="$tc" > /tmp/m.txt 2>&1; echo "memcheck (reductions) rc=$?: $(grep 'ERROR SUMMARY' /tmp/m.txt) $(grep 'test cases' /tmp/m.txt)" >> $S
timeout 45 compute-sanitizer --tool racecheck $B/tests/ufunc_tests -tc="reduce: whole reductions on many*" > /tmp/r.txt 2>&1; echo "racecheck (many streams) rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/r.txt)" >> $S
OMP_NUM_THREADS=16 timeout 60 .gpu/ufunc_gufunc_tests > /tmp/g.txt 2>&1; echo "test_gufunc rc=$?: $(grep -E 'test cases|assertions' /tmp/g.txt | tr '\n' ' ')" >> $S
timeout 60 compute-sanitizer --tool memcheck .gpu/ufunc_gufunc_tests -tc="gufunc on the GPU*" > /tmp/gm.txt 2>&1; echo "memcheck (gufunc) rc=$?: $(grep 'ERROR SUMMARY' /tmp/gm.txt)" >> $S
timeout 60 compute-sanitizer --tool racecheck .gpu/ufunc_gufunc_tests -tc="gufunc on the GPU*" > /tmp/gr.txt 2>&1; echo "racecheck (gufunc) rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/gr.txt)" >> $S
# bench_gufunc at 66b8c4f (V1), alternated with two experiments on the one-call
# gap (the call 0.85 of a copy where the kernel in batches reaches more): C, the
# kernel's dynamic shared memory cap at the device's opt-in maximum at every call
# (the probe's kernels, set so, showed no gap); D, the largest carveout preferred.
for b in V1 C D V1 C D; do
  left=$(( 460 - ($(date +%s) - start) ))
  [ $left -gt 15 ] && { echo "=== $b"; timeout $left .gpu/bench_gufunc_$b 2>&1 | grep -E "bandwidth / device copy|rows of 16: band|CHECK|FAIL" | grep -v "  target"; } >> $OUT/bench_gufunc.txt
done
echo "total $(( $(date +%s) - start )) s" >> $S
