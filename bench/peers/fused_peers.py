#!/usr/bin/env python3
"""Issue 43: bench_lazy's fused expressions with what a Python user fuses them with
on the GPU: torch.compile (default mode, and mode="max-autotune-no-cudagraphs"),
cupy.fuse, and plain eager PyTorch / CuPy for comparison. Same workloads and sizes
as bench_lazy.cu (workloads_lazy.hpp):
  fma_chain      x * b + c, 2^27 float32 (the eager form is two kernels)
  six_node       gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w, x y w (8192, 8192),
                 mx my (1, 8192) broadcast along the rows
  dot            sum(x * y), 2^27 float32
  axis_dot       sum(X * Y, axis), 8192^2, axis 0 and 1
  transpose_add  A.T + B, 8192^2 (mixed layouts)
Every result is checked against NumPy float64 before it is timed (a failed check
is printed, its row left out, and the exit status is 1); timing: device events
around one call (gpu_timing.median_ms: 3 warm-up calls after the first call,
which includes compilation and is reported separately, then the median of
`reps`). CSV rows in peers.csv's schema (bench/README.md). An implementation that
fails to compile or run is reported with its traceback and skipped.
  usage: fused_peers.py [--quick] [--impls torch,compile,cupy,fuse,autotune] --csv FILE
  --selftest runs the harness on the host with NumPy in place of the GPU libraries
  (checks, CSV; no GPU needed)."""
import argparse, math, os, sys, time, traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_timing  # noqa: E402
from peers import Recorder, PEAK_SRC, shape_str  # noqa: E402

SQRT_2PI_INV = 0.3989422804


# ---- the math, as a user writes it (xp: numpy, cupy or torch) -----------------
def gaussian_pdf(xp, x, mu, sigma):
    z = (x - mu) / sigma
    return SQRT_2PI_INV / sigma * xp.exp(-0.5 * z * z)


def six_node(xp, x, mx, y, my, w):
    return gaussian_pdf(xp, xp.hypot(x - mx, y - my), 0.0, 1.0) * w


def chain(x, b, c):
    return x * b + c


# ---- data and float64 references (shared by every library) -------------------
def normal(shape, seed):
    """Uniform in [-1, 1) (bench_lazy draws normal numbers; NumPy's float32 normal
    generator takes seconds per 2^27 array, five times its uniform one)."""
    a = np.random.default_rng(seed).random(shape, dtype=np.float32)
    a *= 2
    a -= 1
    return a


class Case:
    """One workload at one size: host inputs, a checker of a host result, the
    bytes a call moves, and the callables per implementation (filled by the
    backends)."""

    def __init__(self, workload, shape, n, nbytes, inputs, check):
        self.workload, self.shape, self.n, self.nbytes = workload, shape, n, nbytes
        self.inputs, self.check = inputs, check


def close_sampled(got, want, pick, rel, atol_scale=None):
    got = np.asarray(got, dtype=np.float64).reshape(-1)[pick]
    err = np.abs(got - want)
    lim = rel * (np.abs(want) if atol_scale is None else atol_scale) + 1e-30
    bad = np.nonzero(~(err <= lim))[0]
    if len(bad):
        i = bad[0]
        return False, "element %d: %.9g, reference %.9g (%d of %d sampled off)" % (i, got[i], want[i], len(bad), len(err))
    return True, ""


