#!/bin/bash
# Session 17, call 5 (two H200s): examples/random_overflow (one GPU through a lazy leaf, then
# both GPUs through sharded fills) at 10^12 draws.
R=$PWD; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/log.txt
timeout 120 $B/example_random_overflow 2>&1 | tee -a $OUT/log.txt; echo "rc ${PIPESTATUS[0]}" | tee -a $OUT/log.txt
