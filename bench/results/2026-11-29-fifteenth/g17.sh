#!/bin/bash
# Session 15, call 1: probe of the row kernel's U / blocks-per-SM for computed (lazy random)
# sources (issue 41: sum(lazy_normal) >= 0.9 of curandGenerateNormal), and bench_host +
# host_peers (NumPy) at 1 and 16 threads on the Xeon host (issue 37, the new math::exp).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(lscpu | grep -E "Model name|Flags" | cut -c1-200; lscpu | grep -o "avx512[a-z]*" | sort -u | tr '\n' ' '; echo; nproc; uptime; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader) | tee $OUT/machine.txt
for pass in 1 2; do
  vs="u4b8 u1b8 u2b8 u1b16 u2b16 u4b16"; [ $pass = 2 ] && vs="u4b16 u2b16 u1b16 u2b8 u1b8 u4b8"
  for v in $vs; do
    echo "== $v pass $pass at $(el) s"; timeout 60 .gpu/bin/probe_$v 2>&1 | grep -E "check|U=" | tee -a $OUT/probe.txt
  done
done
echo "== bench_host at $(el) s"
for th in 1 16; do
  OMP_NUM_THREADS=$th timeout 100 .gpu/bin/bench_host --csv $OUT/host$th.csv > $OUT/host$th.log 2>&1; echo "threads $th rc $? at $(el) s"
done
head -40 $OUT/host1.log
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
left=$((570 - $(el))); echo "host_peers (1 thread) with $left s left"
[ $left -gt 30 ] && timeout $left /opt/torch/.venv/bin/python3 $R/bench/peers/host_peers.py --csv $OUT/peers1.csv > $OUT/peers1.log 2>&1; echo "rc $?"; head -30 $OUT/peers1.log
echo "done at $(el) s"
