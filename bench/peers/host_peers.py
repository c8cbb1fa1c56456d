#!/usr/bin/env python3
"""The host peers of bench_host (issue 37): float32 sum and gaussian_pdf into out at
2^10..2^26 with NumPy (np.sum; the pdf as four eager calls into out, as a NumPy
user writes it), numexpr (multi-threaded, where installed) and Numba's
@vectorize(target='parallel') (where it imports); then float32 matmul with
np.matmul at bench_host's sizes. Each result is checked against
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
    for _ in range(reps):
        t0 = time.perf_counter()
        np.sum(x)
        times[("sum", "numpy")].append(time.perf_counter() - t0)
        for name, fn in contenders.items():
            t0 = time.perf_counter()
            fn(x, y)
            times[("gaussian_pdf", name)].append(time.perf_counter() - t0)
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
if csv_path:
    with open(csv_path, "w") as f:
        f.write("workload,n,impl,median_us\n")
        for r in rows:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.3f}\n")
print("host_peers: all results checked (peers: " + ", ".join(["numpy"] + list(peers)) + ")")
