#!/bin/bash
# Session 18, call 7 (one H200): argmax's round maximum as one chain per slot and a
# tree over the slots (c) against HEAD before the packs (old) and the packs (p):
# bench_lazy, interleaved old, p, c, c, p, old.
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
for v in old p c c p old; do
  timeout 100 $B/${v}_bench_lazy > $OUT/${v}_lazy.txt 2>&1
  echo "$v rc $? at $(el) s: $(grep -E '^(argmax 2|dot =)' $OUT/${v}_lazy.txt | grep -oE '[0-9]+\.[0-9]+ ratio' | tr '\n' ' ')" | tee -a $L
  cat $OUT/${v}_lazy.txt >> $OUT/all.txt; rm -f $OUT/${v}_lazy.txt
done
grep -c "CHECK FAILED" $OUT/all.txt | tee -a $L
