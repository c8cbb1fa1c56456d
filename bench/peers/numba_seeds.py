#!/usr/bin/env python3
"""Issue 43: the seeds' programs in Numba CUDA, written as a Numba user writes them
(the Numba docs' style), against NumPy float64, timed by device events:
  hypot           @vectorize(['float32(float32, float32)'], target='cuda')
  gaussian_pdf    @vectorize, (x, mu, sigma), mu and sigma passed as scalars
  polar_distance  @vectorize, (r1, t1, r2, t2) -> float32, ufunc's polar_f exactly
  sum             @cuda.reduce (result into a device array; and returned to the host)
  matmul          @cuda.jit: the docs' naive kernel and its shared-memory tiled one
                  (TPB = 16), square float32 matrices
  gufunc_dot      @guvectorize('(n),(n)->()', target='cuda'), 2^20 rows of 64
                  (bench_gufunc's dot)
Elementwise calls write into a preallocated device array (out=). Sizes: ufunc's
headline sizes (elementwise and sum 2^24, 2^26, 2^27; matmul 1024, 2048, 4096,
stopping after a call over 1 s). CSV rows in peers.csv's schema (bench/README.md).
A failed check is printed, its row left out, and the exit status is 1; a kernel
that fails to compile or run is reported with its traceback and skipped.

numba-cuda (NVIDIA's CUDA target, the package `numba-cuda`) replaces the built-in
numba.cuda through a .pth file (_numba_cuda_redirector.pth); a directory on
PYTHONPATH has its .pth files ignored, so this script imports the redirector
itself before numba when it is installed.
  usage: numba_seeds.py [--quick] --csv FILE [--peak-gbs G] [--fp32-tflops T]
  NUMBA_ENABLE_CUDASIM=1 numba_seeds.py --sim --csv FILE : tiny sizes on the
  simulator (tests the script's logic without a GPU)."""
import argparse, math, os, sys, time, traceback

import numpy as np

# numba-cuda 0.30.4 registers an overload for np.row_stack, which NumPy 2.5 removed
# (an alias of vstack since NumPy 1.x): without this its import fails with
# "module 'numpy' has no attribute 'row_stack'" (seen on the GPU machine).
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import _numba_cuda_redirector  # noqa: F401 - numba.cuda -> numba_cuda (see above)
except ImportError:
    pass

import gpu_timing  # noqa: E402
from peers import Recorder, PEAK_SRC, shape_str  # noqa: E402

import numba  # noqa: E402
from numba import cuda, float32  # noqa: E402

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    # numba-cuda's simulator cannot build CUDA ufuncs with signatures ('FakeOverload'
    # has no signature): stand-ins that run the same Python bodies element by element
    # on host copies, so that the rest of the script (device arrays, out=, checks,
    # events, CSV) is exercised.
    def vectorize(sigs, target):
        def wrap(f):
            def call(*args, out):
                hs = [a.copy_to_host() if hasattr(a, "copy_to_host") else np.full(len(out), a, np.float32)
                      for a in args]
                out.copy_to_device(np.array([f(*map(np.float32, v)) for v in zip(*hs)], dtype=np.float32))
            return call
        return wrap

    def guvectorize(sigs, layout, target):
        def wrap(f):
            def call(x, y, r):
                hx, hy, hr = x.copy_to_host(), y.copy_to_host(), np.zeros(r.shape, np.float32)
                for i in range(hx.shape[0]):
                    f(hx[i], hy[i], hr[i:i + 1])
                r.copy_to_device(hr)
            return call
        return wrap
else:
    from numba import vectorize, guvectorize  # as in the Numba docs

SQRT_2PI = math.sqrt(2 * math.pi)


# ---- the seeds, in the Numba docs' style ----------------------------------------
@vectorize(['float32(float32, float32)'], target='cuda')
def hypot(a, b):
    return math.sqrt(a * a + b * b)


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def gaussian_pdf(x, mu, sigma):
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * SQRT_2PI)


