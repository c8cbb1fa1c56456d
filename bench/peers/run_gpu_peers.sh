#!/usr/bin/env bash
# Issue 43: the Python peers on the GPU machine, in at most about 6 minutes:
#   keops_probe.py, fused_peers.py (torch eager / torch.compile / CuPy / cupy.fuse),
#   numba_seeds.py, keops_peers.py, then fused_peers.py with
#   torch.compile(mode="max-autotune-no-cudagraphs") in what time is left.
# usage: bench/peers/run_gpu_peers.sh OUTDIR
#   env: PYTHON (default /opt/torch/.venv/bin/python3), QUICK=1 (small sizes),
#        PEAK_GBS / FP32_TFLOPS (the limit columns), BUDGET_S (default 350).
# Needs the ignored folders .whl2/ (numba-cuda, cuda-bindings, cuda-core,
# cuda-pathfinder, pykeops, keopscore, pybind11, packaging: installed into
# /tmp/site) and .whl/site312.tar.xz (numba 0.68.1 + llvmlite for Python 3.12:
# unpacked to /tmp/x/site312) unless /tmp/x/site312 is already there (carried
# in an earlier call of the same lease). Writes to OUTDIR: gpu_peers.log (all
# output), fused.csv, fused_autotune.csv, numba.csv, keops.csv.
set -u
out=${1:?usage: run_gpu_peers.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${PYTHON:-/opt/torch/.venv/bin/python3}
log=$out/gpu_peers.log
exec > >(tee -a "$log") 2>&1
export PYTHONUNBUFFERED=1
budget=${BUDGET_S:-350}
t0=$SECONDS
q=${QUICK:+--quick}
peak=${PEAK_GBS:+--peak-gbs $PEAK_GBS}
tfl=${FP32_TFLOPS:+--fp32-tflops $FP32_TFLOPS}
echo "== run_gpu_peers.sh $(date -u +%FT%TZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null) python $py"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# ---- packages -----------------------------------------------------------------
if [ ! -d /tmp/x/site312/numba ]; then
  if [ -f "$root/.whl/site312.tar.xz" ]; then
    mkdir -p /tmp/x && xz -dc "$root/.whl/site312.tar.xz" | tar -x -C /tmp/x && echo "site312 unpacked ($((SECONDS - t0)) s)"
  else
    echo "WARNING: no /tmp/x/site312 and no .whl/site312.tar.xz: numba (and so numba-cuda) will not import"
  fi
fi
if ls "$root"/.whl2/*.whl >/dev/null 2>&1; then
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$root"/.whl2/*.whl \
    && echo "wheels installed into /tmp/site ($((SECONDS - t0)) s): $(cd "$root/.whl2" && ls *.whl | tr '\n' ' ')"
else
  echo "WARNING: no .whl2/*.whl (numba-cuda, pykeops: not installed)"
fi
export PYTHONPATH=/tmp/site:/tmp/x/site312${PYTHONPATH:+:$PYTHONPATH}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
export KEOPS_CACHE_FOLDER=/tmp/keops_cache
"$py" - <<'EOF'
import importlib, importlib.metadata as md
for p in ("numpy", "torch", "triton", "cupy-cuda13x", "numba", "llvmlite", "numba-cuda", "cuda-bindings", "cuda-core",
          "cuda-pathfinder", "pykeops", "keopscore", "pybind11"):
    try:
        print("  %-16s %s" % (p, md.version(p)))
    except Exception as ex:
        print("  %-16s not found" % p)
for m in ("cuda.bindings", "cuda.core", "cuda.pathfinder", "numba", "pykeops"):
    try:
        print("  %-16s from %s" % (m, importlib.import_module(m).__file__))
    except Exception as ex:
        print("  %-16s import failed: %s: %s" % (m, type(ex).__name__, ex))
EOF

# ---- steps: each under timeout, within the budget -------------------------------
step() {  # step NAME CAP_SECONDS command...
  local name=$1 cap=$2
  shift 2
  local left=$((budget - (SECONDS - t0)))
  local t=$((cap < left ? cap : left))
  if [ "$t" -lt 10 ]; then
    echo "== $name: not run ($left s of the budget left)"
    return
  fi
  echo "== $name (timeout $t s): $*"
  local s=$SECONDS
  timeout -k 5 "$t" "$@"
  echo "== $name: exit $? after $((SECONDS - s)) s"
}
# KeOps builds its NVRTC binder with $CXX at first use. The GPU image sets
# CXX=/opt/gcc/bin/g++, and the binder built by it segfaults in its Compile (every
# formula, every NVRTC): the distribution's /usr/bin/g++ (13.3) works (found on the
# H200 in session 14's call 5; LD_PRELOAD of the toolkit's NVRTC alone did not help).
keops_env=(env LD_LIBRARY_PATH=$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH})
[ -x /usr/bin/g++ ] && keops_env+=(CXX=/usr/bin/g++)

step keops_probe 60 "${keops_env[@]}" "$py" -X faulthandler "$here/keops_probe.py"
step fused_peers 110 "$py" "$here/fused_peers.py" $q $peak --impls torch,compile,cupy,fuse --csv "$out/fused.csv"
step numba_seeds 60 "$py" "$here/numba_seeds.py" $q $peak $tfl --csv "$out/numba.csv"
step keops_peers 90 "${keops_env[@]}" "$py" -X faulthandler "$here/keops_peers.py" $q --csv "$out/keops.csv"
step fused_autotune 90 "$py" "$here/fused_peers.py" $q $peak --impls autotune --csv "$out/fused_autotune.csv"
echo "== done in $((SECONDS - t0)) s; $(cat "$out"/*.csv 2>/dev/null | grep -vc '^workload,') CSV rows"
