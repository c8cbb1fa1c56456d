#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for building and testing ufunc:
# cmake, ninja and doctest from apt (as root, or through sudo), and NumPy (the
# benchmarks' host peer and their quick mode in CI: bench/peers/peers.py). The CUDA Toolkit 13
# (nvcc, CCCL) must already be installed, at /usr/local/cuda or on PATH.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/doctest/doctest.h ] || need+=(doctest-dev)
python3 -c "import numpy" 2>/dev/null || need+=(python3-numpy)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # apt's progress and debconf chatter go to a log, shown only if it fails
  log=$(mktemp)
  if ! { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
           -o Dpkg::Use-Pty=0 "${need[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get failed (above)" >&2
    exit 1
  fi
  rm -f "$log"
fi
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "install-deps: nvcc (CUDA Toolkit 13) not found; install the CUDA Toolkit" >&2; exit 1; }
