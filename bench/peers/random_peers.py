#!/usr/bin/env python3
"""The random-number peers of bench/bench_random.cu (issue 41), on the GPU machine:
2^28 float32 uniforms and normals from CuPy and PyTorch, into existing arrays where
the library allows it (what ufunc::random::fill_uniform/fill_normal do) and as new
arrays. Device-event timing, 3 warm-up calls, the median of 25. Run it right
after bench_random in the same lease:

    python3 bench/peers/random_peers.py [log2 n]      (default 28)

Prints one line per call: milliseconds and the bytes written per second.
"""
import sys

n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 28)


def timed(name, fn, event, sync, reps=25):
    try:
        run(name, fn, event, sync, reps)
    except Exception as e:  # noqa: BLE001 (a peer's API differs in this version: say so, go on)
        print("%-58s failed: %s: %s" % (name, type(e).__name__, e))


def elapsed_ms(a, b):
    """Milliseconds between two recorded events: PyTorch's Event.elapsed_time, or
    CuPy's cupy.cuda.get_elapsed_time (its Event has no such method)."""
    if hasattr(a, "elapsed_time"):
        return a.elapsed_time(b)
    import cupy as cp

    return cp.cuda.get_elapsed_time(a, b)


def run(name, fn, event, sync, reps):
    for _ in range(3):
        fn()
    sync()
    ts = []
    for _ in range(reps):
        a, b = event(), event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(elapsed_ms(a, b))
    ts.sort()
    ms = ts[len(ts) // 2]
    print("%-58s %8.3f ms  %7.1f GB/s written" % (name, ms, 4.0 * n / ms / 1e6))


try:
    import cupy as cp

    ev, sync = (lambda: cp.cuda.Event()), cp.cuda.Device().synchronize
    out = cp.empty(n, dtype=cp.float32)
    rng = cp.random.default_rng(20261128)
    timed("cupy.random.random(n, float32) (new array)", lambda: cp.random.random(n, dtype=cp.float32), ev, sync)
    timed("cupy default_rng().random(out=x) (into x)", lambda: rng.random(dtype=cp.float32, out=out), ev, sync)
    timed("cupy.random.standard_normal(n, float32) (new array)",
          lambda: cp.random.standard_normal(n, dtype=cp.float32), ev, sync)
    timed("cupy default_rng().standard_normal(out=x) (into x)",
          lambda: rng.standard_normal(dtype=cp.float32, out=out), ev, sync)
    del out
except ImportError as e:
    print("cupy: not importable (%s)" % e)

try:
    import torch

    ev, sync = (lambda: torch.cuda.Event(enable_timing=True)), torch.cuda.synchronize
    t = torch.empty(n, dtype=torch.float32, device="cuda")
    timed("torch.rand(n) (new tensor)", lambda: torch.rand(n, device="cuda"), ev, sync)
    timed("torch.Tensor.uniform_() (into x)", lambda: t.uniform_(), ev, sync)
    timed("torch.randn(n) (new tensor)", lambda: torch.randn(n, device="cuda"), ev, sync)
    timed("torch.Tensor.normal_() (into x)", lambda: t.normal_(), ev, sync)
except ImportError as e:
    print("torch: not importable (%s)" % e)
