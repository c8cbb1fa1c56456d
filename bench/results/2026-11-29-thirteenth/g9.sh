#!/bin/bash
# Session 13, call 3: bench_primitives + bench_sort + primitives_peers.py (issue 42);
# bench_host and host_peers at 1 thread on the 16-core host (issue 37).
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(lscpu | grep -E "Model name"; nproc; uptime; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader) | tee $OUT/machine.txt
python3 -c "import numexpr, numba" 2>/dev/null || { mkdir -p /tmp/x && xz -dc $R/.whl/site312.tar.xz | tar -x -C /tmp/x && export PYTHONPATH=/tmp/x/site312; }
cfg() { cmake -S $1 -B $2 -G Ninja -DUFUNC_BACKEND=$3 -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON > $2.cfg.log 2>&1 || tail $2.cfg.log; }
cfg $R /tmp/n cuda & cfg $R /tmp/h host & wait
(ninja -C /tmp/n -j12 bench_primitives bench_sort > $OUT/build_n.log 2>&1; echo "cuda rc $? at $(el) s" >> $OUT/log.txt) &
(ninja -C /tmp/h -j4 bench_host > $OUT/build_h.log 2>&1; echo "host rc $? at $(el) s" >> $OUT/log.txt) &
wait; cat $OUT/log.txt; grep -B2 -A8 "error" $OUT/build_n.log | head -30
echo "== bench_primitives at $(el) s"; timeout 120 /tmp/n/bench/bench_primitives 2>&1 | tee $OUT/bench_primitives.txt
echo "== bench_sort at $(el) s"; timeout 60 /tmp/n/bench/bench_sort 2>&1 | tee $OUT/bench_sort.txt | grep -E "ms|ratio"
echo "== primitives_peers at $(el) s"; (cd $R/bench/peers && timeout 150 python3 primitives_peers.py 2>&1 | tee $OUT/primitives_peers.txt)
echo "== 1 thread at $(el) s"; uptime
export OMP_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1 NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
timeout 150 /tmp/h/bench/bench_host --csv $OUT/host1.csv > $OUT/host1.log 2>&1; echo "rc $?"; head -30 $OUT/host1.log
left=$((580 - $(el))); echo "host_peers with $left s left"
[ $left -gt 30 ] && timeout $left python3 $R/bench/peers/host_peers.py --csv $OUT/peers1.csv > $OUT/peers1.log 2>&1; echo "rc $?"; head -25 $OUT/peers1.log
echo "done at $(el) s"
