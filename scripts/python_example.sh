#!/usr/bin/env bash
# Builds the Python example (examples/python: the nanobind module ufunc_example)
# and runs its tests. Installs what is missing (nanobind, pytest; numpy is
# expected) with the same python3's pip.
#
#   scripts/python_example.sh [BUILD_DIR] [extra cmake -D options...]
#
# BUILD_DIR defaults to build-py (under the repository root). The backend is the
# one the repository's own build would pick (-DUFUNC_BACKEND=auto: host without a
# GPU); pass e.g. -DUFUNC_BACKEND=host to choose. PYTHON selects the interpreter
# (default python3). Exits non-zero when the build or a test fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build-py}"
[[ $# -gt 0 ]] && shift
case "$build" in /*) ;; *) build="$root/$build" ;; esac
py="${PYTHON:-python3}"
start=$SECONDS

missing=()
"$py" -c "import nanobind" 2>/dev/null || missing+=(nanobind)
"$py" -c "import pytest" 2>/dev/null || missing+=(pytest)
"$py" -c "import numpy" 2>/dev/null || missing+=(numpy)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "python_example: installing ${missing[*]}"
  # A system Python marked externally managed (PEP 668) refuses a plain install.
  "$py" -m pip install -q --disable-pip-version-check "${missing[@]}" ||
    "$py" -m pip install -q --disable-pip-version-check --break-system-packages "${missing[@]}"
fi

generator=()
command -v ninja >/dev/null && [[ ! -f "$build/CMakeCache.txt" ]] && generator=(-G Ninja)
py_exe="$(command -v "$py")"
cmake -S "$root/examples/python" -B "$build" "${generator[@]}" -DPython_EXECUTABLE="$py_exe" "$@"
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"

# No bytecode or pytest cache left in the source tree.
PYTHONPATH="$build${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider "$root/examples/python"
echo "python_example: ok ($((SECONDS - start)) s)"
