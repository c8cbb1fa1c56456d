#!/bin/bash
# Session 14, call 3: complex matmul (test_complex on the GPU; bench_primitives against
# cublasCgemm and primitives_peers.py's torch/CuPy), bench_matx (ufunc vs MatX, one
# process), bench_lazy + fused_peers.py (torch.compile, cupy.fuse), bench_seeds.
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
B=.gpu/bin; L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $L; cat $B/COMMIT >> $L
echo "== test_complex at $(el) s" >> $L
OMP_NUM_THREADS=16 timeout 60 $B/ufunc_subset_tests > /tmp/t.txt 2>&1; echo "tests rc $?" >> $L; tail -3 /tmp/t.txt >> $L
grep -B4 -A14 "ERROR\|FAILED\|error:" /tmp/t.txt | head -40 >> $L
echo "== bench_primitives at $(el) s" >> $L
timeout 120 $B/bench_primitives > $OUT/primitives.txt 2>&1; echo "rc $?" >> $L
grep -E "complex64 matmul|cublasCgemm|TFLOP|outside|FAIL|add.at|cumsum" $OUT/primitives.txt >> $L
echo "== primitives_peers at $(el) s" >> $L
timeout 90 python3 bench/peers/primitives_peers.py 2>&1 | grep -E "matmul|scatter|Error|error" >> $L
echo "== bench_matx at $(el) s" >> $L
timeout 150 $B/bench_matx $OUT/bench_matx.csv > /tmp/mx.txt 2>&1; echo "rc $?" >> $L
grep -E "ratio|CHECK|FAIL|rror" /tmp/mx.txt >> $L
echo "== bench_lazy at $(el) s" >> $L
timeout 90 $B/bench_lazy > $OUT/lazy.txt 2>&1; echo "rc $?" >> $L
echo "== fused_peers at $(el) s" >> $L
timeout 100 python3 bench/peers/fused_peers.py --peak-gbs 4814 --impls torch,compile,cupy,fuse --csv $OUT/fused.csv > /tmp/fp.txt 2>&1; echo "rc $?" >> $L
grep -E "median|FAILED|rows" /tmp/fp.txt | cut -c1-160 >> $L
echo "== bench_seeds at $(el) s" >> $L
[ -x $B/bench_seeds ] && { timeout 100 $B/bench_seeds $OUT/seeds.csv > /tmp/bs.txt 2>&1; echo "rc $?" >> $L; tail -2 /tmp/bs.txt >> $L; grep CHECK /tmp/bs.txt >> $L; }
echo "done at $(el) s" >> $L
cat $L
