#!/bin/bash
# (scatter_peer.py: session 17's, the same file; a verbatim copy ran here, since removed)
# Call 4 (one H200): add.at against cupyx.scatter_add, alternated five times in one
# lease (probe_at4: add.at and a bare one-update-a-thread kernel interleaved, 3 x 25
# calls; scatter_peer.py: CuPy, then torch.index_add_).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
for r in 1 2 3 4 5; do
  timeout 60 .gpu/probe_at4 2>&1 | grep -E "add.at|largest" | tee -a $L
  timeout 90 $PY $R/bench/results/2026-11-29-seventeenth/scatter_peer.py 2>&1 | tee -a $L
done
echo "done at $(el) s" | tee -a $L
