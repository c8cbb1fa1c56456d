#!/bin/bash
# (scatter_peer.py: session 17's, the same file; a verbatim copy ran here, since removed)
# Call 1 (one H200): probe_at2 (add.at against bare atomic kernels with plain and
# streaming loads, the atomics alone, and the steps around the update kernel), then
# cupyx.scatter_add / torch.index_add_ in the same lease.
R=$PWD; L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
timeout 120 .gpu/probe_at2 2>&1 | tee -a $L
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
timeout 90 $PY $R/bench/results/2026-11-29-seventeenth/scatter_peer.py 2>&1 | tee -a $L
timeout 120 .gpu/probe_at2 2>&1 | tail -3 | tee -a $L
