#!/bin/bash
# Call 8: row kernels reading the reduced stride at a fixed index (probe_prof4)
# against call 7's tree (probe_prof3); argmax's dense kernel with 8 slots a
# round (probe_prof_u8, 58 registers, 4 blocks an SM).
cd "$(dirname "$0")"
for b in probe_prof3 probe_prof4 probe_prof_u8 probe_prof_u8 probe_prof4 probe_prof3; do echo "== $b"; ./$b 2>&1 | grep pass; done
