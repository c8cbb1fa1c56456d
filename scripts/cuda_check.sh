#!/usr/bin/env bash
# The CUDA backend's compile check for a machine without a GPU (CI's last stage):
# every translation unit of the CUDA build goes through nvcc's front end and
# device compiler, in a fraction of a full build's time.
#   1. the examples, the README's programs, the bounds tests and the header
#      check: built in full (host and device code, linked), so the link is
#      checked too;
#   2. the unit tests and the NumPy oracle (61 translation units of template-heavy
#      code): `nvcc -ptx` only. cicc's EDG front end instantiates the host
#      templates a translation unit uses as well as the device ones (a host-only
#      error in reduce.hpp's streamed sums, 2026-11-26, was reported this way), so
#      what is skipped is GCC's second compile of the host side and the link:
#      about half of nvcc's time per file.
# Both use `-Xcicc -O0` (no NVVM optimisation: test_sharded.cpp's cicc time 11+ min
# -> 3 min, test_reduce_axes.cpp's 38 s at -O0) and PTX for 90a-virtual (no
# ptxas). scripts/gpu_check.sh builds everything at -O3 for sm_90 on the GPU
# machine and runs it.
#   usage: scripts/cuda_check.sh [build-dir]     (default: build-cuda-check)
#   ONLY='regex': step 2 for the matching files alone, and step 1 skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-cuda-check}
JOBS=${JOBS:-$(nproc)}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a-virtual \
  -DCMAKE_BUILD_TYPE= -DCMAKE_CUDA_FLAGS="-Xcicc -O0" -DUFUNC_BUILD_BENCH=OFF \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
if [ -z "${ONLY:-}" ]; then
echo "-- built in full: examples, README programs, bounds tests, header check"
cmake --build "$BUILD" -j "$JOBS" --target ufunc_examples readme_example readme_streams ufunc_bounds_tests \
  ufunc_header_check
fi
echo "-- nvcc -ptx: unit tests and oracle"
python3 - "$BUILD" "$JOBS" <<'EOF'
import json, os, re, shlex, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
build, jobs = sys.argv[1], int(sys.argv[2])
only = re.compile(os.environ.get("ONLY", ""))
root = os.getcwd()
cmds = []
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    f = os.path.relpath(e["file"], root)
    if not (f.startswith("tests/") and "/consumer/" not in f) or "nvcc" not in e["command"]:
        continue
    if "ufunc_subset_tests" in e["command"] or "ufunc_stress_tests" in e["command"]:
        continue  # the same files as ufunc_tests
    if not only.search(f):
        continue
    args = shlex.split(e["command"])
    out = []
    skip = False
    for a in args:  # drop the object output and dependency-file flags, compile to PTX
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a in ("-c", "-MD"):
            continue
        out.append(a)
    ptx = os.path.join(build, "ptx-check", re.sub(r"[^A-Za-z0-9_.]", "_", f) + ".ptx")
    cmds.append((f, out + ["-ptx", "-o", ptx], e["directory"]))
os.makedirs(os.path.join(build, "ptx-check"), exist_ok=True)
seen = set()
cmds = [c for c in cmds if not (c[0] in seen or seen.add(c[0]))]
# Largest first: the longest file (test_sharded.cpp) must not start last.
cmds.sort(key=lambda c: -os.path.getsize(os.path.join(root, c[0])))
cmds.sort(key=lambda c: 0 if "sharded" in c[0] else 1)
def run(c):
    t = time.time()
    p = subprocess.run(c[1], cwd=c[2], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return c[0], p.returncode, p.stdout, time.time() - t
failed = []
with ThreadPoolExecutor(jobs) as ex:
    for i, (f, rc, log, dt) in enumerate(ex.map(run, cmds)):
        print(f"[{i + 1}/{len(cmds)}] {f}: {'ok' if rc == 0 else 'FAILED'} ({dt:.0f} s)", flush=True)
        if rc != 0:
            print(log, flush=True)
            failed.append(f)
if failed or not cmds:
    print("cuda_check: failed:", " ".join(failed) if failed else "no translation units found", file=sys.stderr)
    sys.exit(1)
print(f"cuda_check: {len(cmds)} translation units compiled to PTX")
EOF
