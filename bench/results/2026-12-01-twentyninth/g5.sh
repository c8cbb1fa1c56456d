#!/bin/bash
# Call 5 (one H200): result std::vectors advised to huge pages (N) against HEAD
# (O): probe_stream_vec (the sweep's streamed std::vector loop, then
# array::to_host), alternated O N O N.
for b in O N O N; do
  echo "=== $b" >> $OUT/probe_vec.txt
  timeout 100 .gpu/psv_$b 5 >> $OUT/probe_vec.txt 2>&1
done
