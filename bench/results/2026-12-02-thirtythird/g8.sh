#!/bin/bash
# Call 5: the shared-stream case under racecheck with two host threads, built with
# cuda_launch::launch_dependent's programmatic serialization off (t_rc2: a copy of
# include/ with the attribute set to 0; otherwise this session's code).
start=$(date +%s)
B=.gpu/bin/t_rc2; TC='-tc=reduce: back-to-back*'
t0=$(date +%s); OMP_NUM_THREADS=16 timeout 30 $B "$TC" > $OUT/plain2.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/plain2.txt
t0=$(date +%s); RC_THREADS=2 OMP_NUM_THREADS=16 timeout 150 compute-sanitizer --tool racecheck $B "$TC" > $OUT/race2_nopdl.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/race2_nopdl.txt
tail -n3 $OUT/plain2.txt; tail -n4 $OUT/race2_nopdl.txt
