#!/bin/bash
# Call 4 (one H200): probe_stream_vec (the sweep's std::vector streaming loop alone)
# as the library is, after host-backend sums, and with OMP_DYNAMIC=false (no team
# cap from the machine's load); nproc and the load beside.
{ nproc; cat /proc/loadavg; nvidia-smi -L; } > $OUT/probe_vec.txt
for mode in plain hostfirst; do
  echo "=== $mode" >> $OUT/probe_vec.txt
  timeout 100 .gpu/psv 7 $mode >> $OUT/probe_vec.txt 2>&1
  echo "=== $mode OMP_DYNAMIC=false" >> $OUT/probe_vec.txt
  OMP_DYNAMIC=false timeout 100 .gpu/psv 7 $mode >> $OUT/probe_vec.txt 2>&1
done
cat /proc/loadavg >> $OUT/probe_vec.txt
