#!/bin/bash
# Call 2 (one H200): probe_at3 built on the VM at d25268c (before the f.at change).
nvidia-smi -L; timeout 200 .gpu/probe_at3 2>&1 | tee $OUT/probe_at3.txt
