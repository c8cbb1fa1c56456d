#!/bin/bash
# Call 7 (one H200): the whole GPU suite (scripts/gpu_prebuilt.sh ufunc_tests at the
# commit in COMMIT), repacked with xz's x86 filter to fit one call beside the tree (or,
# where it does not, joined from a part a call before kept in /tmp and this call's);
# at 16 threads; memcheck over
# the whole-reduction, streaming and array cases; racecheck over the many-streams
# and shared-stream cases.
start=$(date +%s)
S=$OUT/summary.txt
nvidia-smi -L > $S
if [ -f .gpuB/suite.tar.xz ]; then cp .gpuB/suite.tar.xz /tmp/suite.tar.xz
else cat /tmp/suite.part_a .gpuB/suite.part_b > /tmp/suite.tar.xz || echo "join failed" >> $S; fi
echo "suite archive $(sha256sum /tmp/suite.tar.xz | cut -c1-16) (want $(cat .gpuB/suite.sha256 | cut -c1-16))" >> $S
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('/tmp/suite')" /tmp/suite.tar.xz || echo "unpack failed" >> $S
B=/tmp/suite/build-gpu-bin
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
OMP_NUM_THREADS=16 timeout 300 $B/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "suite rc=$? $(( $(date +%s) - t0 )) s" >> $S
grep -E "^\[doctest\] (test cases|assertions|Status)|ERROR|FAILED" /tmp/tests.txt | tail -30 >> $S
tail -c 15000 /tmp/tests.txt > $OUT/tests_tail.txt
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*,reduce: back-to-back*,array: new result vectors*,streaming: a std::vector call past*"
timeout 120 compute-sanitizer --tool memcheck $B/tests/ufunc_tests -tc="$tc" > /tmp/m.txt 2>&1; echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' /tmp/m.txt) $(grep 'test cases' /tmp/m.txt)" >> $S
timeout 90 compute-sanitizer --tool racecheck $B/tests/ufunc_tests -tc="reduce: whole reductions on many*,reduce: back-to-back*" > /tmp/r.txt 2>&1; echo "racecheck rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/r.txt)" >> $S
echo "total $(( $(date +%s) - start )) s" >> $S
