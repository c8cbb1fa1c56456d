# Call 9: the single-pass 16-bit whole sum (last block finishes). Tests (with a
# 2^25 + 13 half and bfloat16 case), memcheck and racecheck of the 16-bit cases,
# then bench_half from HEAD (H: CUB over packs) and this tree, alternated.
tar -xJf .gpu/bin.tar.xz -C /tmp
B=/tmp/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== tests"; OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -3
echo "== memcheck"; compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="16-bit floats*" 2>&1 | tail -3
echo "== racecheck"; compute-sanitizer --tool racecheck $B/ufunc_subset_tests -tc="16-bit floats: reductions*" 2>&1 | tail -3
for b in bench_half_H bench_half bench_half_H bench_half bench_half_H bench_half; do
  echo "== $b"; $B/$b 2>&1 | grep -i "sum" | grep -v summary | grep -v "target >="
done
