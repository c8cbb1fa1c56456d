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

import gpu_timing

n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 28)


def show(name, ms):
    print("%-58s %8.3f ms  %7.1f GB/s written" % (name, ms, 4.0 * n / ms / 1e6))


def timed(name, fn, event, sync):
    gpu_timing.timed(name, fn, event, sync, show)


try:
    import cupy as cp

    ev, sync = gpu_timing.cupy_timing()
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

    ev, sync = gpu_timing.torch_timing()
    t = torch.empty(n, dtype=torch.float32, device="cuda")
    timed("torch.rand(n) (new tensor)", lambda: torch.rand(n, device="cuda"), ev, sync)
    timed("torch.Tensor.uniform_() (into x)", lambda: t.uniform_(), ev, sync)
    timed("torch.randn(n) (new tensor)", lambda: torch.randn(n, device="cuda"), ev, sync)
    timed("torch.Tensor.normal_() (into x)", lambda: t.normal_(), ev, sync)
except ImportError as e:
    print("torch: not importable (%s)" % e)