@vectorize(['float32(float32, float32, float32, float32)'], target='cuda')
def polar_distance(r1, t1, r2, t2):
    x1 = r1 * math.cos(t1)
    y1 = r1 * math.sin(t1)
    x2 = r2 * math.cos(t2)
    y2 = r2 * math.sin(t2)
    return math.sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2))


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    """C = A * B with shared memory (the Numba docs' example)."""
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x    # blocks per grid
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@guvectorize(['void(float32[:], float32[:], float32[:])'], '(n),(n)->()', target='cuda')
def row_dot(x, y, r):
    s = float32(0.)
    for j in range(x.shape[0]):
        s += x[j] * y[j]
    r[0] = s


# ---- references -------------------------------------------------------------------
def np_gauss(x, mu, sigma):
    z = (x - mu) / sigma
    return np.exp(-0.5 * z * z) / (sigma * SQRT_2PI)


def np_polar(r1, t1, r2, t2):
    x1, y1, x2, y2 = r1 * np.cos(t1), r1 * np.sin(t1), r2 * np.cos(t2), r2 * np.sin(t2)
    return np.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)


def uniform(n, seed, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float32)


def close(got, want, rel=1e-5, atol=2e-6):
    got = np.asarray(got, dtype=np.float64)
    err = np.abs(got - want)
    bad = np.nonzero(~(err <= rel * np.abs(want) + atol))[0]
    return (True, "") if not len(bad) else (False, "element %d: %.9g, reference %.9g (%d off)"
                                            % (bad[0], got.reshape(-1)[bad[0]], np.asarray(want).reshape(-1)[bad[0]], len(bad)))


