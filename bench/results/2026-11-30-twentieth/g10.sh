# Call 10: the final code (made kernel with finish_one; 16-bit sums back on CUB):
# test_half_reduce, test_random_lazy_reduce, test_random_lazy_more, test_sum_accuracy
# at 16 threads, memcheck over the made-kernel and 16-bit cases.
tar -xJf .gpu/bin.tar.xz -C /tmp
B=/tmp/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== tests"; OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -3
echo "== memcheck"; compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="*every size*,*16-bit reductions*,16-bit floats*" 2>&1 | tail -3
