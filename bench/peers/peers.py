#!/usr/bin/env python3
"""The sweep's workloads and sizes with what a user would use instead: NumPy
(host), CuPy (ElementwiseKernel, ReductionKernel, sum, matmul,
ascontiguousarray(a.T)), PyTorch (the same operations; matmul in FP32 with
allow_tf32 = False and separately with TF32) and Numba CUDA (@vectorize, when it
imports and sees a GPU). Same CSV schema as bench_sweep (bench/README.md), same
timing rules: device events around batches of back-to-back calls, a warm-up
round, medians, inputs rotated through copies that together exceed 3 x L2, every
result checked against NumPy before it is timed. A missing peer is skipped with
a message.
  usage: peers.py [--quick] [--peers numpy,cupy,torch,numba] --csv FILE
Exit status 1 when a check failed."""
import argparse, datetime, math, os, statistics, sys, time
import numpy as np

COLS = ("workload,implementation,shape,dtype,n,median_s,reps,throughput,unit,limit,limit_source,"
        "ratio_to_limit,device,cuda,commit,date").split(",")
PEAK_SRC = "peak bandwidth (memory clock x bus x 2)"


class Recorder:
    def __init__(self, path, quick):
        self.f = open(path, "w")
        self.f.write(",".join(COLS) + "\n")
        self.failures = 0
        self.rows = 0
        self.quick = quick
        self.t0 = time.time()
        self.common = {"device": "host", "cuda": "none", "commit": os.environ.get("BENCH_COMMIT", "unknown"),
                       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}

    def row(self, workload, impl, shape, n, sec, reps, amount, unit, limit=0.0, limit_src=""):
        scale = {"GB/s": 1e9, "TFLOP/s": 1e12}.get(unit, 1.0)
        thr = amount / sec / scale if sec > 0 else 0.0
        vals = [workload, impl, shape, "float32", "%.6g" % n, "%.6g" % sec, str(reps), "%.6g" % thr, unit,
                "%.6g" % limit if limit > 0 else "", limit_src if limit > 0 else "",
                "%.6g" % (thr / limit) if limit > 0 else "", self.common["device"], self.common["cuda"],
                self.common["commit"], self.common["date"]]
        self.f.write(",".join('"%s"' % v if "," in v else v for v in vals) + "\n")
        self.f.flush()
        self.rows += 1

    def check(self, ok, what):
        if not ok:
            self.failures += 1
            print("CHECK FAILED: " + what, file=sys.stderr)
        return ok

    def progress(self, what):
        print("[%6.1f s] %s" % (time.time() - self.t0, what), file=sys.stderr, flush=True)


def close(got, want, rel=1e-5, atol=2e-6):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return bool(np.all(np.abs(got - want) <= rel * np.abs(want) + atol))


def uniform(n, seed, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float32)


# The 1-D workloads' inputs and float64 references are made once and shared by
# every peer (callers never write to them): generating and checking them again
# for each library took about a third of the full run.
_memo = {}


def memo(key, make):
    if key not in _memo:
        _memo[key] = make()
    return _memo[key]


def shared_uniform(n, seed, lo=-1.0, hi=1.0):
    return memo(("uniform", n, seed, lo, hi), lambda: uniform(n, seed, lo, hi))


# ---- timing -------------------------------------------------------------------
class Budget:
    def __init__(self, budget_ms, min_reps, max_reps, batch):
        self.budget_ms, self.min_reps, self.max_reps, self.batch = budget_ms, min_reps, max_reps, batch


def measure_host(fns, b):
    """Median seconds per call of each fn, host clock, interleaved rounds."""
    def one(fn):
        t = time.perf_counter()
        for _ in range(b.batch):
            fn()
        return (time.perf_counter() - t) / b.batch
    return rounds(one, fns, sum(one(fn) for fn in fns), b)


def rounds(one, fns, first, b):
    """Medians of `one(fn)` for each fn over interleaved rounds, as many as fit
    the budget given the first round's total time `first` (seconds)."""
    reps = max(b.min_reps, min(b.max_reps, int(b.budget_ms / 1e3 / max(first, 1e-6))))
    ts = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            ts[i].append(one(fn))
    return [(statistics.median(t), reps) for t in ts]


