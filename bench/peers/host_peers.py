#!/usr/bin/env python3
"""The host peers of bench_host (issue 37): float32 sum and gaussian_pdf into out at
2^10..2^26 with NumPy (np.sum; the pdf as four eager calls into out, as a NumPy
user writes it), numexpr (multi-threaded, where installed) and Numba's
@vectorize(target='parallel') (where it imports); then float32 matmul with
np.matmul at bench_host's sizes; sums of an (n, n) matrix along axis 0 and 1; the
lazy expression exp(-0.5 ((x - a)^2 + (y - b)^2)) * w into out (NumPy's eager
calls into out and temporaries; numexpr's one string); the pairwise kernel sum
out[i] = sum_j exp(-|p_i - q_j|^2 / 2) b_j in 3-D (NumPy: broadcasting over
blocks of 256 rows, then a matrix-vector product). Each result is checked against
a float64 NumPy reference; medians of interleaved repetitions.
  usage: host_peers.py [--quick] [--csv file]
"""
import sys
import time

import numpy as np

quick = "--quick" in sys.argv
csv_path = sys.argv[sys.argv.index("--csv") + 1] if "--csv" in sys.argv else None
top = 20 if quick else 26
C = np.float32(0.3989422804)

peers = {}
try:
    import numexpr as ne

    def ne_pdf(x, y):
        ne.evaluate("exp(-0.5 * x * x) * C", local_dict={"x": x, "C": C}, out=y)

    peers["numexpr"] = ne_pdf
except Exception:
    pass
try:
    import numba

    @numba.vectorize(["float32(float32)"], target="parallel")
    def nb_pdf(v):
        return np.exp(np.float32(-0.5) * v * v) * np.float32(0.3989422804)

    peers["numba_parallel"] = lambda x, y: nb_pdf(x, out=y)
except Exception:
    pass


def np_pdf(x, y):
    np.multiply(x, x, out=y)
    np.multiply(y, np.float32(-0.5), out=y)
    np.exp(y, out=y)
    np.multiply(y, C, out=y)


