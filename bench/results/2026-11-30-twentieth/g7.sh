# Call 7: the 16-bit whole-sum pack kernel. Tests, memcheck, then bench_half built
# from HEAD (H, CUB over packs), this tree (new: 16-bit through reduce_packs_kernel)
# and a variant with floats through it too (F), alternated; bench_reduce as built
# here (base) and F.
tar -xJf .gpu/bin.tar.xz -C /tmp
B=/tmp/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== tests"; OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -3
echo "== memcheck"; compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="16-bit floats: reductions*,*chunks*,*every size*" 2>&1 | tail -3
for b in bench_half_H bench_half bench_half_F bench_half_F bench_half bench_half_H; do
  echo "== $b"; $B/$b 2>&1 | grep -i "sum"
done
for b in bench_reduce bench_reduce_F bench_reduce_F bench_reduce; do
  echo "== $b"; $B/$b 2>&1 | grep -i "sum\|CUB" | head -12
done
