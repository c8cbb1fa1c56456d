#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for building and testing ufunc:
# cmake, ninja, doctest and MPICH (the multi-process tests) from apt (as root, or
# through sudo), and NumPy for the
# python3 on PATH (the NumPy oracle test, tests/oracle, and the benchmarks' host peer
# and quick mode, bench/peers/peers.py): apt's python3-numpy for the system python3,
# pip for another python3 first on PATH (pyenv, a venv). The CUDA Toolkit 13
# (nvcc, CCCL) must already be installed, at /usr/local/cuda or on PATH.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/doctest/doctest.h ] || need+=(doctest-dev)
# MPICH: the multi-process tests (tests/mpi, ufunc/mpi.hpp) under mpiexec
command -v mpicxx >/dev/null && command -v mpiexec >/dev/null || need+=(mpich libmpich-dev)
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
# DLPack's header for ufunc/interop.hpp's DLPack tests, unpacked into
# .deps/dlpack/dlpack/dlpack.h (where CMake looks first) from the wheel of the
# DLPack maintainers' PyPI package apache-tvm-ffi (tvm_ffi/include/dlpack/dlpack.h,
# DLPack 1.3): Debian's libdlpack-dev is 0.6, without DLManagedTensorVersioned.
# Only that file is taken; the package is not installed. Skipped when .deps has
# it or the system has a dlpack.h of 1.0 or later; a failed download leaves the
# DLPack tests out of the build (CMake says so) and is not an error.
root="$(cd "$(dirname "$0")/.." && pwd)"
have_dlpack() {
  [ -f "$root/.deps/dlpack/dlpack/dlpack.h" ] && return 0
  for d in /usr/include /usr/local/include; do
    grep -qs '#define DLPACK_MAJOR_VERSION [1-9]' "$d/dlpack/dlpack.h" && return 0
  done
  return 1
}
if ! have_dlpack; then
  echo "== fetching: dlpack/dlpack.h (from the apache-tvm-ffi 0.1.15.post2 wheel, into .deps/dlpack)"
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps --only-binary=:all: apache-tvm-ffi==0.1.15.post2 -d "$tmp" >/dev/null 2>&1 &&
     python3 - "$tmp" "$root/.deps/dlpack/dlpack" <<'EOF'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "apache_tvm_ffi-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:  # a wheel is a zip: read the one header
    header = z.read("tvm_ffi/include/dlpack/dlpack.h")
os.makedirs(sys.argv[2], exist_ok=True)
with open(os.path.join(sys.argv[2], "dlpack.h"), "wb") as f:
    f.write(header)
EOF
  then
    echo "   $(grep -m1 '#define DLPACK_MAJOR_VERSION' "$root/.deps/dlpack/dlpack/dlpack.h")"
  else
    echo "install-deps: could not fetch dlpack.h (pip download of apache-tvm-ffi failed); the DLPack tests are left out" >&2
  fi
  rm -rf "$tmp"
fi
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "install-deps: nvcc (CUDA Toolkit 13) not found; install the CUDA Toolkit" >&2; exit 1; }