class Device:
    """A GPU library's events and synchronisation (CuPy or PyTorch)."""

    def __init__(self, name, event, sync, l2):
        self.name, self.event, self.sync, self.l2 = name, event, sync, l2

    def measure(self, fns, b):
        batch = [b.batch]

        def one(fn):
            a, z = self.event(), self.event()
            a.record()
            for _ in range(batch[0]):
                fn()
            z.record()
            z.synchronize()
            return self.elapsed(a, z) / 1e3 / batch[0]
        first = 0.0
        for fn in fns:
            fn()
            first += one(fn)
        # calls of a millisecond or more need no batching (events resolve them);
        # batches of ten 30 ms calls made the largest sizes take most of the run
        if first > 1e-3:
            batch[0] = 1
        return rounds(one, fns, first, b)


def rotation(nbytes, l2, cap=64):
    return max(1, min(cap, math.ceil(3 * l2 / max(nbytes, 1))))


def exps(lo, hi, step=1):
    e = list(range(lo, hi, step))
    return e + [hi]


def shape_str(*d):
    return "x".join(str(int(v)) for v in d)


# ---- NumPy (host) ------------------------------------------------------------
def run_numpy(rec, cfg):
    hb = cfg["host"]
    hx = shared_uniform(1 << cfg["hi"], 1)
    for e in exps(cfg["lo"], cfg["hi"]):
        n = 1 << e
        x = hx[:n]
        ref = float(np.sum(x, dtype=np.float64))
        ref_abs = float(np.sum(np.abs(x), dtype=np.float64))
        rec.progress("numpy sum 2^%d" % e)
        if rec.check(close(np.sum(x), ref, 1e-5, 1e-5 * ref_abs), "numpy sum 2^%d" % e):
            (t, r), = measure_host([lambda: np.sum(x)], hb)
            rec.row("sum", "NumPy sum", shape_str(n), n, t, r, 4.0 * n, "GB/s")
        if rec.check(close(np.abs(x).sum(), ref_abs, 1e-5), "numpy abs-sum 2^%d" % e):
            (t, r), = measure_host([lambda: np.abs(x).sum()], hb)
            rec.row("abs_sum", "NumPy abs(x).sum()", shape_str(n), n, t, r, 4.0 * n, "GB/s")
        if e > cfg["host_hi"]:
            continue  # as bench_sweep's host series: seconds a call above 2^host_hi
        for w, f, args in elementwise_cases(n):
            rec.progress("numpy %s 2^%d" % (w, e))
            (t, r), = measure_host([lambda: f(np, *args)], hb)
            rec.row(w, "NumPy", shape_str(n), n, t, r, 4.0 * (len(args) + 1) * n, "GB/s")


def gauss(xp, x):
    return xp.exp(-0.5 * x * x) / np.float32(2.5066282746310002)


def hypot(xp, a, b):
    return xp.sqrt(a * a + b * b)


def polar(xp, r1, t1, r2, t2):
    dx = r1 * xp.cos(t1) - r2 * xp.cos(t2)
    dy = r1 * xp.sin(t1) - r2 * xp.sin(t2)
    return xp.sqrt(dx * dx + dy * dy)


def elementwise_cases(n):
    two_pi = 6.2831853
    u = shared_uniform
    return [("gaussian_pdf", gauss, (u(n, 11, -3, 3),)),
            ("hypot", hypot, (u(n, 12), u(n, 13))),
            ("polar_distance", polar, (u(n, 14, 0, 1), u(n, 15, 0, two_pi), u(n, 16, 0, 1), u(n, 17, 0, two_pi)))]


