#!/bin/bash
# Session 13, call 2: segmented sort with the NaNs restored by row (new vs old tree, alternated),
# bench_random + CuPy/PyTorch random peers, bench_host + host_peers (numexpr, Numba) on 16 cores.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(lscpu | grep -E "Model name|Flags" | cut -c1-200; nproc; uptime; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader) | tee $OUT/machine.txt
python3 -c "import numexpr, numba" 2>/dev/null || { mkdir -p /tmp/x && xz -dc $R/.whl/site312.tar.xz | tar -x -C /tmp/x && export PYTHONPATH=/tmp/x/site312; }
python3 -c "import numpy, numexpr, numba, cupy; print('numpy', numpy.__version__, 'numexpr', numexpr.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__)" 2>&1 | tee -a $OUT/machine.txt
cfg() { cmake -S $1 -B $2 -G Ninja -DUFUNC_BACKEND=$3 -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON > $2.cfg.log 2>&1 || tail $2.cfg.log; }
cfg $R /tmp/n cuda & cfg $R/.gpu/old /tmp/o cuda & cfg $R /tmp/h host & wait
(ninja -C /tmp/n -j8 bench_sort bench_random > $OUT/build_n.log 2>&1; echo "new rc $? at $(el) s" >> $OUT/log.txt) &
(ninja -C /tmp/o -j2 bench_sort > $OUT/build_o.log 2>&1; echo "old rc $? at $(el) s" >> $OUT/log.txt) &
(ninja -C /tmp/h -j6 bench_host > $OUT/build_h.log 2>&1; echo "host rc $? at $(el) s" >> $OUT/log.txt) &
wait; cat $OUT/log.txt
for r in 1 2 3; do
  for v in n o; do echo "== bench_sort $v round $r at $(el) s"; timeout 60 /tmp/$v/bench/bench_sort 2>&1 | grep -E "2\^14|segmented|FAIL|mismatch"; done
done 2>&1 | tee $OUT/bench_sort.txt
echo "== bench_random at $(el) s"
timeout 60 /tmp/n/bench/bench_random > $OUT/bench_random.txt 2>&1; grep -E "ratio|ms" $OUT/bench_random.txt | head -8
timeout 60 python3 $R/bench/peers/random_peers.py > $OUT/random_peers.txt 2>&1; cat $OUT/random_peers.txt
echo "== bench_host 16 at $(el) s"; uptime
OMP_NUM_THREADS=16 timeout 170 /tmp/h/bench/bench_host --csv $OUT/host16.csv > $OUT/host16.log 2>&1; echo "rc $?"; tail -30 $OUT/host16.log
echo "== host_peers 16 at $(el) s"
OMP_NUM_THREADS=16 timeout $((570 - $(el))) python3 $R/bench/peers/host_peers.py --csv $OUT/peers16.csv > $OUT/peers16.log 2>&1; echo "rc $?"; tail -40 $OUT/peers16.log
echo "done at $(el) s"