class Runner:
    def __init__(self, rec, peak, tflops, reps):
        self.rec, self.peak, self.tflops, self.reps = rec, peak, tflops, reps

    def one(self, workload, impl, shape, n, amount, unit, fn, check, reps=None):
        """First call (compiles), check, then device-event median; any exception
        is printed with its traceback and the row skipped. Returns ms or None."""
        try:
            t0 = time.perf_counter()
            fn()
            cuda.synchronize()
            first = time.perf_counter() - t0
            ok, why = check()
            if not self.rec.check(ok, "%s %s %s: %s" % (impl, workload, shape, why)):
                return None
            reps = reps or self.reps
            ms = gpu_timing.median_ms(fn, cuda.event, cuda.synchronize, reps)
            if unit == "GB/s":
                lim = (self.peak, PEAK_SRC) if self.peak > 0 else ()
            else:
                lim = (self.tflops, "FP32 peak (SMs x FP32 lanes x 2 x SM clock)") if self.tflops > 0 else ()
            self.rec.row(workload, impl, shape, n, ms * 1e-3, reps, amount, unit, *lim)
            scale = 1e6 if unit == "GB/s" else 1e9
            self.rec.progress("%-58s %-16s first call %7.3f s, median %10.4f ms, %8.2f %s"
                              % (impl, shape, first, ms, amount / ms / scale, unit))
            return ms
        except Exception:  # noqa: BLE001
            print("numba_seeds.py: %s %s %s FAILED:" % (impl, workload, shape), flush=True)
            traceback.print_exc()
            sys.stderr.flush()
            return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sim", action="store_true", help="tiny sizes for NUMBA_ENABLE_CUDASIM=1")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--peak-gbs", type=float, default=0.0)
    ap.add_argument("--fp32-tflops", type=float, default=0.0)
    a = ap.parse_args()
    sim = a.sim or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    impl_name = getattr(cuda, "implementation", "?")
    try:
        import importlib.metadata as md
        vers = ", ".join("%s %s" % (p, md.version(p)) for p in ("numba", "numba-cuda", "cuda-bindings", "cuda-core",
                                                             "cuda-pathfinder", "llvmlite", "numpy")
                         if _has(md, p))
    except Exception:  # noqa: BLE001
        vers = "numba %s" % numba.__version__
    print("numba_seeds.py: numba.cuda from %s (implementation %s); %s" % (os.path.dirname(cuda.__file__), impl_name, vers),
          flush=True)
    if not sim and not cuda.is_available():
        print("numba_seeds.py: numba.cuda sees no GPU", flush=True)
        try:
            cuda.detect()
        except Exception:  # noqa: BLE001
            traceback.print_exc()
        return 1
    rec = Recorder(a.csv, a.quick or sim)
    if not sim:
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
        try:
            rv = cuda.runtime.get_version()
            cv = "%d.%d" % rv
        except Exception:  # noqa: BLE001
            cv = "?"
        rec.common.update(device=name, cuda=cv)
        try:
            from numba.cuda.cuda_paths import get_cuda_paths
            for k, v in get_cuda_paths().items():
                print("  %s: %s" % (k, v), flush=True)
        except Exception as ex:  # noqa: BLE001
            print("  (cuda paths not shown: %s)" % ex)
    else:
        rec.common.update(device="Numba CUDA simulator", cuda="none")
    reps = 3 if sim else (5 if a.quick else 25)
    R = Runner(rec, a.peak_gbs, a.fp32_tflops, reps)
    exps = [10] if sim else ([16, 20] if a.quick else [24, 26, 27])
    two_pi = 6.2831853
    vz = "Numba @vectorize(target='cuda')"

    # ---- elementwise, into out ----------------------------------------------------
    for e in exps:
        n = 1 << e
        pick = slice(None, None, max(1, n >> 20))
        cases = [("hypot", hypot, (uniform(n, 12), uniform(n, 13)), (), lambda a, b: np.sqrt(a * a + b * b), vz),
                 ("gaussian_pdf", gaussian_pdf, (uniform(n, 11, -3, 3),), (np.float32(0.0), np.float32(1.0)),
                  lambda x: np_gauss(x, 0.0, 1.0), vz + " (x, mu, sigma), scalars"),
                 ("polar_distance", polar_distance,
                  (uniform(n, 14, 0, 1), uniform(n, 15, 0, two_pi), uniform(n, 16, 0, 1), uniform(n, 17, 0, two_pi)), (),
                  np_polar, vz)]
        for w, uf, hs, scalars, ref, impl in cases:
            try:
                d = [cuda.to_device(h) for h in hs]
                o = cuda.device_array(n, np.float32)
            except Exception:  # noqa: BLE001
                traceback.print_exc()
                continue
            want = ref(*[h[pick].astype(np.float64) for h in hs])
            R.one(w, impl, shape_str(n), n, 4.0 * (len(hs) + 1) * n, "GB/s",
                  lambda uf=uf, d=d, o=o, scalars=scalars: uf(*d, *scalars, out=o),
                  lambda o=o, want=want, pick=pick: close(o.copy_to_host()[pick], want))
            del d, o

    # ---- sum: @cuda.reduce ----------------------------------------------------------
    for e in exps:
        n = 1 << e
        h = uniform(n, 1)
        ref = float(np.sum(h, dtype=np.float64))
        tol = 2 * e * 2.0 ** -24 * float(np.sum(np.abs(h), dtype=np.float64)) + 1e-6
        d = cuda.to_device(h)
        res = cuda.device_array(1, np.float32)
        R.one("sum", "Numba @cuda.reduce into a device array (res=)", shape_str(n), n, 4.0 * n, "GB/s",
              lambda d=d, res=res: sum_reduce(d, res=res),
              lambda res=res, ref=ref, tol=tol: (abs(float(res.copy_to_host()[0]) - ref) <= tol,
                                                 "%.9g, reference %.9g" % (float(res.copy_to_host()[0]), ref)))
        got = [None]

        def to_host(d=d):
            got[0] = sum_reduce(d)
        R.one("sum", "Numba @cuda.reduce returning a host scalar", shape_str(n), n, 4.0 * n, "GB/s", to_host,
              lambda ref=ref, tol=tol: (abs(float(got[0]) - ref) <= tol, "%.9g, reference %.9g" % (float(got[0]), ref)))
        del d

    # ---- matmul: the docs' kernels ----------------------------------------------------
    sizes = [32] if sim else ([128, 256] if a.quick else [1024, 2048, 4096])
    slow = set()
    for n in sizes:
        hA, hB = uniform(n * n, 41).reshape(n, n), uniform(n * n, 42).reshape(n, n)
        dA, dB, dC = cuda.to_device(hA), cuda.to_device(hB), cuda.device_array((n, n), np.float32)
        idx = [((s * 7919) % n, (s * 104729 + 13) % n) for s in range(64)]
        want = np.array([np.dot(hA[i].astype(np.float64), hB[:, j].astype(np.float64)) for i, j in idx])
        mag = np.array([np.dot(np.abs(hA[i]).astype(np.float64), np.abs(hB[:, j]).astype(np.float64)) for i, j in idx])

        def check_mm(dC=dC, idx=idx, want=want, mag=mag, n=n):
            C = dC.copy_to_host()
            g = np.array([C[i, j] for i, j in idx])
            err = np.abs(g - want)
            lim = 2 * n * 2.0 ** -24 * mag + 1e-6
            return bool(np.all(err <= lim)), "max error / tolerance %.3g" % float(np.max(err / lim))
        tpb = (TPB, TPB)
        bpg = (math.ceil(n / TPB), math.ceil(n / TPB))
        for name, kern in (("Numba @cuda.jit matmul (docs' naive kernel, float64 tmp)", matmul),
                           ("Numba @cuda.jit fast_matmul (docs' shared-memory kernel, TPB=16)", fast_matmul)):
            if name in slow:
                continue
            dC.copy_to_device(np.zeros((n, n), np.float32))  # a stale result must not pass the check
            ms = R.one("matmul", name, shape_str(n, n, n), n, 2.0 * n ** 3, "TFLOP/s",
                       lambda kern=kern, dA=dA, dB=dB, dC=dC, bpg=bpg: kern[bpg, tpb](dA, dB, dC), check_mm,
                       reps=3 if n >= 2048 else None)
            if ms is None or ms > 1000:
                slow.add(name)  # a call over a second: larger sizes not run
        del dA, dB, dC

    # ---- gufunc: row dot products -------------------------------------------------------
    for rows, k in ([(64, 8)] if sim else ([(1 << 14, 64)] if a.quick else [(1 << 20, 64), (1 << 24, 16)])):
        hx, hy = uniform(rows * k, 81).reshape(rows, k), uniform(rows * k, 82).reshape(rows, k)
        dx, dy, dr = cuda.to_device(hx), cuda.to_device(hy), cuda.device_array(rows, np.float32)
        want = np.einsum("ij,ij->i", hx.astype(np.float64), hy.astype(np.float64))
        mag = np.einsum("ij,ij->i", np.abs(hx).astype(np.float64), np.abs(hy).astype(np.float64))
        R.one("gufunc_dot", "Numba @guvectorize('(n),(n)->()', target='cuda')", shape_str(rows, k), rows * k,
              8.0 * rows * k + 4.0 * rows, "GB/s", lambda dx=dx, dy=dy, dr=dr: row_dot(dx, dy, dr),
              lambda dr=dr, want=want, mag=mag, k=k: (
                  bool(np.all(np.abs(dr.copy_to_host() - want) <= k * 2.0 ** -24 * mag + 1e-6)), "row dot mismatch"))
        del dx, dy, dr

    print("numba_seeds.py: %d rows in %s, %d checks failed" % (rec.rows, a.csv, rec.failures), flush=True)
    return 1 if rec.failures else 0


def _has(md, p):
    try:
        md.version(p)
        return True
    except Exception:  # noqa: BLE001
        return False


if __name__ == "__main__":
    sys.exit(main())
