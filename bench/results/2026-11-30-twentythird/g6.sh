#!/bin/bash
# Call 6 (one H200): test_sum_accuracy (with the 16-bit misaligned views added
# after call 4) and test_array, built here; memcheck over the sum cases.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz && cd /tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
OMP_NUM_THREADS=16 ./subset_sum > $OUT/tests.txt 2>&1; echo "rc=$?" >> $OUT/tests.txt
timeout 200 compute-sanitizer --tool memcheck ./subset_sum -tc="*chunks*,*16-byte*" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
tail -4 $OUT/tests.txt; tail -4 $OUT/memcheck.txt
