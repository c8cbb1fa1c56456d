#!/usr/bin/env bash
# Runs a long job on the GPU machine past the device tool's 10-minute call limit.
#   scripts/gpu_bg.sh start JOB [args]   copies the tree to $BG/src, starts
#                                        `bash scripts/JOB args` there detached
#                                        (setsid), then waits as below
#   scripts/gpu_bg.sh wait               waits for the job started earlier
# Each waits up to WAIT seconds (default 540) or until the job ends, then copies
# the job's logs ($BG/logs: at most 8 files come back) to $OUT and prints the
# progress log's tail. The machine stays warm only ~30 s after a call, so the
# next `wait` must follow at once; the job writes $BG/logs/done when it ends.
set -uo pipefail
BG=${BG:-/tmp/gpu-bg}
OUT=${OUT:-$PWD/gpu-out}
WAIT=${WAIT:-540}
mkdir -p "$OUT"
case ${1:-} in
  start)
    shift
    [ -e "$BG/logs" ] && { echo "gpu_bg: a job already ran here ($BG): use wait"; exit 2; }
    mkdir -p "$BG/src" "$BG/logs"
    tar --exclude='./build*' --exclude='./gpu-out' -cf - . | (cd "$BG/src" && tar -xf -)
    job=$1
    shift
    (cd "$BG/src" && LOGS="$BG/logs" setsid nohup bash "scripts/$job" "$@" > "$BG/logs/progress.log" 2>&1 < /dev/null &
     echo $! > "$BG/pid")
    ;;
  wait) [ -e "$BG/logs" ] || { echo "gpu_bg: no job was started on this machine (a fresh one?)"; exit 3; } ;;
  *) echo "usage: gpu_bg.sh start JOB [args] | wait"; exit 2 ;;
esac
t0=$SECONDS
while [ ! -e "$BG/logs/done" ] && [ $((SECONDS - t0)) -lt "$WAIT" ]; do sleep 5; done
cp "$BG"/logs/* "$OUT"/ 2>/dev/null
tail -c 9000 "$BG/logs/progress.log"
if [ -e "$BG/logs/done" ]; then echo "gpu_bg: job ended: $(cat "$BG/logs/done")"; else echo "gpu_bg: still running (call wait again now)"; fi
