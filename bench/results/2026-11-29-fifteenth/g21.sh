#!/bin/bash
# Session 15, call 6: the lazy-leaf reduction tuning verified (test_random_lazy*, memcheck over
# the lazy reductions, bench_random); bench_sort built here and run with primitives_peers.py's
# torch.topk in one lease (issue 42's topk figure in one run).
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name --format=csv,noheader | tee $L
(cmake -S $R -B /tmp/n -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON > /tmp/cfg.log 2>&1 && \
  ninja -C /tmp/n bench_sort > /tmp/build.log 2>&1; echo "bench_sort build rc $? at $(el) s" >> $L) &
OMP_NUM_THREADS=16 timeout 200 .gpu/bin/ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "tests rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -40
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 .gpu/bin/ufunc_subset_tests -tc="*reduc*,*sum*" \
  > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? at $(el) s" | tee -a $L; tail -4 $OUT/memcheck.txt | tee -a $L
timeout 60 .gpu/bin/bench_random > $OUT/bench_random.txt 2>&1; echo "bench_random rc $? at $(el) s" | tee -a $L
grep -iE "lazy|ratio|FAILED|moments" $OUT/bench_random.txt | tee -a $L
wait; tail -3 /tmp/build.log
if [ -x /tmp/n/bench/bench_sort ]; then
  timeout 90 /tmp/n/bench/bench_sort > $OUT/bench_sort.txt 2>&1; echo "bench_sort rc $? at $(el) s" | tee -a $L
  grep -iE "topk|FAILED" $OUT/bench_sort.txt | tee -a $L
  (cd $R/bench/peers && timeout 120 /opt/torch/.venv/bin/python3 primitives_peers.py > $OUT/primitives_peers.txt 2>&1; echo "peers rc $?" | tee -a $L)
  grep -iE "topk" $OUT/primitives_peers.txt | tee -a $L
  timeout 60 /tmp/n/bench/bench_sort > $OUT/bench_sort2.txt 2>&1; grep -iE "topk" $OUT/bench_sort2.txt | tee -a $L
fi
echo "done at $(el) s" | tee -a $L
