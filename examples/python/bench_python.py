"""Issue 39's Python figures: a ufunc function called from Python against the same
call made from C++, and the host cost of a small call against PyTorch's own.

    PYTHONPATH=build-py python3 examples/python/bench_python.py [--quick]

1. gaussian_pdf of a 2^27 float32 torch tensor into an existing tensor: device
   time per call of a batch of calls in a row (torch.cuda.Event around the batch)
   against the same calls made from C++ (ufunc_example._time_gaussian_pdf: the
   same ufunc on the same stream, CUDA events around the batch). Rounds
   alternate; medians. Target: the Python calls >= 0.97x the C++ calls' speed.
2. N = 1024: host time per call (time.perf_counter over a batch, the GPU
   synchronised between batches) of ufunc_example.gaussian_pdf(x, out=y) against
   torch.exp(x, out=y). Rounds alternate; medians. Target: <= 1.5x torch's.

Needs a CUDA-backend build of the module and PyTorch with a GPU; prints one line
per figure and exits 0 (figures are reported, never asserted).
"""
import statistics
import sys
import time

import ufunc_example as u

try:
    import torch
except ImportError:  # the figures need PyTorch on a GPU
    torch = None


def device_time_python(x, y, reps):
    """Device time per call of `reps` calls in a row (CUDA events around them)."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        u.gaussian_pdf(x, out=y)
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e-3 / reps


def host_time(fn, calls):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t = (time.perf_counter() - t0) / calls
    torch.cuda.synchronize()
    return t


def main():
    quick = "--quick" in sys.argv
    if torch is None or u.backend != "cuda" or not torch.cuda.is_available():
        print("bench_python: needs the CUDA-backend module, PyTorch and a GPU; nothing measured")
        return 0
    dev = torch.cuda.get_device_name()
    rounds, reps = (3, 5) if quick else (7, 20)

    n = 1 << (24 if quick else 27)
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    u.gaussian_pdf(x, out=y)  # warm-up: module, pool, kernel
    u._time_gaussian_pdf(x, y, 2)
    py, cpp = [], []
    for _ in range(rounds):
        py.append(device_time_python(x, y, reps))
        cpp.append(u._time_gaussian_pdf(x, y, reps))
    mp, mc = statistics.median(py), statistics.median(cpp)
    ratio = mc / mp
    gbs = 8 * n / mp / 1e9
    print(f"{dev}: gaussian_pdf 2^{n.bit_length() - 1} float32 into out: Python {mp * 1e6:.1f} us "
          f"({gbs:.0f} GB/s), C++ {mc * 1e6:.1f} us: Python at {ratio:.3f}x C++'s speed (target >= 0.97)")

    xs = torch.randn(1024, device="cuda", dtype=torch.float32)
    ys = torch.empty_like(xs)
    calls = 200 if quick else 1000
    f_u = lambda: u.gaussian_pdf(xs, out=ys)  # noqa: E731
    f_t = lambda: torch.exp(xs, out=ys)  # noqa: E731
    for f in (f_u, f_t):
        host_time(f, 100)
    tu, tt = [], []
    for _ in range(rounds):
        tu.append(host_time(f_u, calls))
        tt.append(host_time(f_t, calls))
    hu, ht = statistics.median(tu), statistics.median(tt)
    hc = u._time_gaussian_pdf(xs, ys, calls, True)
    print(f"{dev}: N=1024 host time per call: ufunc gaussian_pdf(x, out=y) {hu * 1e6:.2f} us "
          f"(the C++ call alone {hc * 1e6:.2f} us), torch.exp(x, out=y) {ht * 1e6:.2f} us: "
          f"{hu / ht:.2f}x (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
