#!/bin/bash
# Call 1 (one H200): the tightened test_sum_accuracy (65b2452, built at HEAD),
# the random subset with draw_gen::values' one-draw-at-a-time fallback, and
# bench_random three ways (base = HEAD, sel = the fallback, u4 = sel with
# made_unroll 4), interleaved twice.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/gpu.txt
( $B/sum_acc 2>&1 | tail -5 ) > $OUT/sum_acc.txt
( $B/rand_tests 2>&1 | tail -5 ) > $OUT/rand_tests.txt
for r in 1 2; do for v in base sel u4; do
  echo "== $v round $r" >> $OUT/bench_random.txt
  $B/bench_random_$v >> $OUT/bench_random.txt 2>&1
done; done
cd $OUT && tar -czf results.tar.gz *.txt && ls
