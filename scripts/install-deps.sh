#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for building and testing ufunc:
# cmake, ninja and doctest from apt (as root, or through sudo), and NumPy for the
# python3 on PATH (the NumPy oracle test, tests/oracle, and the benchmarks' host peer
# and quick mode, bench/peers/peers.py): apt's python3-numpy for the system python3,
# pip for another python3 first on PATH (pyenv, a venv). The CUDA Toolkit 13
# (nvcc, CCCL) must already be installed, at /usr/local/cuda or on PATH.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/doctest/doctest.h ] || need+=(doctest-dev)
if ! command -v python3 >/dev/null; then
  need+=(python3 python3-numpy)
elif ! python3 -c 'import numpy' 2>/dev/null; then
  case "$(command -v python3)" in
    /usr/bin/python3) need+=(python3-numpy) ;;
    *) ;;  # another python3 (pyenv, a venv): pip, below
  esac
fi
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
# NumPy for the python3 on PATH (which may not be the system one: apt's
# python3-numpy would then be invisible to it): pip first, apt as the fallback.
if ! python3 -c "import numpy" 2>/dev/null; then
  echo "== installing: numpy (pip)"
  python3 -m pip install -q numpy >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages numpy >/dev/null 2>&1 ||
    { sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"; $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy >/dev/null 2>&1; } || true
  python3 -c "import numpy" 2>/dev/null || { echo "install-deps: could not install NumPy for $(command -v python3)" >&2; exit 1; }
fi
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "install-deps: nvcc (CUDA Toolkit 13) not found; install the CUDA Toolkit" >&2; exit 1; }
