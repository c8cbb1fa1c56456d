#!/usr/bin/env python3
"""The host backend against NumPy (issue 37): ufunc's speed / NumPy's across sizes for
`sum` and `gaussian_pdf` (ufunc::math::exp and std::exp), one line per run, from
bench_host's and host_peers.py's CSVs of the same machine and lease:

    python3 bench/peers/host_figure.py out.png LABEL host.csv peers.csv [LABEL host.csv peers.csv ...]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    d = {}
    for r in csv.DictReader(open(path)):
        d[(r["workload"], int(r["n"]), r["impl"])] = float(r["median_us"])
    return d


out, args = sys.argv[1], sys.argv[2:]
runs = [(args[i], load(args[i + 1]), load(args[i + 2])) for i in range(0, len(args), 3)]
panels = [("sum", "ufunc", "sum"), ("gaussian_pdf", "ufunc_math_exp", "gaussian_pdf, ufunc::math::exp"),
          ("gaussian_pdf", "ufunc", "gaussian_pdf, std::exp")]
fig, axes = plt.subplots(1, len(panels), figsize=(15, 4.2), sharey=True)
for ax, (work, impl, title) in zip(axes, panels):
    for label, host, peers in runs:
        ns = sorted(n for (w, n, i) in host if w == work and i == impl and (w, n, "numpy") in peers)
        ax.plot(ns, [peers[(work, n, "numpy")] / host[(work, n, impl)] for n in ns], marker="o", label=label)
    ax.axhline(1.0, color="gray", lw=1, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_title(title)
    ax.set_xlabel("elements (float32)")
axes[0].set_ylabel("ufunc speed / NumPy speed")
axes[0].legend(fontsize=8)
fig.suptitle("The host backend against NumPy, same machine and run (above 1: ufunc is faster)")
fig.tight_layout()
fig.savefig(out, dpi=110)
print("wrote", out)
