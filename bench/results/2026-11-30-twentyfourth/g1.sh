#!/bin/bash
# Call 1 (one H200): whole reductions through CUB's dispatch with the lean
# one-block kernels at 16, 8 and 4 nominal items a thread, against HEAD before
# (probe_whole.cu), and f.reduceat with its segmented policy at 16, 8, 4 items
# against HEAD before (bench_reduceat.cu); each set run twice, alternating.
mkdir -p /tmp/x && tar -C /tmp/x -xJf .gpu/bin.tar.xz
nvidia-smi -L > $OUT/gpu.txt
for pass in 1 2; do
  for v in old 16 8 4; do
    echo "=== probe_$v pass $pass" >> $OUT/probe.txt
    /tmp/x/bin/probe_$v >> $OUT/probe.txt 2>&1
  done
done
for pass in 1 2; do
  for v in old 16 8 4; do
    echo "=== reduceat_$v pass $pass" >> $OUT/reduceat.txt
    /tmp/x/bin/reduceat_$v >> $OUT/reduceat.txt 2>&1
  done
done