rows = []
rng = np.random.default_rng(12345)
print(f"{'workload':13s} {'n':>9s} {'impl':>15s} {'median us':>11s}")
for e in range(10, top + 1, 2):
    n = 1 << e
    reps = 7 if quick else (41 if e <= 20 else 15 if e <= 24 else 7)
    x = rng.uniform(-3, 3, n).astype(np.float32)
    y = np.empty_like(x)
    ref_sum = x.astype(np.float64).sum()
    ref_pdf = np.exp(-0.5 * x.astype(np.float64) ** 2) * 0.3989422804
    assert abs(float(np.sum(x)) - ref_sum) <= (np.log2(n) + 32) * 6e-8 * np.abs(x).astype(np.float64).sum()
    contenders = {"numpy": np_pdf, **peers}
    for name, fn in contenders.items():
        fn(x, y)
        assert np.allclose(y, ref_pdf, rtol=1e-5, atol=1e-7), name
    times = {("sum", "numpy"): []}
    for name in contenders:
        times[("gaussian_pdf", name)] = []
    inner = max(1, (1 << 16) // n)  # small calls timed in batches, as bench_host does
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            np.sum(x)
        times[("sum", "numpy")].append((time.perf_counter() - t0) / inner)
        for name, fn in contenders.items():
            t0 = time.perf_counter()
            for _ in range(inner):
                fn(x, y)
            times[("gaussian_pdf", name)].append((time.perf_counter() - t0) / inner)
    for (w, name), t in times.items():
        med = sorted(t)[len(t) // 2] * 1e6
        rows.append((w, n, name, med))
        print(f"{w:13s} {n:9d} {name:>15s} {med:11.1f}")
# matmul, float32 (n, n) @ (n, n) with np.matmul (its BLAS; OpenBLAS takes
# OMP_NUM_THREADS when OPENBLAS_NUM_THREADS is unset): bench_host's sizes.
print(f"{'workload':13s} {'n':>9s} {'impl':>15s} {'median us':>11s} {'GFLOP/s':>9s}")
for n in ([256, 512] if quick else [256, 1024, 2048]):
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    c = np.matmul(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    mag = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert np.all(np.abs(c - ref) <= n * 6e-8 * mag), "np.matmul"
    t = []
    for _ in range(3 if quick else 5):
        t0 = time.perf_counter()
        np.matmul(a, b, out=c)
        t.append(time.perf_counter() - t0)
    med = sorted(t)[len(t) // 2] * 1e6
    rows.append(("matmul", n, "numpy", med))
    print(f"{'matmul':13s} {n:9d} {'numpy':>15s} {med:11.1f} {2.0 * n ** 3 / med / 1e3:9.1f}")


def med_us(fn, reps, elements=1 << 16):
    """Median microseconds per call; calls of under 2^16 elements timed in batches."""
    inner = max(1, (1 << 16) // elements)
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        t.append((time.perf_counter() - t0) / inner)
    return sorted(t)[len(t) // 2] * 1e6


print(f"{'workload':13s} {'n':>9s} {'impl':>15s} {'median us':>11s}")
for n in ([256, 1024] if quick else [256, 1024, 4096]):
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    for ax in (0, 1):
        r = np.empty(n, np.float32)
        np.sum(a, axis=ax, out=r)
        ref = a.astype(np.float64).sum(axis=ax)
        mag = np.abs(a).astype(np.float64).sum(axis=ax)
        assert np.all(np.abs(r - ref) <= (np.log2(n) + 32) * 6e-8 * mag), "np.sum axis"
        med = med_us(lambda: np.sum(a, axis=ax, out=r), 7 if quick else 15, n * n)
        rows.append((f"sum_axis{ax}", n, "numpy", med))
        print(f"{'sum_axis' + str(ax):13s} {n:9d} {'numpy':>15s} {med:11.1f}")
ca, cb = np.float32(0.25), np.float32(-0.5)
for e in range(12, top + 1, 4):
    n = 1 << e
    x, y, w = (rng.uniform(-2, 2, n).astype(np.float32) for _ in range(3))
    out, t1 = np.empty_like(x), np.empty_like(x)

    def np_lazy():  # into out, with one temporary: the way a careful NumPy user writes it
        np.subtract(x, ca, out=out)
        np.multiply(out, out, out=out)
        np.subtract(y, cb, out=t1)
        np.multiply(t1, t1, out=t1)
        np.add(out, t1, out=out)
        np.multiply(out, np.float32(-0.5), out=out)
        np.exp(out, out=out)
        np.multiply(out, w, out=out)

    ref = np.exp(-0.5 * ((x.astype(np.float64) - 0.25) ** 2 + (y.astype(np.float64) + 0.5) ** 2)) * w
    impls = {"numpy": np_lazy}
    if "numexpr" in peers:
        impls["numexpr"] = lambda: ne.evaluate("exp(-0.5 * ((x - ca) ** 2 + (y - cb) ** 2)) * w",
                                               local_dict={"x": x, "y": y, "w": w, "ca": ca, "cb": cb}, out=out)
    for name, fn in impls.items():
        fn()
        assert np.allclose(out, ref, rtol=1e-5, atol=1e-6), name
        med = med_us(fn, 7 if quick else (31 if e <= 20 else 9), n)
        rows.append(("lazy_expr", n, name, med))
        print(f"{'lazy_expr':13s} {n:9d} {name:>15s} {med:11.1f}")
for n in ([256, 1024] if quick else [256, 1024, 4096]):
    p = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    q = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    b = (rng.uniform(-1, 1, n) * 0.5 + 0.5).astype(np.float32)
    out = np.empty(n, np.float32)

    def np_kde():
        for i0 in range(0, n, 256):
            d = p[i0:i0 + 256, None, :] - q[None, :, :]
            k = np.exp(np.float32(-0.5) * np.einsum("ijk,ijk->ij", d, d))
            out[i0:i0 + 256] = k @ b

    np_kde()
    d64 = p.astype(np.float64)[:, None, :] - q.astype(np.float64)[None, :, :]
    t64 = np.exp(-0.5 * (d64 * d64).sum(-1)) * b
    assert np.all(np.abs(out - t64.sum(1)) <= (np.log2(n) + 40) * 6e-8 * np.abs(t64).sum(1)), "numpy kde"
    med = med_us(np_kde, 3 if quick else 7)
    rows.append(("pairwise_kde", n, "numpy", med))
    print(f"{'pairwise_kde':13s} {n:9d} {'numpy':>15s} {med:11.1f}")
if csv_path:
    with open(csv_path, "w") as f:
        f.write("workload,n,impl,median_us\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.3f}\n")
print("host_peers: all results checked (peers: " + ", ".join(["numpy"] + list(peers)) + ")")