def make_cases(quick):
    cases = []
    n = 1 << (16 if quick else 27)
    s = 256 if quick else 8192
    # x * b + c
    x, b, c = normal(n, 1), normal(n, 2), normal(n, 3)
    pick = slice(None, None, max(1, n >> 20))
    want = x[pick].astype(np.float64) * b[pick] + c[pick]
    mag = np.abs(x[pick].astype(np.float64) * b[pick]) + np.abs(c[pick])
    cases.append(Case("fma_chain", shape_str(n), n, 16.0 * n, (x, b, c),
                      lambda got, want=want, mag=mag, pick=pick: close_sampled(got, want, pick, 1e-6, mag)))
    # six nodes with broadcasting
    X, Y, W = normal((s, s), 4), normal((s, s), 5), normal((s, s), 6)
    MX, MY = normal((1, s), 7), normal((1, s), 8)
    rows = np.arange(0, s, max(1, s // 128))
    want6 = six_node(np, X[rows].astype(np.float64), MX.astype(np.float64), Y[rows].astype(np.float64),
                     MY.astype(np.float64), W[rows].astype(np.float64))

    def check6(got, rows=rows, want6=want6):
        g = np.asarray(got, dtype=np.float64)[rows]
        err = np.abs(g - want6)
        lim = 2e-5 * np.abs(want6) + 1e-6 * SQRT_2PI_INV * np.abs(W[rows])
        if np.all(err <= lim):
            return True, ""
        i = np.unravel_index(np.argmax(err - lim), err.shape)
        return False, "[%d, %d]: %.9g, reference %.9g" % (rows[i[0]], i[1], g[i], want6[i])
    cases.append(Case("six_node", shape_str(s, s), s * s, 4.0 * (4.0 * s * s + 2.0 * s), (X, MX, Y, MY, W), check6))
    # sum(x * y)
    y = normal(n, 9)
    d = float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    dmag = float(np.dot(np.abs(x).astype(np.float64), np.abs(y).astype(np.float64)))
    tol = 2 * math.log2(n) * 2.0 ** -24 * dmag + 1e-6

    def check_dot(got, d=d, tol=tol):
        g = float(np.asarray(got))
        return (abs(g - d) <= tol), "%.9g, reference %.9g (tolerance %.3g)" % (g, d, tol)
    cases.append(Case("dot", shape_str(n), n, 8.0 * n, (x, y), check_dot))
    # sum(X * Y, axis)
    X2, Y2 = x[:s * s].reshape(s, s), y[:s * s].reshape(s, s)
    P = X2.astype(np.float64) * Y2
    for ax in (0, 1):
        want_a, mag_a = P.sum(axis=ax), np.abs(P).sum(axis=ax)

        def check_ax(got, want_a=want_a, mag_a=mag_a):
            g = np.asarray(got, dtype=np.float64).reshape(-1)
            err = np.abs(g - want_a)
            lim = 2 * math.log2(s) * 2.0 ** -24 * mag_a + 1e-6
            if np.all(err <= lim):
                return True, ""
            i = int(np.argmax(err - lim))
            return False, "[%d]: %.9g, reference %.9g" % (i, g[i], want_a[i])
        cases.append(Case("axis_dot", shape_str(s, s), s * s, 8.0 * s * s + 4.0 * s, (X2, Y2), check_ax))
        cases[-1].axis = ax
    del P
    # A.T + B
    A, B = normal((s, s), 10), normal((s, s), 11)
    rows_t = np.arange(0, s, max(1, s // 64))
    want_t = A.T[rows_t].astype(np.float64) + B[rows_t]

    def check_t(got, want_t=want_t, rows_t=rows_t):
        g = np.asarray(got, dtype=np.float64)[rows_t]
        ok = bool(np.all(g == want_t.astype(np.float32)))
        return ok, "" if ok else "max error %.3g" % float(np.max(np.abs(g - want_t)))
    cases.append(Case("transpose_add", shape_str(s, s), s * s, 12.0 * s * s, (A, B), check_t))
    return cases


# ---- backends -----------------------------------------------------------------
def torch_backend(impls):
    import torch
    if not torch.cuda.is_available():
        raise ImportError("torch sees no GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = {"name": torch.cuda.get_device_properties(0).name, "cuda": torch.version.cuda or "?",
           "event": lambda: torch.cuda.Event(enable_timing=True), "sync": torch.cuda.synchronize,
           "to": lambda h: torch.from_numpy(np.ascontiguousarray(h)).cuda(), "host": lambda t: t.cpu().numpy(),
           "version": "PyTorch %s" % torch.__version__}
    T = torch

    def eager(case, d):
        out = torch.empty_like(d[0]) if case.workload in ("fma_chain", "six_node", "transpose_add") else None
        if case.workload == "fma_chain":
            return "eager add(mul(x, b), c) into out", lambda: torch.add(torch.mul(d[0], d[1]), d[2], out=out)
        if case.workload == "six_node":
            return "eager ops", lambda: six_node(T, *d)
        if case.workload == "dot":
            return "eager sum(x * y)", lambda: torch.sum(d[0] * d[1])
        if case.workload == "axis_dot":
            return "eager sum(X * Y, dim=%d)" % case.axis, lambda: torch.sum(d[0] * d[1], dim=case.axis)
        if case.workload == "transpose_add":
            return "eager add(A.t(), B) into out", lambda: torch.add(d[0].t(), d[1], out=out)

    def plain(case):
        """The expression as a plain function of tensors, for torch.compile."""
        if case.workload == "fma_chain":
            return chain
        if case.workload == "six_node":
            return lambda x, mx, y, my, w: six_node(T, x, mx, y, my, w)
        if case.workload == "dot":
            return lambda x, y: torch.sum(x * y)
        if case.workload == "axis_dot":
            ax = case.axis
            return lambda x, y: torch.sum(x * y, dim=ax)
        if case.workload == "transpose_add":
            return lambda a, b: a.t() + b

    def compiled(mode):
        def make(case, d):
            torch._dynamo.reset()  # a fresh graph per case: no recompile limits, compile time measured alone
            f = torch.compile(plain(case)) if mode == "default" else torch.compile(plain(case), mode=mode)
            return "torch.compile(%s)" % ("" if mode == "default" else "mode=%r" % mode), lambda: f(*d)
        return make

    makers = []
    if "torch" in impls:
        makers.append(eager)
    if "compile" in impls:
        makers.append(compiled("default"))
    if "autotune" in impls:
        makers.append(compiled("max-autotune-no-cudagraphs"))
    return dev, makers


def cupy_backend(impls):
    import cupy as cp
    p = cp.cuda.runtime.getDeviceProperties(0)
    name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
    dev = {"name": name, "cuda": "%d.%d" % divmod(cp.cuda.runtime.runtimeGetVersion() // 10, 100),
           "event": cp.cuda.Event, "sync": cp.cuda.Device().synchronize, "to": cp.asarray, "host": cp.asnumpy,
           "version": "CuPy %s" % cp.__version__}

    def eager(case, d):
        if case.workload == "fma_chain":
            out = cp.empty_like(d[0])
            return "eager add(multiply(x, b), c) into out", lambda: cp.add(cp.multiply(d[0], d[1]), d[2], out=out)
        if case.workload == "six_node":
            return "eager ops", lambda: six_node(cp, *d)
        if case.workload == "dot":
            return "eager sum(x * y)", lambda: cp.sum(d[0] * d[1])
        if case.workload == "axis_dot":
            return "eager sum(X * Y, axis=%d)" % case.axis, lambda: cp.sum(d[0] * d[1], axis=case.axis)
        if case.workload == "transpose_add":
            out = cp.empty_like(d[1])
            return "eager add(A.T, B) into out", lambda: cp.add(d[0].T, d[1], out=out)

    def fused(case, d):
        # cupy.fuse names its kernel after the function: a lambda's "<lambda>" is not a
        # CUDA identifier (NVRTC fails), so each gets a kernel_name (cupy.fuse(kernel_name=...) returns the decorator).
        if case.workload == "fma_chain":
            f = cp.fuse(kernel_name="fma_chain")(chain)
        elif case.workload == "six_node":
            f = cp.fuse(kernel_name="six_node")(lambda x, mx, y, my, w: six_node(cp, x, mx, y, my, w))
        elif case.workload == "dot":
            f = cp.fuse(kernel_name="dot")(lambda x, y: cp.sum(x * y))
        elif case.workload == "axis_dot":
            ax = case.axis
            f = cp.fuse(kernel_name="axis_dot%d" % ax)(lambda x, y: cp.sum(x * y, axis=ax))
        elif case.workload == "transpose_add":
            f = cp.fuse(kernel_name="transpose_add")(lambda a, b: a + b)
            return "cupy.fuse(a + b)(A.T, B)", lambda: f(d[0].T, d[1])
        return "cupy.fuse", lambda: f(*d)

    makers = []
    if "cupy" in impls:
        makers.append(eager)
    if "fuse" in impls:
        makers.append(fused)
    return dev, makers


def numpy_selftest_backend(impls):
    """The harness on the host: NumPy in place of a GPU library, host clock in
    place of events (to test the checks and the CSV without a GPU)."""
    class Ev:
        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return (other.t - self.t) * 1e3
    dev = {"name": "host (NumPy selftest)", "cuda": "none", "event": Ev, "sync": lambda: None,
           "to": lambda h: np.array(h), "host": np.asarray, "version": "NumPy %s" % np.__version__}

    def eager(case, d):
        w = case.workload
        if w == "fma_chain":
            return "selftest x*b+c", lambda: chain(*d)
        if w == "six_node":
            return "selftest six", lambda: six_node(np, *d)
        if w == "dot":
            return "selftest sum(x*y)", lambda: np.sum(d[0] * d[1])
        if w == "axis_dot":
            return "selftest axis %d" % case.axis, lambda: np.sum(d[0] * d[1], axis=case.axis)
        if w == "transpose_add":
            return "selftest A.T+B", lambda: d[0].T + d[1]

    def broken(case, d):  # a wrong result must be caught
        return "selftest wrong", lambda: eager(case, d)[1]() * 1.001 + 0.5
    return dev, [eager, broken]


# ---- driver -------------------------------------------------------------------
def run_backend(rec, cases, label, backend, impls, peak, reps):
    try:
        dev, makers = backend(impls)
    except Exception as ex:  # noqa: BLE001 - a missing library: say so, go on
        print("fused_peers.py: %s skipped: %s: %s" % (label, type(ex).__name__, ex), flush=True)
        return
    if not makers:
        return
    rec.common.update(device=dev["name"], cuda=dev["cuda"])
    print("fused_peers.py: %s on %s (CUDA %s)" % (dev["version"], dev["name"], dev["cuda"]), flush=True)
    lim = (peak, PEAK_SRC) if peak > 0 else ()
    for case in cases:
        d = [dev["to"](h) for h in case.inputs]
        for make in makers:
            impl = "?"
            try:
                impl, fn = make(case, d)
                impl = "%s %s" % (label, impl)
                t0 = time.perf_counter()
                r = fn()
                dev["sync"]()
                first = time.perf_counter() - t0
                ok, why = case.check(dev["host"](r))
                tag = "%s %s%s" % (case.workload, case.shape, " axis %d" % case.axis if hasattr(case, "axis") else "")
                if not rec.check(ok, "%s: %s: %s" % (impl, tag, why)):
                    continue
                ms = gpu_timing.median_ms(fn, dev["event"], dev["sync"], reps)
                rec.row(case.workload, impl + (" axis %d" % case.axis if hasattr(case, "axis") and "axis" not in impl
                                               and "dim=" not in impl else ""),
                        case.shape, case.n, ms * 1e-3, reps, case.nbytes, "GB/s", *lim)
                rec.progress("%-62s %-14s first call %8.3f s, median %9.4f ms, %7.1f GB/s"
                             % (impl, tag, first, ms, case.nbytes / ms / 1e6))
            except Exception:  # noqa: BLE001 - report exactly, go on with the rest
                print("fused_peers.py: %s on %s %s FAILED:" % (impl, case.workload, case.shape), flush=True)
                traceback.print_exc()
                sys.stdout.flush()
                sys.stderr.flush()
        del d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--impls", default="torch,compile,cupy,fuse,autotune")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--peak-gbs", type=float, default=0.0)
    ap.add_argument("--reps", type=int, default=0)
    a = ap.parse_args()
    quick = a.quick or a.selftest
    reps = a.reps or (5 if quick else 25)
    impls = a.impls.split(",")
    rec = Recorder(a.csv, quick)
    t0 = time.time()
    cases = make_cases(quick)
    print("fused_peers.py: inputs and float64 references in %.1f s" % (time.time() - t0), flush=True)
    if a.selftest:
        run_backend(rec, cases, "NumPy", numpy_selftest_backend, impls, a.peak_gbs, reps)
        # the 'wrong' implementation must have failed every case, the right one none
        want_fail = len(cases)
        print("fused_peers.py selftest: %d rows, %d checks failed (expected %d)" % (rec.rows, rec.failures, want_fail))
        return 0 if rec.failures == want_fail and rec.rows == len(cases) else 1
    if any(i in impls for i in ("torch", "compile", "autotune")):
        run_backend(rec, cases, "PyTorch", torch_backend, impls, a.peak_gbs, reps)
    if any(i in impls for i in ("cupy", "fuse")):
        run_backend(rec, cases, "CuPy", cupy_backend, impls, a.peak_gbs, reps)
    print("fused_peers.py: %d rows in %s, %d checks failed, %.1f s" % (rec.rows, a.csv, rec.failures, time.time() - t0))
    return 1 if rec.failures else 0


if __name__ == "__main__":
    sys.exit(main())
