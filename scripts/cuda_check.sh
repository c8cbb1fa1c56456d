#!/usr/bin/env bash
# The CUDA backend's compile check for a machine without a GPU (CI's last stage):
# every translation unit of the CUDA build goes through nvcc's device front end, and
# a few through the whole compiler, in a fraction of a full build's time.
#   1. the README's two programs and example_multi_gpu (NCCL, several streams) built
#      in full (host and device code, linked), and the header check;
#   2. every other CUDA translation unit (unit tests, NumPy oracle, examples, the
#      docs pages' programs (docs_*, generated from docs/*.md): about a hundred
#      files of template-heavy code): nvcc's device front end only
#      (`-ptx -fdevice-syntax-only`): cicc's EDG front end, which instantiates every
#      template the unit uses, host and device (a host-only error in reduce.hpp's
#      streamed sums, 2026-11-26, was reported this way), and stops before NVVM;
#      no host compile, no link. About half the CPU of cicc at -O0 (bench/NOTES.md,
#      2026-12-02). What only NVVM or ptxas would report (resource limits, inline
#      PTX) is left to step 1's full builds and the GPU machine's.
#   usage: scripts/cuda_check.sh [build-dir]     (default: build-cuda-check)
#   ONLY='regex': step 2 for the matching files alone, and step 1 skipped.
#   ORACLE=0: step 2 without the NumPy oracle's files (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-cuda-check}
JOBS=${JOBS:-$(nproc)}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a-virtual \
  -DCMAKE_BUILD_TYPE= -DCMAKE_CUDA_FLAGS="-Xcicc -O0" -DUFUNC_BUILD_BENCH=OFF \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
if [ -z "${ONLY:-}" ]; then
echo "-- built in full: the README programs, example_multi_gpu, the header check"
cmake --build "$BUILD" -j "$JOBS" --target readme_example readme_streams example_multi_gpu ufunc_header_check
fi
echo "-- nvcc -ptx -fdevice-syntax-only: unit tests, oracle, examples"
python3 - "$BUILD" "$JOBS" <<'EOF'
import json, os, re, shlex, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
build, jobs = os.path.abspath(sys.argv[1]), int(sys.argv[2])  # absolute: nvcc runs in the build folder
only = re.compile(os.environ.get("ONLY", ""))
root = os.getcwd()
cmds = []
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    f = os.path.relpath(e["file"], root)
    # generated in the build folder: the docs pages' programs, the test groups
    built = "/docs_blocks/" in f or "/test_groups/" in f
    if not ((f.startswith("tests/") and "/consumer/" not in f) or f.startswith("examples/") or built) or "nvcc" not in e["command"]:
        continue
    if "readme_" in f or "example_multi_gpu.dir" in e["command"]:
        continue  # built in full above
    if f.startswith("tests/oracle/") and os.environ.get("ORACLE", "1") == "0":
        continue  # CI: the oracle's CUDA build is left to the GPU machine (its 11 files, minutes)
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
    cmds.append((f, out + ["-ptx", "-fdevice-syntax-only", "-o", ptx], e["directory"]))
os.makedirs(os.path.join(build, "ptx-check"), exist_ok=True)
seen = set()
cmds = [c for c in cmds if not (c[0] in seen or seen.add(c[0]))]
# Longest first, so that no long file starts last and leaves a core idle while it
# ends: the files measured longest through the front end (CI, 2026-12-02: 27-86 s
# each; size does not tell), then the sharded tests, then by size.
heavy = ["test_lazy.", "test_random_lazy.", "test_interop", "ring_cases", "rank_cases"]
def size(f):  # a test group (tests/CMakeLists.txt): its members' sizes
    if "/test_groups/" not in f:
        return os.path.getsize(os.path.join(root, f))
    members = re.findall(r'#include "([^"]+)"', open(os.path.join(root, f)).read())
    return sum(os.path.getsize(m) for m in members)
cmds.sort(key=lambda c: -size(c[0]))
cmds.sort(key=lambda c: 0 if any(h in c[0] for h in heavy) else 1 if "sharded" in c[0] else 2)
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
print(f"cuda_check: {len(cmds)} translation units through the device front end")
EOF
