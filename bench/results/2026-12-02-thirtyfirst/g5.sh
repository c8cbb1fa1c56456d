#!/bin/bash
# Call 5 (one H200): add.at before (probe_at4 built against d25268c's headers) and
# after (this session's f.at), alternated three times in one lease; then probe_at4
# with PROBE_PARTS (add.at's update kernel alone, the copy of a it keeps, a bare
# synchronize) to see what the call pays beside its kernel.
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
for r in 1 2 3; do
  echo "-- before (d25268c)" | tee -a $L; timeout 60 .gpu/probe_at4_old 2>&1 | grep -E "add.at|largest" | tee -a $L
  echo "-- after" | tee -a $L; timeout 60 .gpu/probe_at4 2>&1 | grep -E "add.at|largest" | tee -a $L
done
echo "-- parts" | tee -a $L; timeout 60 .gpu/probe_at4_parts 2>&1 | grep -E "add.at|largest" | tee -a $L
echo "done at $(el) s" | tee -a $L
