#!/usr/bin/env bash
# Builds the GPU programs here (nvcc compiles without a GPU; about 23 minutes on 2
# cores) and packs the executables, stripped, into .prebuilt/gpu-bin.tar.xz
# (git-ignored; about 47 MiB: the device tool carries 64 MiB with the tree). The
# GPU lease then runs instead of compiling (a full build costs 5+ minutes of the
# session's 30 even on 32 cores, and a machine lost between two calls loses it):
#   carry [".prebuilt"], PREBUILT=.prebuilt/gpu-bin.tar.xz STEPS="..." bash scripts/gpu_validate.sh
# (gpu_validate unpacks it with Python's tarfile, which needs no xz binary, and
# finds the shared libraries, NCCL above all, on that machine).
#   usage: scripts/gpu_prebuilt.sh [targets]   (default: the suite, the examples, three benches)
#   JOBS (default nproc), BUILD (default build-gpu)
set -euo pipefail
BUILD=${BUILD:-build-gpu}
BIN=build-gpu-bin
targets=${*:-ufunc_tests ufunc_bounds_tests ufunc_examples bench_half bench_stream bench_multi_gpu}
doctest_opt=()
[ -f .deps/doctest/doctest/doctest.h ] && doctest_opt=(-DUFUNC_DOCTEST_INCLUDE_DIR="$PWD/.deps/doctest")
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  "${doctest_opt[@]}" > /dev/null
args=()
for t in $targets; do args+=(--target "$t"); done
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" "${args[@]}"
rm -rf "$BIN"
mkdir -p "$BIN/tests" "$BIN/examples" "$BIN/bench"
for d in tests examples bench; do
  find "$BUILD/$d" -maxdepth 1 -type f -executable \( -name 'ufunc_*' -o -name 'example_*' -o -name 'bench_*' \) \
    -exec cp {} "$BIN/$d/" \;
done
git rev-parse HEAD > "$BIN/COMMIT"
git diff --quiet HEAD -- include tests examples bench || echo "(with uncommitted changes)" >> "$BIN/COMMIT"
strip --strip-unneeded "$BIN"/*/* 2>/dev/null || true
mkdir -p .prebuilt
tar -cf - "$BIN" | xz -T"${JOBS:-$(nproc)}" -9 -q > .prebuilt/gpu-bin.tar.xz
echo "packed $(find "$BIN" -type f -executable | wc -l) programs ($(du -sm "$BIN" | cut -f1) MiB) into" \
  ".prebuilt/gpu-bin.tar.xz ($(du -sm .prebuilt/gpu-bin.tar.xz | cut -f1) MiB)"
