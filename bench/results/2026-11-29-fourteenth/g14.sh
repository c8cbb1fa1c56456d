#!/bin/bash
# Session 14, call 5: KeOps under three environments (its code generation segfaulted in
# nvrtc_jit's Compile); then, one call, ufunc vs MatX (argmax tie rule fixed), bench_lazy,
# fused_peers (cupy.fuse fixed), bench_pairwise (beside KeOps if it runs).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 CUDA_HOME=/usr/local/cuda CUDA_PATH=/usr/local/cuda
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
B=.gpu/bin; L=$OUT/log.txt; PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $L; cat $B/COMMIT >> $L
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl3/*.whl >> $L 2>&1
export PYTHONPATH=/tmp/site
K=/tmp/keops.txt; : > $K
ok=""
try() {  # try NAME env...
  local name=$1; shift
  echo "== keops attempt $name at $(el) s: $*" >> $K
  env KEOPS_CACHE_FOLDER=/tmp/kc-$name LD_LIBRARY_PATH=/usr/local/cuda/lib64 "$@" timeout 90 $PY -X faulthandler bench/peers/keops_peers.py --quick --max-exp 14 --csv /tmp/k-$name.csv >> $K 2>&1
  local rc=$?; echo "== rc $rc" >> $K; [ $rc -eq 0 ] && [ -z "$ok" ] && ok=$name
}
try preload LD_PRELOAD=/usr/local/cuda/lib64/libnvrtc.so.13
try sysgxx LD_PRELOAD=/usr/local/cuda/lib64/libnvrtc.so.13 CXX=/usr/bin/g++
try nopreload_sysgxx CXX=/usr/bin/g++
grep -E "== |Fatal|File \"/tmp/site|Error|error" $K | head -40 >> $L
echo "== keops working env: ${ok:-none} at $(el) s" >> $L
echo "== bench_pairwise at $(el) s" >> $L
timeout 100 $B/bench_pairwise > $OUT/pairwise.txt 2>&1; echo "rc $?" >> $L; grep -E "T/s|time" $OUT/pairwise.txt | head -12 >> $L
if [ -n "$ok" ]; then
  case $ok in preload) E="LD_PRELOAD=/usr/local/cuda/lib64/libnvrtc.so.13";; sysgxx) E="LD_PRELOAD=/usr/local/cuda/lib64/libnvrtc.so.13 CXX=/usr/bin/g++";; *) E="CXX=/usr/bin/g++";; esac
  env KEOPS_CACHE_FOLDER=/tmp/kc-$ok LD_LIBRARY_PATH=/usr/local/cuda/lib64 $E timeout 150 $PY bench/peers/keops_peers.py --csv $OUT/keops.csv >> $L 2>&1
  echo "keops rc $? at $(el) s" >> $L
fi
echo "== bench_matx at $(el) s" >> $L
timeout 150 $B/bench_matx $OUT/bench_matx.csv > /tmp/mx.txt 2>&1; echo "rc $?" >> $L
grep -E "ratio|CHECK|FAIL|rror|argmax" /tmp/mx.txt >> $L
echo "== bench_lazy at $(el) s" >> $L
timeout 90 $B/bench_lazy > $OUT/lazy.txt 2>&1; echo "rc $?" >> $L
echo "== fused_peers at $(el) s" >> $L
timeout 100 $PY bench/peers/fused_peers.py --peak-gbs 4814 --impls torch,compile,cupy,fuse --csv $OUT/fused.csv > /tmp/fp.txt 2>&1; echo "rc $?" >> $L
grep -E "median|FAILED|rows" /tmp/fp.txt | cut -c1-160 >> $L
echo "done at $(el) s" >> $L
cp $K $OUT/keops_attempts.txt
cat $L
