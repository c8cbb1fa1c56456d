#!/usr/bin/env python3
"""Figures and a summary from one benchmark run's CSVs (bench/README.md).
  usage: plot.py RESULTS_DIR      (reads sweep.csv, peers.csv, targets.csv there)
Writes into RESULTS_DIR: one PNG per workload (time against N, log-log, every
implementation a line, the hardware limit dashed), the seeds' two sum figures
(with and without transfers), headline_ratios.png, and summary.md (headline
comparisons with CuPy and PyTorch, every performance target next to its
measured value). Without matplotlib it writes summary.md only, and says so."""
import csv, os, re, sys
from collections import defaultdict


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def series(rows):
    """{implementation: sorted [(n, seconds, time at the limit or None)]}"""
    s = defaultdict(list)
    for r in rows:
        n, t, ratio = num(r["n"]), num(r["median_s"]), num(r["ratio_to_limit"])
        s[r["implementation"]].append((n, t, t * ratio if ratio else None))
    return {k: sorted(v) for k, v in s.items()}


def plot_workload(plt, rows, title, path, only=None, limit_label="hardware limit"):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    lim = {}
    for impl, pts in sorted(series(rows).items()):
        if only and not only(impl):
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=impl)
        for n, _, tl in pts:
            if tl:
                lim[n] = min(lim.get(n, tl), tl)
    if lim:
        ns = sorted(lim)
        ax.plot(ns, [lim[n] for n in ns], "k--", lw=1.2, label=limit_label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (elements; matrix order for matmul)")
    ax.set_ylabel("median time per call (s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def by_key(rows):
    d = {}
    for r in rows:
        d[(r["workload"], r["implementation"], r["shape"])] = r
    return d


def t_of(d, w, impl, shape):
    r = d.get((w, impl, shape))
    return num(r["median_s"]) if r else None


def ratio(a, b):
    return a / b if a and b else None


# Headline comparisons: (label, workload, shape, ufunc implementation, peer implementations by library)
HEADLINES = [
    ("sum 2^27 (resident)", "sum", "134217728", "ufunc GPU", {"CuPy": ["CuPy sum"], "PyTorch": ["PyTorch sum"]}),
    ("abs-sum 2^27", "abs_sum", "134217728", "ufunc GPU",
     {"CuPy": ["CuPy ReductionKernel abs-sum"], "PyTorch": ["PyTorch vector_norm(x, 1)"]}),
    ("sum 2^27 with transfers", "sum", "134217728", "ufunc GPU with transfers",
     {"CuPy": ["CuPy sum with transfers"], "PyTorch": ["PyTorch sum with transfers"]}),
    ("gaussian pdf 2^27", "gaussian_pdf", "134217728", "ufunc GPU",
     {"CuPy": ["CuPy ElementwiseKernel", "CuPy array expression"], "PyTorch": ["PyTorch ops"]}),
    ("hypot 2^27", "hypot", "134217728", "ufunc GPU",
     {"CuPy": ["CuPy ElementwiseKernel", "CuPy array expression"], "PyTorch": ["PyTorch ops"]}),
    ("polar distance 2^27", "polar_distance", "134217728", "ufunc GPU",
     {"CuPy": ["CuPy ElementwiseKernel", "CuPy array expression"], "PyTorch": ["PyTorch ops"]}),
    ("matmul FP32 4096^3", "matmul", "4096x4096x4096", "ufunc optimized",
     {"CuPy": ["CuPy matmul"], "PyTorch": ["PyTorch matmul FP32"]}),
    ("matmul FP32 8192^3", "matmul", "8192x8192x8192", "ufunc optimized",
     {"CuPy": ["CuPy matmul"], "PyTorch": ["PyTorch matmul FP32"]}),
    ("transpose 8192^2", "transpose", "8192x8192", "ufunc optimized",
     {"CuPy": ["CuPy ascontiguousarray(a.T)"], "PyTorch": ["PyTorch a.t().contiguous()"]}),
    ("sum axis 0 8192^2", "axis_sum", "8192x8192", "ufunc sum axis 0",
     {"CuPy": ["CuPy sum axis 0"], "PyTorch": ["PyTorch sum axis 0"]}),
    ("sum axis 1 8192^2", "axis_sum", "8192x8192", "ufunc sum axis 1",
     {"CuPy": ["CuPy sum axis 1"], "PyTorch": ["PyTorch sum axis 1"]}),
    ("x*b+c 2^27 (lazy)", "fma_chain", "134217728", "ufunc lazy add(mul(x, b), c)",
     {"CuPy": ["CuPy ElementwiseKernel x*b+c"], "PyTorch": ["PyTorch addcmul (one kernel)"]}),
    ("dot 2^27", "dot", "134217728", "ufunc sum(lazy(x) * y)", {"CuPy": ["CuPy dot"], "PyTorch": ["PyTorch dot"]}),
    ("argmax 2^27", "argmax", "134217728", "ufunc argmax", {"CuPy": ["CuPy argmax"], "PyTorch": ["PyTorch argmax"]}),
    ("Gaussian kernel sum 2^14 x 2^14", "kernel_sum_3d", "16384x16384", "ufunc map_reduce(vec<3>)",
     {"CuPy": ["CuPy dense exp(-d2/2) @ b"], "PyTorch": ["PyTorch dense exp(-cdist^2/2) @ b"]}),
    ("1-NN 2^14 x 2^14", "knn_3d", "16384x16384", "ufunc argmin(lazy dist2(vec<3>))",
     {"CuPy": ["CuPy dense argmin(d2)"], "PyTorch": ["PyTorch dense argmin(cdist)"]}),
    ("gaussian pdf 2^20, host memory in and out", "gaussian_pdf_host", "1048576", "ufunc GPU std::vector in, new vector out",
     {"CuPy": ["CuPy asnumpy(kernel(asarray(h)))"], "PyTorch": ["PyTorch ops(from_numpy(h).cuda()).cpu()"]}),
    ("call at N=1024 (host time)", "call_overhead", "1024", "ufunc GPU into out",
     {"CuPy": ["CuPy ElementwiseKernel gaussian into out"], "PyTorch": ["PyTorch exp (one kernel) into out"]}),
]

# Every performance target: (program whose summary measures it, measure name
# printed there (regex), source, sweep cross-check: workload, shape, how).
TARGET_SOURCES = {"bench_core": "issue 1 (bench/NOTES.md, Elementwise)", "bench_reduce": "issue 3 (bench/NOTES.md, Issue 3)",
                  "bench_linalg": "issue 4 (bench/NOTES.md, Issue 4)", "bench_lazy": "issue 18 (bench/NOTES.md, Issue 18)",
                  "bench_pairwise": "issue 15 (README, Points as rows)",
                  "bench_stream": "issue 14 (README, Streaming from host memory)",
                  "bench_half": "issue 17 (bench/NOTES.md, bf16 sum)",
                  "bench_tensor_core": "issues 17 and 43 (the public call against cuBLAS)",
                  "bench_random": "issue 41", "bench_gufunc": "issue 41",
                  "bench_sort": "issue 42", "bench_reduceat": "issue 42", "bench_primitives": "issue 42"}
# Targets that compare ufunc (sweep.csv) with a peer (peers.csv), measured in one
# run but by two programs: (measure, target, (compare, bound), value from the rows, source).
CROSS_TARGETS = [
    ("gaussian_pdf of a 2^20 std::vector / CuPy asnumpy(kernel(asarray(h))) (time ratio)", "<= 0.7", ("<=", 0.7),
     lambda d: ratio(t_of(d, "gaussian_pdf_host", "ufunc GPU std::vector in, new vector out", "1048576"),
                     t_of(d, "gaussian_pdf_host", "CuPy asnumpy(kernel(asarray(h)))", "1048576")),
     "issue 14 (sweep.csv and peers.csv)"),
]
# (regex on the target's measure, function of the sweep rows -> value). The sweep
# has no reference passes: for bandwidth targets (held against a copy or read of
# the same bytes) its value is the bandwidth / peak, to set beside the program's.
SWEEP_CHECKS = [
    (r"^gaussian_pdf bandwidth /", lambda d: num(d.get(("gaussian_pdf", "ufunc GPU", "134217728"), {}).get("ratio_to_limit"))),
    (r"^gaussian_pdf speed / thrust", lambda d: ratio(t_of(d, "gaussian_pdf", "thrust::transform", "134217728"),
                                                      t_of(d, "gaussian_pdf", "ufunc GPU", "134217728"))),
    (r"^ufunc call / raw launch", lambda d: ratio(t_of(d, "call_overhead", "ufunc GPU into out", "1024"),
                                                  t_of(d, "call_overhead", "raw empty launch", "1024"))),
    (r"^broadcast written", lambda d: num(d.get(("broadcast_add", "ufunc GPU", "8192x8192"), {}).get("ratio_to_limit"))),
    (r"^ufunc::sum speed / CUB", lambda d: ratio(t_of(d, "sum", "CUB DeviceReduce::Sum", "134217728"),
                                                 t_of(d, "sum", "ufunc GPU", "134217728"))),
    (r"^abs-sum time / sum time", lambda d: ratio(t_of(d, "abs_sum", "ufunc GPU", "134217728"),
                                                  t_of(d, "sum", "ufunc GPU", "134217728"))),
    (r"^sum \(8192,8192\) f32 axis 0", lambda d: num(d.get(("axis_sum", "ufunc sum axis 0", "8192x8192"), {}).get("ratio_to_limit"))),
    (r"^sum \(8192,8192\) f32 axis 1", lambda d: num(d.get(("axis_sum", "ufunc sum axis 1", "8192x8192"), {}).get("ratio_to_limit"))),
    (r"^optimized 1024\^3 / cuBLAS", lambda d: ratio(t_of(d, "matmul", "cuBLAS SGEMM", "1024x1024x1024"),
                                                     t_of(d, "matmul", "ufunc optimized", "1024x1024x1024"))),
    (r"^optimized 4096\^3 / cuBLAS", lambda d: ratio(t_of(d, "matmul", "cuBLAS SGEMM", "4096x4096x4096"),
                                                     t_of(d, "matmul", "ufunc optimized", "4096x4096x4096"))),
    (r"^optimized 8192\^3 / cuBLAS", lambda d: ratio(t_of(d, "matmul", "cuBLAS SGEMM", "8192x8192x8192"),
                                                     t_of(d, "matmul", "ufunc optimized", "8192x8192x8192"))),
    (r"^optimized 8192x8192 4B / copy", lambda d: ratio(t_of(d, "transpose", "copy kernel (same bytes)", "8192x8192"),
                                                        t_of(d, "transpose", "ufunc optimized", "8192x8192"))),
    (r"^optimized 8191x8193 4B / copy", lambda d: ratio(t_of(d, "transpose", "copy kernel (same bytes)", "8191x8193"),
                                                        t_of(d, "transpose", "ufunc optimized", "8191x8193"))),
    (r"^tiled / naive speed 8192x8192", lambda d: ratio(t_of(d, "transpose", "ufunc naive", "8192x8192"),
                                                        t_of(d, "transpose", "ufunc tiled", "8192x8192"))),
    (r"^tiled / naive speed 8191x8193", lambda d: ratio(t_of(d, "transpose", "ufunc naive", "8191x8193"),
                                                        t_of(d, "transpose", "ufunc tiled", "8191x8193"))),
    (r"^lazy time / hand-fused", lambda d: ratio(t_of(d, "fma_chain", "ufunc lazy add(mul(x, b), c)", "134217728"),
                                                 t_of(d, "fma_chain", "ufunc hand-fused x*b+c", "134217728"))),
    (r"^six-node expression", lambda d: num(d.get(("six_node", "ufunc lazy expression", "8192x8192"), {}).get("ratio_to_limit"))),
    (r"^dot = sum\(lazy", lambda d: num(d.get(("dot", "ufunc sum(lazy(x) * y)", "134217728"), {}).get("ratio_to_limit"))),
    (r"^argmax 2\^27", lambda d: num(d.get(("argmax", "ufunc argmax", "134217728"), {}).get("ratio_to_limit"))),
    (r"^Gaussian kernel sum: T pairs", lambda d: (num(d.get(("kernel_sum_3d", "ufunc map_reduce(vec<3>)", "262144x262144"), {}).get("throughput")) or 0) * 1e-12 or None),
    (r"^1-NN argmin: T pairs", lambda d: (num(d.get(("knn_3d", "ufunc argmin(lazy dist2(vec<3>))", "262144x262144"), {}).get("throughput")) or 0) * 1e-12 or None),
]
# Targets no benchmark program of bench_all.sh measures (compile time, issue 19:
# scripts/compile_times.sh; two GPUs, issue 22: bench_multi_gpu), listed with
# their last recorded values.
OTHER_TARGETS = [
    ("gaussian_pdf / sum / matmul on two GPUs vs one", ">= 1.9 / 1.85 / 1.8",
     "1.950 / 1.942 / 1.917 (bench_multi_gpu on two H200s, bench/NOTES.md 2026-11-30; needs two GPUs: "
     "not run by bench_all.sh)", "issue 22"),
    ("one vectorize call site, nvcc time / thrust::reduce's", "<= 1.2", "0.93 (bench/NOTES.md, not re-run)", "issue 19"),
    ("one sum(x) call site, nvcc time / thrust::reduce's", "<= 1.5", "0.94 (bench/NOTES.md, not re-run)", "issue 19"),
    ("ten six-node expressions / ten eager calls, nvcc time", "<= 2", "1.58 (bench/NOTES.md, not re-run)", "issue 18"),
]


def fmt(v, p=3):
    return "" if v is None else ("%.*f" % (p, v))


def summary(outdir, sweep, peers, targets):
    allrows = sweep + peers
    d = by_key(allrows)
    info = sweep[0] if sweep else (peers[0] if peers else {})
    lines = ["# Benchmark summary", "",
             "Device: %s; CUDA %s; commit %s; date %s. Generated by `bench/plot.py` from `sweep.csv`, `peers.csv` "
             "and `targets.csv` in this folder (schema: bench/README.md)." % (info.get("device", "?"), info.get("cuda", "?"),
                                                                              info.get("commit", "?"), info.get("date", "?")),
             "", "## Headline: ufunc against CuPy and PyTorch", "",
             "Speed ratio = peer time / ufunc time (above 1: ufunc is faster); the peer's fastest listed implementation.",
             "", "| workload | ufunc time | CuPy time | ufunc / CuPy speed | PyTorch time | ufunc / PyTorch speed |",
             "|---|---|---|---|---|---|"]
    bars = []
    for label, w, shape, impl, peer in HEADLINES:
        tu = t_of(d, w, impl, shape)
        cells, vals = [], []
        for lib in ("CuPy", "PyTorch"):
            ts = [t for t in (t_of(d, w, p, shape) for p in peer[lib]) if t]
            tp = min(ts) if ts else None
            cells += ["%.4g s" % tp if tp else "not run", fmt(ratio(tp, tu))]
            vals.append(ratio(tp, tu))
        if tu is None and not any(vals):
            continue
        lines.append("| %s | %s | %s |" % (label, "%.4g s" % tu if tu else "not run", " | ".join(cells)))
        bars.append((label, vals))
    tf = [t_of(d, "matmul", "PyTorch matmul TF32", s) for s in ("4096x4096x4096", "8192x8192x8192")]
    if any(tf):
        lines += ["", "PyTorch matmul with TF32 (tensor cores, not FP32 arithmetic): 4096^3 %s s, 8192^3 %s s." %
                  tuple("%.4g" % t if t else "not run" for t in tf)]
    lines += ["", "## Performance targets", "",
              "Each target as its benchmark program measures it (`targets.csv`), with the sweep's value of the same "
              "ratio where the sweep measures it (`sweep.csv`, interleaved and L2-rotated, so it can differ a little). "
              "Bandwidth targets are the call's speed over a reference pass moving the same bytes in the same run "
              "(a device copy, or a read kernel for reductions; thresholds converted from the old fractions of peak "
              "with the H100's reference figures, bench/README.md); for them `of peak` gives the call's bandwidth / "
              "peak and, in brackets, the reference's, and `sweep` the sweep's bandwidth / peak.",
              "", "| measure | target | measured | verdict | of peak (reference) | sweep | source |",
              "|---|---|---|---|---|---|---|"]
    for t in targets:
        sv = None
        for rx, fn in SWEEP_CHECKS:
            if re.search(rx, t["measure"]):
                try:
                    sv = fn(d)
                except Exception:
                    sv = None
        op, rp = num(t.get("of_peak")), num(t.get("reference_of_peak"))
        of_peak = "" if op is None else fmt(op) + ("" if rp is None else " (%s)" % fmt(rp))
        lines.append("| %s (%s) | %s | %s | %s | %s | %s | %s |" % (
            t["measure"], t["program"], t["target"], fmt(num(t["value"])), t["verdict"], of_peak, fmt(sv),
            TARGET_SOURCES.get(t["program"], "")))
    if not targets:
        lines.append("| (no targets.csv: the benchmark programs did not run) | | | | | | |")
    for m, tg, (cmp, bound), fn, src in CROSS_TARGETS:
        try:
            v = fn(d)
        except Exception:
            v = None
        verdict = "" if v is None else ("met" if (v <= bound if cmp == "<=" else v >= bound) else "missed")
        lines.append("| %s | %s | %s | %s | | | %s |" % (m, tg, fmt(v) if v is not None else "not measured in this run",
                                                       verdict, src))
    for m, tg, val, src in OTHER_TARGETS:
        lines.append("| %s | %s | %s | | | | %s |" % (m, tg, val, src))
    open(os.path.join(outdir, "summary.md"), "w").write("\n".join(lines) + "\n")
    return bars


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    outdir = sys.argv[1]
    sweep = load(os.path.join(outdir, "sweep.csv"))
    peers = load(os.path.join(outdir, "peers.csv"))
    targets = load(os.path.join(outdir, "targets.csv"))
    if not sweep and not peers:
        print("plot.py: no sweep.csv or peers.csv in %s" % outdir)
        return 1
    bars = summary(outdir, sweep, peers, targets)
    print("plot.py: wrote %s" % os.path.join(outdir, "summary.md"))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed: figures skipped (pip install matplotlib)")
        return 0
    rows = sweep + peers
    device = (sweep or peers)[0]["device"]
    work = defaultdict(list)
    for r in rows:
        work[r["workload"]].append(r)
    made = []
    for w, rs in sorted(work.items()):
        if w == "call_overhead":
            rs = [dict(r, n=r["n"]) for r in rs]
        p = os.path.join(outdir, "%s.png" % w)
        plot_workload(plt, rs, "%s, float32 (%s)" % (w, device), p,
                      limit_label="raw launch" if w == "call_overhead" else "hardware limit")
        made.append(p)
    # the seeds' two figures: NumPy and the host against the GPU, with and without transfers
    srows = work.get("sum", [])
    host = lambda i: i.startswith("NumPy") or "host" in i
    p = os.path.join(outdir, "seed_sum_with_transfers.png")
    plot_workload(plt, srows, "sum of N float32, GPU including transfers (%s)" % device, p,
                  only=lambda i: host(i) or "with transfers" in i, limit_label="memory bandwidth limit (resident)")
    made.append(p)
    p = os.path.join(outdir, "seed_sum_resident.png")
    plot_workload(plt, srows, "sum of N float32, data resident on the GPU (%s)" % device, p,
                  only=lambda i: host(i) or ("with transfers" not in i), limit_label="memory bandwidth limit")
    made.append(p)
    if bars:
        fig, ax = plt.subplots(figsize=(9, 5.5))
        ys = range(len(bars))
        for k, lib in enumerate(("CuPy", "PyTorch")):
            ax.barh([y + 0.4 * k for y in ys], [b[1][k] or 0 for b in bars], height=0.4, label="vs " + lib)
        ax.axvline(1.0, color="k", ls="--", lw=1)
        ax.set_xscale("log")  # ratios from 0.9 to 70 side by side
        ax.set_yticks([y + 0.2 for y in ys])
        ax.set_yticklabels([b[0] for b in bars], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("speed ratio: peer time / ufunc time, log scale (above 1: ufunc faster)")
        ax.set_title("ufunc against CuPy and PyTorch (%s)" % device)
        ax.legend()
        fig.tight_layout()
        p = os.path.join(outdir, "headline_ratios.png")
        fig.savefig(p, dpi=110)
        plt.close(fig)
        made.append(p)
    print("plot.py: %d figures in %s" % (len(made), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
