# Issue 37's 2-core table from host-{mode}-{r}.csv (bench_host) and peers-{mode}-{r}.csv
# (host_peers.py), rounds alternated in one run: the median over rounds of each median.
import csv, statistics, sys
def load(mode):
    h, p = {}, {}
    for r in (1, 2, 3):
        for row in csv.DictReader(open(f"host-{mode}-{r}.csv")):
            h.setdefault((row["workload"], int(row["n"]), row["impl"]), []).append(float(row["median_us"]))
        for row in csv.DictReader(open(f"peers-{mode}-{r}.csv")):
            p.setdefault((row["workload"], int(row["n"]), row["impl"]), []).append(float(row["median_us"]))
    med = lambda d: {k: statistics.median(v) for k, v in d.items()}
    return med(h), med(p)
for mode in ("idle", "busy"):
    h, p = load(mode)
    print(f"\n{mode}: call, n, ufunc us, serial loop us, NumPy us, vs loop, vs NumPy (>1 = ufunc faster)")
    for w, impl in (("sum", "ufunc"), ("gaussian_pdf", "ufunc"), ("gaussian_pdf_math_exp", "ufunc")):
        for e in (10, 12, 14, 16, 18, 20, 22, 24):
            n = 1 << e
            key = ("gaussian_pdf", n, "ufunc_math_exp") if w.endswith("math_exp") else (w, n, impl)
            if key not in h: continue
            loop = h.get((key[0], n, "serial_loop"))
            npv = p.get((key[0], n, "numpy"))
            u = h[key]
            print(f"| {w} | 2^{e} | {u:.1f} | {loop:.1f} | {npv:.1f} | {loop/u:.2f}x | {npv/u:.2f}x |")
    rb = h.get(("sum", 1 << 24, "read_bandwidth"))
    if rb: print(f"sum 2^24 vs read of the same bytes: {rb/h[('sum', 1<<24, 'ufunc')]:.2f}")
    for k in sorted(h):
        if k[0] == "matmul": print("matmul", k[1], h[k], "numpy", p.get(("matmul", k[1], "numpy")), "ratio", p.get(("matmul", k[1], "numpy"), 0)/h[k])
