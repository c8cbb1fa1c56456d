#!/bin/bash
# Session 14, call 6: ufunc's pairwise sums (expf and __expf) and KeOps (CXX=/usr/bin/g++) in one call.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 CUDA_HOME=/usr/local/cuda CUDA_PATH=/usr/local/cuda
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
B=.gpu/bin; L=$OUT/log.txt; PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $L; cat $B/COMMIT >> $L
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl3/*.whl >> $L 2>&1
export PYTHONPATH=/tmp/site
echo "== bench_pairwise at $(el) s" >> $L
timeout 120 $B/bench_pairwise > $OUT/pairwise.txt 2>&1; echo "rc $?" >> $L; grep -E "T/s|time|error" $OUT/pairwise.txt >> $L
echo "== keops at $(el) s" >> $L
env KEOPS_CACHE_FOLDER=/tmp/kc LD_LIBRARY_PATH=/usr/local/cuda/lib64 CXX=/usr/bin/g++ timeout 150 $PY bench/peers/keops_peers.py --csv $OUT/keops.csv > $OUT/keops.txt 2>&1; echo "rc $?" >> $L
grep -E "T pairs|rows" $OUT/keops.txt >> $L
echo "== bench_pairwise again at $(el) s" >> $L
timeout 120 $B/bench_pairwise > $OUT/pairwise2.txt 2>&1; echo "rc $?" >> $L; grep -E "T/s|time" $OUT/pairwise2.txt >> $L
echo "done at $(el) s" >> $L
cat $L
