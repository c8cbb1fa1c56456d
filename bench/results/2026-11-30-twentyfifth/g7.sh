#!/bin/bash
# Call 7: the vector column kernel on one reduced dim and CUB's launcher with
# cached occupancy (probe_prof3, probe_cols3) against call 6's tree (probe_prof,
# probe_cols2), and argmax's kernel held to 32 registers (probe_prof_lb).
cd "$(dirname "$0")"
for b in probe_cols2 probe_cols3 probe_cols2 probe_cols3; do echo "== $b"; ./$b 2>&1 | grep "library\|a call"; done
for b in probe_prof probe_prof3 probe_prof_lb probe_prof_lb probe_prof3 probe_prof; do echo "== $b"; ./$b 2>&1 | grep pass; done
