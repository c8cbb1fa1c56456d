#!/bin/bash
# Call 6 (one H200): add.at with the kept copy of a (contiguous a) by cudaMemcpyAsync
# instead of a copy kernel (probe_at4), against the previous build (probe_at4_prev,
# call 5's "after") and d25268c (probe_at4_old), alternated twice; then the parts
# (update kernel 4 a thread and 1 a thread, the two copies, a synchronize).
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
for r in 1 2; do
  for v in old prev new; do
    b=.gpu/probe_at4_$v; [ $v = new ] && b=.gpu/probe_at4
    echo "-- $v" | tee -a $L; timeout 60 $b 2>&1 | grep -E "add.at" | tee -a $L
  done
done
echo "-- parts" | tee -a $L; timeout 60 .gpu/probe_at4_parts 2>&1 | grep -E "add.at|largest" | tee -a $L
echo "done at $(el) s" | tee -a $L
