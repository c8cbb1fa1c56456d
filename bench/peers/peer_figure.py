#!/usr/bin/env python3
"""The headline figure of issue 43: ufunc's speed against MatX, torch.compile / cupy.fuse,
Numba CUDA and KeOps, one panel per peer family, from a results folder's files (nothing
typed in): bench_matx.csv (ufunc and MatX rows of one process), fused.csv with
bench_lazy's output (lazy.txt) of the same call, bench_seeds' seeds.csv with
numba_seeds.py's numba.csv, keops.csv with bench_pairwise's output (pairwise.txt).

  usage: peer_figure.py RESULTS_DIR OUT.png
         (RESULTS_DIR as bench/results/2026-11-29-fourteenth: the files are looked up in
         its call folders; see find() below)

Speed ratio = peer time / ufunc time (above 1: ufunc is faster); log scale, 1 dashed.
Also prints each ratio (one line per bar).
"""
import csv
import glob
import os
import re
import sys


def find(root, name):
    """The newest match of name under root (call folders sort by number)."""
    hits = sorted(glob.glob(os.path.join(root, "**", name), recursive=True))
    if not hits:
        raise SystemExit("peer_figure.py: no %s under %s" % (name, root))
    return hits[-1]


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def axis_of(impl):
    m = re.search(r"axis (\d)", impl)
    return " axis %s" % m.group(1) if m else ""


def matx_panel(root):
    r = rows(find(root, "bench_matx.csv"))
    uf, mx = {}, {}
    for x in r:
        k = (x["workload"], x["shape"] + axis_of(x["implementation"]))
        t = float(x["median_s"])
        if x["implementation"].startswith("ufunc"):
            uf[k] = t
        elif x["implementation"] == "MatX" or x["implementation"].startswith("MatX sum"):
            mx[k] = t
    out = []
    for k in uf:
        if k in mx:
            out.append(("%s %s" % k, mx[k] / uf[k]))
    return out


def lazy_times(path, n=1 << 27, s=8192):
    """ufunc's times (s) from bench_lazy's output: its bandwidth / peak lines and the bytes
    each workload moves (bench_lazy.cu's own counts)."""
    txt = open(path).read().splitlines()
    peak = float(re.search(r"peak bandwidth ([\d.]+) GB/s", "\n".join(txt)).group(1)) * 1e9
    heads = [("dot = sum(lazy(x) * y) 2^27", "dot", 8.0 * n),
             ("sum(lazy(X) * Y, axis 0)", "axis_dot axis 0", 8.0 * s * s),
             ("sum(lazy(X) * Y, axis 1)", "axis_dot axis 1", 8.0 * s * s),
             ("evaluate(lazy(A.T) + B)", "transpose_add", 12.0 * s * s)]
    t = {}
    for i, line in enumerate(txt):
        m = re.match(r"lazy add\(mul\(x, b\), c\) into out: time\s+([\d.]+) ms", line)
        if m:
            t["fma_chain"] = float(m.group(1)) * 1e-3
        for head, key, nbytes in heads:
            if line.startswith(head) and key not in t:
                for nxt in txt[i + 1:i + 4]:
                    mm = re.match(r"\s+its bandwidth / peak.*?([\d.]+) ratio", nxt)
                    if mm:
                        t[key] = nbytes / (float(mm.group(1)) * peak)
                        break
    return t


def fused_panel(root):
    lazy = find(root, "lazy.txt")
    call = os.path.dirname(lazy)
    t = lazy_times(lazy)
    mx = os.path.join(call, "bench_matx.csv")  # the six-node expression: ufunc's row there
    if os.path.exists(mx):
        for x in rows(mx):
            if x["workload"] == "six_node" and x["implementation"].startswith("ufunc"):
                t["six_node"] = float(x["median_s"])
    out = []
    for x in rows(os.path.join(call, "fused.csv")):
        impl = x["implementation"]
        if not (impl.startswith("PyTorch torch.compile") or impl.startswith("CuPy cupy.fuse")):
            continue
        key = x["workload"] + axis_of(impl)
        if key in t:
            who = "torch.compile" if "torch" in impl else "cupy.fuse"
            out.append(("%s: %s" % (who, key), float(x["median_s"]) / t[key]))
    return out


def numba_panel(root):
    best = lambda rs: {(x["workload"], x["shape"]): min(float(y["median_s"]) for y in rs
                                                       if (y["workload"], y["shape"]) == (x["workload"], x["shape"]))
                       for x in rs}
    u, n = best(rows(find(root, "seeds.csv"))), best(rows(find(root, "numba.csv")))
    return [("%s %s" % k, n[k] / u[k]) for k in u if k in n]


def keops_panel(root):
    kr = rows(find(root, "keops.csv"))
    txt = open(os.path.join(os.path.dirname(find(root, "keops.csv")), "pairwise.txt")).read()
    t = {}
    for key, pat in (("kernel_sum_3d", r"Gaussian kernel sum 2\^20 x 2\^20 f32 \(vec<3>\): time\s+([\d.]+) ms"),
                     ("kernel_sum_3d __expf", r"Gaussian kernel sum with __expf.*?: time\s+([\d.]+) ms"),
                     ("knn_3d", r"1-NN argmin 2\^20 x 2\^20 f32 \(vec<3>\): time\s+([\d.]+) ms")):
        m = re.search(pat, txt)
        if m:
            t[key] = float(m.group(1)) * 1e-3
    out = []
    for x in kr:
        if x["shape"] != "1048576x1048576":
            continue
        for key in (x["workload"], x["workload"] + " __expf"):
            if key in t:
                out.append(("%s 2^20 x 2^20" % key, float(x["median_s"]) / t[key]))
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    root, png = sys.argv[1], sys.argv[2]
    panels = [("MatX (one process)", matx_panel(root)), ("torch.compile, cupy.fuse", fused_panel(root)),
              ("Numba CUDA (the seeds' programs)", numba_panel(root)), ("KeOps", keops_panel(root))]
    for title, bars in panels:
        for label, r in bars:
            print("%-34s %-48s %8.3f" % (title, label, r))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(15, 10))
    for ax, (title, bars) in zip(axes.flat, panels):
        bars = [b for b in bars if b[1] < 100]  # cupy.fuse's one-block sum (hundreds) would flatten the rest
        labels, vals = [b[0] for b in bars], [b[1] for b in bars]
        colors = ["tab:green" if v >= 1 else "tab:red" for v in vals]
        ax.barh(range(len(vals)), [v - 1 for v in vals], left=1, color=colors)  # bars from 1: ahead right, behind left
        ax.set_xlim(min(vals + [1]) / 1.15, max(vals + [1]) * 1.3)
        ax.set_yticks(range(len(vals)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.axvline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_title("ufunc against " + title)
        ax.set_xlabel("speed ratio = peer time / ufunc time (> 1: ufunc faster)")
        for i, v in enumerate(vals):
            ax.text(v, i, " %.2f" % v, va="center", fontsize=7)
    fig.suptitle("ufunc against its closest peers (%s)" % os.path.basename(os.path.normpath(root)))
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("peer_figure.py: wrote", png)


if __name__ == "__main__":
    main()
