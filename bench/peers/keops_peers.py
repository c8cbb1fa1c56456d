#!/usr/bin/env python3
"""Issue 43: bench_pairwise's two workloads with KeOps (pykeops LazyTensor, the
torch binding), N = M = 2^14, 2^16, ..., 2^22 float32 points in 3-D:
  kernel_sum_3d  a_i = sum_j exp(-|x_i - y_j|^2 / 2) b_j      (workloads_pairwise.hpp, gauss_term3)
  knn_3d         nn_i = argmin_j |x_i - y_j|^2                  (dist2_3)
x, y uniform in [-1, 1]^3, b uniform in [0, 1] (bench_pairwise.cu). Each result is
checked on 64 sampled rows against a dense float64 torch computation (kernel sum:
|a_i - ref| <= 1e-5 sum_j |term|, as bench_pairwise; 1-NN: the distance to the
returned j within 1e-5 relative of the true minimum), then timed by torch.cuda
events: one warm-up call (it includes KeOps' code generation and NVRTC compile),
then the median of up to 25 calls (fewer for long calls, at least 3). A size whose
call takes over ~2 s (or whose next size would take over ~6 s) is the last of its
workload. Any failure prints the exact
exception and traceback, and the script goes on with the other sizes/workloads.
CSV rows in peers.csv's schema (n = pairs, unit pairs/s).
  usage: keops_peers.py [--quick] [--max-exp 22] --csv FILE"""
import argparse, os, statistics, sys, time, traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import Recorder, shape_str  # noqa: E402


def points(n, seed, lo, hi, d):
    return np.random.default_rng(seed).uniform(lo, hi, (n, d)).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--min-exp", type=int, default=14)
    ap.add_argument("--max-exp", type=int, default=22)
    ap.add_argument("--step", type=int, default=2)
    ap.add_argument("--stop-s", type=float, default=2.0, help="no larger size after a call this long")
    ap.add_argument("--max-next-s", type=float, default=6.0, help="nor when the next size's call would take this long")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("keops_peers.py: torch sees no GPU")
        return 1
    t0 = time.time()
    import pykeops
    from pykeops.torch import LazyTensor
    print("keops_peers.py: pykeops %s (import %.1f s), torch %s, build folder %s"
          % (pykeops.__version__, time.time() - t0, torch.__version__, pykeops.get_build_folder()), flush=True)
    rec = Recorder(a.csv, a.quick)
    rec.common.update(device=torch.cuda.get_device_properties(0).name, cuda=torch.version.cuda or "?")
    dev = torch.device("cuda")

    def ksum(x, y, b):
        x_i, y_j, b_j = LazyTensor(x[:, None, :]), LazyTensor(y[None, :, :]), LazyTensor(b[None, :, :])
        d2 = ((x_i - y_j) ** 2).sum(-1)
        return ((-d2 / 2).exp() * b_j).sum(dim=1)

    def knn(x, y):
        x_i, y_j = LazyTensor(x[:, None, :]), LazyTensor(y[None, :, :])
        return ((x_i - y_j) ** 2).sum(-1).argmin(dim=1)

    def ref_rows(x, y, b, rows):
        """float64 dense d2 of the sampled rows (chunked), the kernel sum, its
        magnitude, and the minimum distance."""
        yd = y.double()
        d2 = torch.cat([((x[r].double()[:, None, :] - yd[None, :, :]) ** 2).sum(-1) for r in rows.split(8)])
        t = torch.exp(-0.5 * d2)
        bd = b.double().reshape(-1)
        return d2, t @ bd, t @ bd.abs(), d2.min(dim=1).values

    exps = list(range(a.min_exp, (16 if a.quick else a.max_exp) + 1, a.step))
    stopped = {"kernel_sum_3d": False, "knn_3d": False}
    for e in exps:
        n = 1 << e
        if all(stopped.values()):
            break
        try:
            x = torch.from_numpy(points(n, 91, -1, 1, 3)).to(dev)
            y = torch.from_numpy(points(n, 92, -1, 1, 3)).to(dev)
            b = torch.from_numpy(points(n, 93, 0, 1, 1)).to(dev)
            rows = torch.arange(0, n, max(1, n // 64), device=dev)
            d2, want, mag, best = ref_rows(x, y, b, rows)
            del d2
        except Exception:  # noqa: BLE001
            print("keops_peers.py: inputs 2^%d FAILED:" % e, flush=True)
            traceback.print_exc()
            continue
        pairs = float(n) * n
        for w, impl, call, check in (
                ("kernel_sum_3d", "KeOps LazyTensor (exp(-D_ij/2) * b_j).sum(dim=1)", lambda: ksum(x, y, b),
                 lambda r: _check_sum(r, rows, want, mag)),
                ("knn_3d", "KeOps LazyTensor D_ij.argmin(dim=1)", lambda: knn(x, y),
                 lambda r: _check_nn(r, x, y, rows, best))):
            if stopped[w]:
                continue
            try:
                tw = time.perf_counter()
                r = call()
                torch.cuda.synchronize()
                first = time.perf_counter() - tw
                ok, why = check(r)
                if not rec.check(ok, "%s %s 2^%d: %s" % (impl, w, e, why)):
                    continue
                # one more call by the host clock sizes the repetitions
                tw = time.perf_counter()
                call()
                torch.cuda.synchronize()
                est = time.perf_counter() - tw
                reps = max(3, min(25, int(5.0 / max(est, 1e-6))))
                ts = []
                for _ in range(reps):
                    s, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record()
                    call()
                    z.record()
                    z.synchronize()
                    ts.append(s.elapsed_time(z) * 1e-3)
                sec = statistics.median(ts)
                rec.row(w, impl, shape_str(n, n), pairs, sec, reps, pairs, "pairs/s")
                rec.progress("%-52s 2^%d x 2^%d: first call %.2f s, median %.4f s, %.3f T pairs/s"
                             % (impl, e, e, first, sec, pairs / sec * 1e-12))
                nxt = sec * 4 ** a.step  # pairs grow as n^2
                if sec > a.stop_s or nxt > a.max_next_s:
                    stopped[w] = True
                    print("keops_peers.py: %s took %.2f s at 2^%d (next size about %.0f s): no larger size"
                          % (w, sec, e, nxt), flush=True)
            except Exception:  # noqa: BLE001
                print("keops_peers.py: %s %s 2^%d FAILED:" % (impl, w, e), flush=True)
                traceback.print_exc()
                sys.stderr.flush()
        del x, y, b
        torch.cuda.empty_cache()
    print("keops_peers.py: %d rows in %s, %d checks failed, %.1f s" % (rec.rows, a.csv, rec.failures, time.time() - t0),
          flush=True)
    return 1 if rec.failures else 0


def _check_sum(r, rows, want, mag):
    got = r.reshape(-1)[rows].double()
    err = ((got - want).abs() / mag).max().item()
    return err <= 1e-5, "worst |a_i - ref| / sum |term| = %.3g" % err


def _check_nn(r, x, y, rows, best):
    import torch
    j = r.reshape(-1)[rows].long()
    if bool(((j < 0) | (j >= y.shape[0])).any()):
        return False, "index out of range"
    dj = ((x[rows].double() - y[j].double()) ** 2).sum(-1)
    bad = int((dj > best * (1 + 1e-5) + 1e-9).sum().item())
    return bad == 0, "%d of %d sampled queries not nearest" % (bad, len(rows))


if __name__ == "__main__":
    sys.exit(main())
