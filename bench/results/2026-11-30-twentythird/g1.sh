#!/bin/bash
# Calls 1-2 (one H200): the subset tests (test_vectorize_large with the new
# pieces case, test_vectorize, test_lazy) and probe_pieces.cu new / old
# alternated; bench_core and bench_lazy new (e95a0e4) / old (0d7e27d).
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz && cd /tmp/w/bin
export OMP_NUM_THREADS=16
./subset_new 2>&1 | tail -3
for i in 1 2; do echo "== new"; ./probe_pieces_new; echo "== old"; ./probe_pieces_old; done > $OUT/probe2.txt 2>&1
for i in 1 2; do for v in new old; do echo "== bench_core $v"; ./bench_core_$v; done; done > $OUT/bench_core.txt 2>&1
for v in new old; do echo "== bench_lazy $v"; ./bench_lazy_$v; done > $OUT/bench_lazy.txt 2>&1
