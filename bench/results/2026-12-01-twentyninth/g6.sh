#!/bin/bash
# Call 6 (one H200): scripts/bench_all.sh on the landing code's programs, built on
# this VM (scripts/gpu_prebuilt.sh at the commit in COMMIT; carried in .gpu/bench):
# the benchmark programs first (targets.csv), then the peers (NumPy, CuPy, PyTorch),
# the sweep and the host benchmarks, then the summary.
start=$(date +%s)
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('/tmp/prebuilt')" .gpu/bench/gpu-bin.tar.xz || exit 1
B=/tmp/prebuilt/build-gpu-bin
R=$OUT/h200
mkdir -p $R
cp $B/COMMIT $R/
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader > $R/gpu.txt
missing=$(ldd $B/bench/* 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
echo "missing libraries: $missing" >> $R/gpu.txt
BUILD=$B STEPS="programs" timeout 330 bash scripts/bench_all.sh $R > $R/run_programs.log 2>&1
echo "programs rc=$? at $(( $(date +%s) - start )) s" >> $R/gpu.txt
left=$(( 530 - ($(date +%s) - start) ))
[ $left -gt 30 ] && BUILD=$B STEPS="peers sweep host" timeout $left bash scripts/bench_all.sh $R > $R/run_rest.log 2>&1
echo "rest rc=$? at $(( $(date +%s) - start )) s" >> $R/gpu.txt
BUILD=$B STEPS="plot" timeout 25 bash scripts/bench_all.sh $R > $R/run_plot.log 2>&1
echo "plot rc=$? at $(( $(date +%s) - start )) s" >> $R/gpu.txt
cd $OUT && tar -czf h200.tar.gz h200 && cp h200/gpu.txt h200/summary.md . 2>/dev/null; ls h200 > files.txt
