#!/bin/bash
# Call 10: the four benchmark programs the session's changes touch, built at
# 55e3e5f (this session's last device-code change), once each.
cd "$(dirname "$0")"
for p in bench_reduce bench_lazy bench_core bench_half; do echo "== $p"; ./${p}_F 2>&1 | sed -n '/^summary/,$p'; done
