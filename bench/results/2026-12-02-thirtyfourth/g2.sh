#!/bin/bash
# Call 2: (a) racecheck of probe_racecheck.cu (two host threads on one stream, no
# ufunc; built on the VM into .gpu/bin), plain and under racecheck, modes 0-2;
# (b) the GPU suite built again with the units reordered by call 1's times (16 jobs),
# then run at 16 threads, time allowing.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; } > $OUT/gpu.txt
P=.gpu/bin/probe_racecheck
for m in 0 1 2; do
  t0=$(date +%s); timeout 20 $P $m 2 12 >> $OUT/probe.txt 2>&1; echo "plain mode $m rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/probe.txt
done
t0=$(date +%s); timeout 40 compute-sanitizer --tool racecheck $P 0 1 12 >> $OUT/probe.txt 2>&1; echo "racecheck mode 0, 1 thread rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/probe.txt
for m in 0 1 2; do
  t0=$(date +%s); timeout 45 compute-sanitizer --tool racecheck $P $m 2 12 >> $OUT/probe.txt 2>&1; echo "racecheck mode $m, 2 threads rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/probe.txt
done
b_start=$(date +%s)
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/.gpu/nvtime.sh \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.gpu/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 360 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - b_start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
cd $OUT/tu && tar czf ../tu.tgz . && cd - > /dev/null && rm -rf $OUT/tu
left=$(( 590 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> /tmp/tests.txt
  grep -E "^\[doctest\]|ERROR|FAILED|failed|^rc=" /tmp/tests.txt | tail -40 > $OUT/tests_summary.txt
fi
grep -E "mode|ERROR|hazard" $OUT/probe.txt | tail -20; tail -2 $OUT/build.txt; cat $OUT/tests_summary.txt 2>/dev/null
