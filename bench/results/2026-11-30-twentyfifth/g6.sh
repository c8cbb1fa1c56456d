#!/bin/bash
# Call 6: the column kernel with its plan reads in registers (probe_cols2,
# probe_prof) against 26780cc (probe_cols_nh, probe_prof_B), alternated; then
# Nsight Compute over one call of each reduction still short of its target.
cd "$(dirname "$0")"
for b in probe_cols_nh probe_cols2 probe_cols_nh probe_cols2; do echo "== $b"; ./$b 2>&1 | grep "library"; done
for b in probe_prof_B probe_prof probe_prof_B probe_prof; do echo "== $b"; ./$b 2>&1 | grep pass; done
ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats ./probe_prof --prof > $OUT/ncu.txt 2>&1
echo "ncu rc $?"
grep -E "^  [a-zA-Z_].*\(|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Grid Size|Block Size|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp Per Scheduler|No Eligible" $OUT/ncu.txt | cut -c1-150