# ---- CuPy and PyTorch: one set of workloads over a small adapter ---------------
def gpu_workloads(rec, cfg, lib, dev, peak):
    """lib: dict of the library's operations (see make_cupy / make_torch)."""
    L = lib["name"]
    db, hb = cfg["device"], cfg["host"]
    lim = (peak, PEAK_SRC)
    to = lib["to_device"]
    hi = cfg["hi"]
    max_n = 1 << hi
    hx = shared_uniform(max_n, 1)
    x = to(hx)
    # (1), (2) sum and abs-sum
    for e in exps(cfg["lo"], hi):
        n = 1 << e
        k = min(rotation(4 * n, dev.l2), max_n // n)
        ref = float(np.sum(hx[:n], dtype=np.float64))
        ref_abs = float(np.sum(np.abs(hx[:n]), dtype=np.float64))
        tol = 2 * e * 2.0 ** -24 * ref_abs + 1e-6
        hv = hx[:n].copy()
        for w, op, want in (("sum", lib["sum"], ref), ("abs_sum", lib["abs_sum"], ref_abs)):
            rec.progress("%s %s 2^%d" % (L, w, e))
            if not rec.check(abs(float(op(x[:n])) - want) <= tol, "%s %s 2^%d" % (L, w, e)):
                continue
            rot = [0]
            def resident(op=op):
                q = rot[0] % k
                rot[0] += 1
                return op(x[q * n:(q + 1) * n])
            (t, r), = dev.measure([resident], db)
            rec.row(w, "%s %s" % (L, lib[w + "_name"]), shape_str(n), n, t, r, 4.0 * n, "GB/s", *lim)
            (t, r), = measure_host([lambda op=op: float(op(to(hv)))], hb)
            rec.row(w, "%s %s with transfers" % (L, lib[w + "_name"]), shape_str(n), n, t, r, 4.0 * n, "GB/s")
    # (3) elementwise, into out
    for e in exps(cfg["lo"], hi):
        n = 1 << e
        for w, f, args in elementwise_cases(n):
            rec.progress("%s %s 2^%d" % (L, w, e))
            nbytes = 4.0 * (len(args) + 1) * n
            k = rotation(nbytes, dev.l2, 16)
            dargs = [[to(a) for a in args] for _ in range(k)]
            outs = [lib["empty"](n) for _ in range(k)]
            # checked on every element up to 2^20, above that on an evenly spread
            # 2^20 of them (the float64 reference of all 2^27 took most of a minute)
            pick = slice(None, None, max(1, n >> 20))
            want = memo(("want", w, n), lambda: f(np, *[a[pick].astype(np.float64) for a in args]))
            for impl, call in lib["elementwise"](w, f):
                call(*dargs[0], outs[0])
                if not rec.check(close(lib["host"](outs[0])[pick], want, 1e-5, 2e-6), "%s %s %s 2^%d" % (L, impl, w, e)):
                    continue
                rot = [0]
                def run(call=call):
                    q = rot[0] % k
                    rot[0] += 1
                    call(*dargs[q], outs[q])
                (t, r), = dev.measure([run], db)
                rec.row(w, "%s %s" % (L, impl), shape_str(n), n, t, r, nbytes, "GB/s", *lim)
            del dargs, outs
    # (3b) gaussian pdf of host data: host array in, new host array out (issue 14:
    # ufunc's streamed std::vector call against this line at 2^20)
    for e in cfg["host_memory"]:
        n = 1 << e
        rec.progress("%s gaussian_pdf_host 2^%d" % (L, e))
        h = uniform(n, 41, -3, 3)
        want = gauss(np, h.astype(np.float64))
        call = lambda h=h: lib["host_gauss"](h)
        if rec.check(close(call(), want, 1e-5, 2e-6), "%s gaussian_pdf_host 2^%d" % (L, e)):
            (t, r), = measure_host([call], hb)
            rec.row("gaussian_pdf_host", "%s %s" % (L, lib["host_gauss_name"]), shape_str(n), n, t, r, 8.0 * n, "GB/s")
    # (4) call overhead: one kernel into out vs an empty raw launch, interleaved
    for n in (1, 1024, 1 << 16):
        rec.progress("%s call_overhead %d" % (L, n))
        xs, ys = to(uniform(n, 31)), lib["empty"](n)
        fns = [lambda: lib["one_kernel"](xs, ys)]
        names = ["%s %s into out" % (L, lib["one_kernel_name"])]
        if lib.get("raw_launch"):
            fns.append(lib["raw_launch"])
            names.append("%s empty raw launch" % L)
        per = [[] for _ in fns]
        for _ in range(cfg["overhead_rounds"]):
            for i, fn in enumerate(fns):
                t0 = time.perf_counter()
                for _ in range(cfg["overhead_calls"]):
                    fn()
                per[i].append((time.perf_counter() - t0) / cfg["overhead_calls"])
                dev.sync()
        meds = [statistics.median(p) for p in per]
        raw = 1.0 / meds[1] if len(meds) > 1 else 0.0
        for nm, s in zip(names, meds):
            rec.row("call_overhead", nm, shape_str(n), n, s, cfg["overhead_rounds"], 1.0, "calls/s", raw,
                    "empty raw launch, interleaved" if raw else "")
    # (5) matmul
    for n in cfg["matmul"]:
        ha, hb_ = uniform(n * n, 41).reshape(n, n), uniform(n * n, 42).reshape(n, n)
        a, b, c = to(ha), to(hb_), lib["empty"]((n, n))
        idx = [((s * 7919) % n, (s * 104729 + 13) % n) for s in range(64)]
        want = np.array([np.dot(ha[i].astype(np.float64), hb_[:, j].astype(np.float64)) for i, j in idx])
        mag = np.array([np.dot(np.abs(ha[i]).astype(np.float64), np.abs(hb_[:, j]).astype(np.float64)) for i, j in idx])
        for impl, call, rel in lib["matmul"]:
            rec.progress("%s matmul %s %d" % (L, impl, n))
            call(a, b, c)
            got = lib["host"](c)
            g = np.array([got[i, j] for i, j in idx])
            if not rec.check(bool(np.all(np.abs(g - want) <= rel * mag)), "%s %s %d" % (L, impl, n)):
                continue
            (t, r), = dev.measure([lambda call=call: call(a, b, c)], db)
            rec.row("matmul", "%s %s" % (L, impl), shape_str(n, n, n), n, t, r, 2.0 * n ** 3, "TFLOP/s",
                    cfg["fp32_tflops"], "FP32 peak (SMs x FP32 lanes x 2 x SM clock)")
        del a, b, c
    # (6) transpose and a copy
    for r_, c_ in cfg["transpose"]:
        count = r_ * c_
        k = rotation(8.0 * count, dev.l2, 16)
        h = uniform(count, 51).reshape(r_, c_)
        xs = [to(h) for _ in range(k)]
        ys = [lib["empty"]((r_, c_)) for _ in range(k)]
        rec.progress("%s transpose %dx%d" % (L, r_, c_))
        if rec.check(np.array_equal(lib["host"](lib["transpose"](xs[0])), h.T), "%s transpose %dx%d" % (L, r_, c_)):
            rot = [0]
            def tr():
                q = rot[0] % k
                rot[0] += 1
                return lib["transpose"](xs[q])
            def cp_():
                q = rot[0] % k
                rot[0] += 1
                lib["copy"](ys[q], xs[q])
            res = dev.measure([tr, cp_], db)
            rec.row("transpose", "%s %s" % (L, lib["transpose_name"]), shape_str(r_, c_), count, res[0][0], res[0][1],
                    8.0 * count, "GB/s", *lim)
            rec.row("transpose", "%s copy (same bytes)" % L, shape_str(r_, c_), count, res[1][0], res[1][1],
                    8.0 * count, "GB/s", *lim)
        del xs, ys
    # (7) axis reductions
    for r_, c_ in cfg["axis"]:
        count = r_ * c_
        h = uniform(count, 61).reshape(r_, c_)
        k = rotation(4.0 * count, dev.l2, 16)
        xs = [to(h) for _ in range(k)]
        for axis in (0, 1):
            rec.progress("%s axis %d %dx%d" % (L, axis, r_, c_))
            res_ = lib["empty"](c_ if axis == 0 else r_)
            lib["sum_axis"](xs[0], axis, res_)
            want = h.astype(np.float64).sum(axis=axis)
            mag = np.abs(h).astype(np.float64).sum(axis=axis)
            terms = r_ if axis == 0 else c_
            if not rec.check(bool(np.all(np.abs(lib["host"](res_) - want) <= 2 * math.log2(terms) * 2.0 ** -24 * mag + 1e-6)),
                             "%s axis %d" % (L, axis)):
                continue
            rot = [0]
            def ax(axis=axis, res_=res_):
                q = rot[0] % k
                rot[0] += 1
                lib["sum_axis"](xs[q], axis, res_)
            (t, r), = dev.measure([ax], db)
            rec.row("axis_sum", "%s sum axis %d" % (L, axis), shape_str(r_, c_), count, t, r,
                    4.0 * (count + (c_ if axis == 0 else r_)), "GB/s", *lim)
        del xs
    # fused expressions: x * b + c, dot, argmax
    for e in exps(cfg["lazy_lo"], hi, cfg["lazy_step"]):
        n = 1 << e
        k = min(rotation(16.0 * n, dev.l2), max_n // n)
        hb1, hc1 = shared_uniform(max_n, 72), shared_uniform(max_n, 73)
        if e == cfg["lazy_lo"]:
            xb, xc, xy = to(hb1), to(hc1), lib["empty"](max_n)
        rec.progress("%s fma_chain, dot, argmax 2^%d" % (L, e))
        want = hx[:n].astype(np.float64) * hb1[:n] + hc1[:n]
        for impl, call in lib["fma"]:
            call(x[:n], xb[:n], xc[:n], xy[:n])
            if not rec.check(close(lib["host"](xy[:n]), want, 1e-5, 1e-6), "%s %s" % (L, impl)):
                continue
            rot = [0]
            def fm(call=call):
                q = rot[0] % k
                rot[0] += 1
                s = slice(q * n, (q + 1) * n)
                call(x[s], xb[s], xc[s], xy[s])
            (t, r), = dev.measure([fm], db)
            rec.row("fma_chain", "%s %s" % (L, impl), shape_str(n), n, t, r, 16.0 * n, "GB/s", *lim)
        dref = float(np.dot(hx[:n].astype(np.float64), hb1[:n]))
        dmag = float(np.dot(np.abs(hx[:n]).astype(np.float64), np.abs(hb1[:n])))
        if rec.check(abs(float(lib["dot"](x[:n], xb[:n])) - dref) <= 2 * e * 2.0 ** -24 * dmag + 1e-6, "%s dot" % L):
            rot = [0]
            def dt():
                q = rot[0] % k
                rot[0] += 1
                return lib["dot"](x[q * n:(q + 1) * n], xb[q * n:(q + 1) * n])
            (t, r), = dev.measure([dt], db)
            rec.row("dot", "%s dot" % L, shape_str(n), n, t, r, 8.0 * n, "GB/s", *lim)
        if rec.check(int(lib["argmax"](x[:n])) == int(np.argmax(hx[:n])), "%s argmax" % L):
            rot = [0]
            def am():
                q = rot[0] % k
                rot[0] += 1
                return lib["argmax"](x[q * n:(q + 1) * n])
            (t, r), = dev.measure([am], db)
            rec.row("argmax", "%s argmax" % L, shape_str(n), n, t, r, 4.0 * n, "GB/s", *lim)
    # pairwise (issue 15): the dense method, an N x M matrix, where it fits
    if "kernel_sum" in lib:
        quick = cfg.get("quick", False)
        for e in exps(8 if quick else 10, 10 if quick else 18, 2):
            n = 1 << e
            need = 4.0 * n * n
            if e > 14:
                print("%s pairwise 2^%d: the dense N x M float32 matrix needs %.1f GB; not run" % (L, e, need / 1e9),
                      file=sys.stderr)
                continue
            hxp = uniform(3 * n, 91).reshape(n, 3)
            hyp = uniform(3 * n, 92).reshape(n, 3)
            hbp = uniform(n, 93, 0.0, 1.0)
            xd, yd, bd = to(hxp), to(hyp), to(hbp)
            rows = range(0, n, max(1, n // 16))
            d2s = ((hxp.astype(np.float64)[list(rows), None, :] - hyp.astype(np.float64)[None, :, :]) ** 2).sum(-1)
            want = np.exp(-0.5 * d2s) @ hbp.astype(np.float64)
            mag = np.exp(-0.5 * d2s) @ np.abs(hbp.astype(np.float64))
            got = lib["host"](lib["kernel_sum"](xd, yd, bd))[list(rows)]
            pairs = float(n) * n
            rec.progress("%s kernel_sum_3d 2^%d" % (L, e))
            if rec.check(np.all(np.abs(got - want) <= 1e-4 * mag + 1e-5), "%s kernel_sum_3d 2^%d" % (L, e)):
                (t, r), = dev.measure([lambda: lib["kernel_sum"](xd, yd, bd)], db)
                rec.row("kernel_sum_3d", "%s %s" % (L, lib["kernel_sum_name"]), shape_str(n, n), pairs, t, r, pairs, "pairs/s")
            nn = lib["host"](lib["knn"](xd, yd))[list(rows)]
            best = d2s.min(axis=1)
            okn = np.all(d2s[np.arange(len(best)), nn] <= best * (1 + 1e-5) + 1e-9)
            if rec.check(bool(okn), "%s knn_3d 2^%d" % (L, e)):
                (t, r), = dev.measure([lambda: lib["knn"](xd, yd)], db)
                rec.row("knn_3d", "%s %s" % (L, lib["knn_name"]), shape_str(n, n), pairs, t, r, pairs, "pairs/s")


def make_cupy(cfg):
    import cupy as cp
    devp = cp.cuda.runtime.getDeviceProperties(0)
    name = devp["name"].decode() if isinstance(devp["name"], bytes) else devp["name"]
    l2 = cp.cuda.Device(0).attributes.get("L2CacheSize", 50 << 20)
    dev = Device("cupy", cp.cuda.Event, cp.cuda.runtime.deviceSynchronize, l2)
    dev.elapsed = lambda a, z: cp.cuda.get_elapsed_time(a, z)
    ek_gauss = cp.ElementwiseKernel("float32 x", "float32 y", "y = expf(-0.5f * x * x) / 2.5066282746310002f", "gauss")
    ek_hypot = cp.ElementwiseKernel("float32 a, float32 b", "float32 y", "y = sqrtf(a * a + b * b)", "hyp")
    ek_polar = cp.ElementwiseKernel(
        "float32 r1, float32 t1, float32 r2, float32 t2", "float32 y",
        "float dx = r1 * cosf(t1) - r2 * cosf(t2); float dy = r1 * sinf(t1) - r2 * sinf(t2); y = sqrtf(dx * dx + dy * dy)",
        "polar")
    ek_fma = cp.ElementwiseKernel("float32 x, float32 b, float32 c", "float32 y", "y = x * b + c", "fma3")
    rk_abs = cp.ReductionKernel("float32 x", "float32 y", "fabsf(x)", "a + b", "y = a", "0", "abssum")
    raw = cp.RawKernel(r'extern "C" __global__ void empty() {}', "empty")
    r0 = cp.empty((), cp.float32)
    eks = {"gaussian_pdf": ek_gauss, "hypot": ek_hypot, "polar_distance": ek_polar}
    lib = {
        "name": "CuPy", "to_device": cp.asarray, "host": cp.asnumpy,
        "empty": lambda s: cp.empty(s, cp.float32),
        "sum": lambda v: cp.sum(v, out=r0), "sum_name": "sum",
        "abs_sum": lambda v: rk_abs(v, out=r0), "abs_sum_name": "ReductionKernel abs-sum",
        "elementwise": lambda w, f: [("ElementwiseKernel", lambda *a: eks[w](*a[:-1], a[-1])),
                                     ("array expression", lambda *a: a[-1].__setitem__(Ellipsis, f(cp, *a[:-1])))],
        "one_kernel": lambda a, o: ek_gauss(a, o), "one_kernel_name": "ElementwiseKernel gaussian",
        "host_gauss": lambda h: cp.asnumpy(ek_gauss(cp.asarray(h))),
        "host_gauss_name": "asnumpy(kernel(asarray(h)))",
        "raw_launch": lambda: raw((1,), (32,), ()),
        "matmul": [("matmul", lambda a, b, c: cp.matmul(a, b, out=c), 1e-5)],
        "transpose": lambda a: cp.ascontiguousarray(a.T), "transpose_name": "ascontiguousarray(a.T)",
        "copy": lambda d, s: cp.copyto(d, s),
        "sum_axis": lambda a, ax, o: cp.sum(a, axis=ax, out=o),
        "fma": [("ElementwiseKernel x*b+c", lambda x, b, c, y: ek_fma(x, b, c, y)),
                ("eager add(multiply(x, b), c)", lambda x, b, c, y: cp.add(cp.multiply(x, b), c, out=y))],
        "dot": lambda a, b: cp.dot(a, b, out=r0), "argmax": cp.argmax,
        "kernel_sum": lambda x, y, b: cp.exp(-0.5 * ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)) @ b,
        "kernel_sum_name": "dense exp(-d2/2) @ b",
        "knn": lambda x, y: cp.argmin(((x[:, None, :] - y[None, :, :]) ** 2).sum(-1), axis=1),
        "knn_name": "dense argmin(d2)",
    }
    return lib, dev, name, "%d.%d" % divmod(cp.cuda.runtime.runtimeGetVersion() // 10, 100)


def make_torch(cfg):
    import torch
    if not torch.cuda.is_available():
        raise ImportError("torch sees no GPU")
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    dev = Device("torch", lambda: torch.cuda.Event(enable_timing=True), torch.cuda.synchronize, l2)
    dev.elapsed = lambda a, z: a.elapsed_time(z)
    tf = {"gaussian_pdf": lambda o, x: torch.div(torch.exp(-0.5 * x * x), 2.5066282746310002, out=o),
          "hypot": lambda o, a, b: torch.hypot(a, b, out=o),
          "polar_distance": lambda o, r1, t1, r2, t2: torch.hypot(r1 * torch.cos(t1) - r2 * torch.cos(t2),
                                                                 r1 * torch.sin(t1) - r2 * torch.sin(t2), out=o)}

    def mm(tf32):
        def call(a, b, c):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.matmul(a, b, out=c)
        return call
    torch.backends.cuda.matmul.allow_tf32 = False
    lib = {
        "name": "PyTorch", "to_device": lambda h: torch.from_numpy(np.ascontiguousarray(h)).cuda(),
        "host": lambda t: t.cpu().numpy(),
        "empty": lambda s: torch.empty(s, dtype=torch.float32, device="cuda"),
        "sum": torch.sum, "sum_name": "sum",
        "abs_sum": lambda v: torch.linalg.vector_norm(v, 1), "abs_sum_name": "vector_norm(x, 1)",
        "elementwise": lambda w, f: [("ops", lambda *a: tf[w](a[-1], *a[:-1]))],
        "one_kernel": lambda a, o: torch.exp(a, out=o), "one_kernel_name": "exp (one kernel)",
        "host_gauss": lambda h: (lambda x: (torch.exp(-0.5 * x * x) / 2.5066282746310002).cpu().numpy())(
            torch.from_numpy(h).cuda()),
        "host_gauss_name": "ops(from_numpy(h).cuda()).cpu()",
        "matmul": [("matmul FP32", mm(False), 1e-5), ("matmul TF32", mm(True), 5e-3)],
        "transpose": lambda a: a.t().contiguous(), "transpose_name": "a.t().contiguous()",
        "copy": lambda d, s: d.copy_(s),
        "sum_axis": lambda a, ax, o: torch.sum(a, dim=ax, out=o),
        "fma": [("addcmul (one kernel)", lambda x, b, c, y: torch.addcmul(c, x, b, out=y)),
                ("eager add(mul(x, b), c)", lambda x, b, c, y: torch.add(torch.mul(x, b), c, out=y))],
        "dot": torch.dot, "argmax": torch.argmax,
        "kernel_sum": lambda x, y, b: (setattr(torch.backends.cuda.matmul, "allow_tf32", False),
                                       torch.exp(-0.5 * torch.cdist(x, y) ** 2) @ b)[1],
        "kernel_sum_name": "dense exp(-cdist^2/2) @ b",
        "knn": lambda x, y: torch.argmin(torch.cdist(x, y), dim=1),
        "knn_name": "dense argmin(cdist)",
    }
    return lib, dev, props.name, torch.version.cuda or "?"


def run_numba(rec, cfg, peak):
    try:  # numba-cuda installed with --target: its .pth (numba.cuda -> numba_cuda) is not read from PYTHONPATH
        import _numba_cuda_redirector  # noqa: F401
    except ImportError:
        pass
    if not hasattr(np, "row_stack"):  # numba-cuda 0.30.4 overloads np.row_stack, gone in NumPy 2.5
        np.row_stack = np.vstack
    from numba import cuda, vectorize
    if not cuda.is_available():
        raise ImportError("numba.cuda sees no GPU")
    import math as m
    g = vectorize(["float32(float32)"], target="cuda")(lambda x: m.exp(-0.5 * x * x) / 2.5066282746310002)
    h = vectorize(["float32(float32, float32)"], target="cuda")(lambda a, b: m.sqrt(a * a + b * b))
    ev = lambda: cuda.event(timing=True)
    dev = Device("numba", ev, cuda.synchronize, 50 << 20)
    dev.elapsed = lambda a, z: cuda.event_elapsed_time(a, z)
    for e in exps(cfg["lo"], cfg["hi"]):
        n = 1 << e
        for w, f, args in elementwise_cases(n)[:2]:
            ufn = g if w == "gaussian_pdf" else h
            d = [cuda.to_device(a) for a in args]
            o = cuda.device_array(n, np.float32)
            ufn(*d, out=o)
            if not rec.check(close(o.copy_to_host(), f(np, *[a.astype(np.float64) for a in args])), "numba " + w):
                continue
            (t, r), = dev.measure([lambda: ufn(*d, out=o)], cfg["device"])
            rec.row(w, "Numba @vectorize(target='cuda')", shape_str(n), n, t, r, 4.0 * (len(args) + 1) * n, "GB/s",
                    peak, PEAK_SRC)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--peers", default="numpy,cupy,torch,numba")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--peak-gbs", type=float, default=0.0, help="device peak bandwidth (from bench_sweep)")
    ap.add_argument("--fp32-tflops", type=float, default=0.0)
    a = ap.parse_args()
    quick = a.quick
    cfg = {"quick": quick, "lo": 10 if quick else 12, "hi": 18 if quick else 27, "peak": a.peak_gbs, "fp32_tflops": a.fp32_tflops,
           "device": Budget(10, 3, 5, 2) if quick else Budget(100, 5, 20, 10),
           "host": Budget(10, 3, 5, 1) if quick else Budget(100, 3, 10, 1),
           "overhead_calls": 200 if quick else 2000, "overhead_rounds": 5 if quick else 15,
           "matmul": [64, 128, 256] if quick else [256, 512, 1024, 2048, 4096, 8192],
           "transpose": [(256, 256), (255, 257)] if quick else [(1024, 1024), (2048, 2048), (4096, 4096), (8192, 8192),
                                                              (1023, 1025), (8191, 8193)],
           "axis": [(256, 256), (1024, 64)] if quick else [(1024, 1024), (2048, 2048), (4096, 4096), (8192, 8192),
                                                         (1 << 20, 64)],
           "lazy_lo": 10 if quick else 16, "lazy_step": 2 if quick else 1, "host_hi": 18 if quick else 25,
           "host_memory": list(range(10, 19, 2)) if quick else list(range(16, 27, 2))}
    rec = Recorder(a.csv, quick)
    wanted = a.peers.split(",")
    ran = []
    for peer in wanted:
        t0 = time.time()
        try:
            if peer == "numpy":
                rec.common.update(device="host (NumPy %s)" % np.__version__, cuda="none")
                run_numpy(rec, cfg)
            elif peer in ("cupy", "torch"):
                lib, dev, devname, cuda_v = (make_cupy if peer == "cupy" else make_torch)(cfg)
                rec.common.update(device=devname, cuda=cuda_v)
                gpu_workloads(rec, cfg, lib, dev, a.peak_gbs)
            elif peer == "numba":
                run_numba(rec, cfg, a.peak_gbs)
            else:
                print("peers.py: unknown peer %s" % peer, file=sys.stderr)
                continue
            ran.append(peer)
            print("peers.py: %s done in %.1f s" % (peer, time.time() - t0))
        except ImportError as ex:
            print("peers.py: %s skipped: %s" % (peer, ex))
        except Exception as ex:  # noqa: BLE001 - a peer that is installed but broken (e.g. numba-cuda
            # built for NumPy 1.x under NumPy 2: np.row_stack is gone) is skipped like a missing one
            if peer != "numba":
                raise
            print("peers.py: %s skipped (installed but fails to load: %s: %s)" % (peer, type(ex).__name__, ex))
    print("peers.py: %d rows in %s (ran: %s), %d checks failed" % (rec.rows, a.csv, ", ".join(ran) or "none",
                                                                    rec.failures))
    return 1 if rec.failures else 0


if __name__ == "__main__":
    sys.exit(main())
