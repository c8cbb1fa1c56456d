#!/bin/bash
# Call 5: HEAD (A) against reductions' loads without the L2::256B hint (B), and
# B plus the elementwise flat kernel's loads without it (C), alternated.
cd "$(dirname "$0")"
which ncu nsys 2>&1 | head -2; ls /usr/local/cuda/bin | tr '\n' ' '; echo
for v in A B B A; do echo "== bench_reduce $v"; ./bench_reduce_$v 2>&1 | sed -n '/^summary/,$p'; done
for v in A B B A; do echo "== bench_lazy $v"; ./bench_lazy_$v 2>&1 | sed -n '/^summary/,$p'; done
for v in A C C A; do echo "== bench_core $v"; ./bench_core_$v 2>&1 | sed -n '/^summary/,$p'; done
for v in A C C A; do echo "== bench_half $v"; ./bench_half_$v 2>&1 | sed -n '/^summary/,$p'; done
