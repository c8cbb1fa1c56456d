#!/bin/bash
# Call 4: why racecheck never ends the shared-stream case ("reduce: back-to-back*",
# test_reduce_more.cpp built on the VM at this session's code, its host-thread count
# read from RC_THREADS): a plain run; racecheck with one host thread; with two, and
# after 100 s the host threads' stacks (gdb where it exists) before it is stopped.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; which gdb; compute-sanitizer --version | tail -1; } > $OUT/gpu.txt 2>&1
B=.gpu/bin/t_rc; TC='-tc=reduce: back-to-back*'
t0=$(date +%s); OMP_NUM_THREADS=16 timeout 60 $B "$TC" > $OUT/plain.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/plain.txt
t0=$(date +%s); RC_THREADS=1 OMP_NUM_THREADS=16 timeout 120 compute-sanitizer --tool racecheck $B "$TC" > $OUT/race1.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/race1.txt
t0=$(date +%s)
RC_THREADS=2 OMP_NUM_THREADS=16 compute-sanitizer --tool racecheck $B "$TC" > $OUT/race2.txt 2>&1 &
pid=$!
for i in $(seq 1 20); do sleep 5; kill -0 $pid 2>/dev/null || break; done
if kill -0 $pid 2>/dev/null; then
  {
    echo "still running after $(( $(date +%s) - t0 )) s"; ps -eLo pid,tid,stat,wchan:32,pcpu,comm | grep -E "t_rc|compute-san|PID" 
    for p in $(pgrep -f "$B"); do echo "== gdb $p"; timeout 60 gdb -batch -ex "thread apply all bt 12" -p $p 2>&1 | grep -vE "^\[New LWP|^$" | head -150; done
  } > $OUT/stacks.txt 2>&1
  sleep 20; ps -eLo pid,tid,stat,wchan:32,pcpu,comm | grep -E "t_rc|compute-san" > $OUT/ps_later.txt
  kill -INT $pid; sleep 5; kill -9 $pid 2>/dev/null; pkill -9 -f "$B"
fi
wait $pid 2>/dev/null; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/race2.txt
tail -3 $OUT/plain.txt $OUT/race1.txt $OUT/race2.txt; head -40 $OUT/stacks.txt 2>/dev/null
