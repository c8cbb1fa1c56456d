#!/bin/bash
# Call 1 (one H200): the sorts on order bits (issue 38's build time, issue 42).
# The sort tests (test_sort, test_sort_ints, test_sort_half) on the GPU at 16
# threads, memcheck over them, bench_sort new / old alternated, and
# probe_sortpaths (argsort of int32 and uint32, argsort over rows, topk's full
# sort, unique_inverse) new / old alternated. Binaries built on the 2-core VM.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
(time OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -4) > $OUT/tests.txt 2>&1
(time compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="sort*" 2>&1 | tail -4) > $OUT/memcheck.txt 2>&1
for b in bench_sort bench_sort_old bench_sort bench_sort_old; do echo "== $b"; timeout 120 $B/$b; done > $OUT/bench_sort.txt 2>&1
for b in probe_sortpaths_new probe_sortpaths_old probe_sortpaths_new probe_sortpaths_old; do echo "== $b"; timeout 120 $B/$b; done > $OUT/probe.txt 2>&1
cd $OUT && tar -czf results.tar.gz *.txt
