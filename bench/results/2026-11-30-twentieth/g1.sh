tar -xJf .gpu/bin.tar.xz -C /tmp
B=/tmp/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== tests"; OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -4
echo "== memcheck"; compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="*every size*,*16-bit reductions*" 2>&1 | tail -3
echo "== bench_random"; $B/bench_random 2>&1 | tail -30
echo "== example"; $B/example_random_overflow 2>&1 | tail -8
