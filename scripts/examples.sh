#!/usr/bin/env bash
# Builds and runs every example, on any machine: on the GPU when there is one
# (UFUNC_BACKEND=auto picks CUDA when nvcc and a GPU are present), on the host
# backend otherwise. An example that fails on purpose (the UFUNC_DEBUG bounds
# check) passes when it prints its expected message, as under ctest; one that
# needs a GPU it cannot find (a CUDA build on a machine without one) is skipped.
# Shares its build folder with scripts/test.sh.
#   usage: scripts/examples.sh [build-dir]     (default: build)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
bash scripts/configure.sh "$BUILD" || exit 1
export PATH=/usr/local/cuda/bin:$PATH
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" --target ufunc_examples || exit 1

manifest="$BUILD/examples/examples.txt"  # written by examples/CMakeLists.txt
[ -f "$manifest" ] || { echo "examples.sh: $manifest missing (configure with UFUNC_BUILD_EXAMPLES=ON)" >&2; exit 1; }
total=0 passed=0 expected=0 skipped=0 failed=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS=$'\t' read -r name expect; do
  [ -n "$name" ] || continue
  total=$((total + 1))
  echo "=== $name"
  "$BUILD/examples/$name" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [ -n "$expect" ] && [ "$rc" -ne 77 ]; then
    # fails on purpose: passes when it printed what it must
    if grep -Eq -- "$expect" "$log"; then
      expected=$((expected + 1))
      echo "--- $name: expected failure checked (exit $rc, message found)"
    else
      failed+=("$name")
      echo "--- $name: FAILED (expected message not printed: $expect)"
    fi
  elif [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
  elif [ "$rc" -eq 77 ]; then
    skipped=$((skipped + 1))
    echo "--- $name: skipped: no GPU"
  else
    failed+=("$name")
    echo "--- $name: FAILED (exit $rc)"
  fi
done <"$manifest"

summary="$total examples: $passed passed, $expected expected failure$([ "$expected" -eq 1 ] || echo s) checked"
[ "$skipped" -eq 0 ] || summary+=", $skipped skipped (no GPU)"
[ ${#failed[@]} -eq 0 ] || summary+=", ${#failed[@]} failed (${failed[*]})"
echo
echo "$summary"
[ ${#failed[@]} -eq 0 ]
