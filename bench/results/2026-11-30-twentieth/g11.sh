# Call 11 (after the review): reduce_made_kernel without its unused Flat parameter (V > 1
# always reads made_vec_fold); the float16 leaf's whole-sum bound without a half
# rounding it never has. test_random_lazy_reduce, test_random_lazy_more,
# test_half_reduce at 16 threads, memcheck over the leaf cases, bench_random.
tar -xJf .gpu/bin.tar.xz -C /tmp
B=/tmp/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== tests"; OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -3
echo "== memcheck"; compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="random lazy*" 2>&1 | tail -3
echo "== bench_random"; $B/bench_random 2>&1 | tail -6
