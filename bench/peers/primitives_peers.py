#!/usr/bin/env python3
"""The CuPy and PyTorch peers of issue 42's primitives, on the GPU machine, run right
after bench_sort and bench_primitives in the same lease (device-event timing, 3
warm-up calls, the median of 25; gpu_timing.py):

    python3 bench/peers/primitives_peers.py

The same shapes as the ufunc programs: sort and argsort of 2^28 float32, sort along
the rows of 2^14 x 2^14, topk k = 16 along the rows of 8192 x 8192, cumsum of 2^28
float32, add.at of 2^26 random indices into 2^20 float32 bins (cupyx.scatter_add,
torch index_add_), the sum of 2^27 complex64, and the complex64 matmul of 4096^3.
Prints one line per call in milliseconds.
"""
import gpu_timing


def show(name, ms):
    print("%-58s %9.3f ms" % (name, ms))


def run_cupy():
    import cupy as cp
    import cupyx

    ev, sync = gpu_timing.cupy_timing()
    t = lambda name, fn: gpu_timing.timed(name, fn, ev, sync, show)  # noqa: E731
    rng = cp.random.default_rng(20261129)
    x = rng.random(1 << 28, dtype=cp.float32)
    t("cupy.sort 2^28 float32", lambda: cp.sort(x))
    t("cupy.argsort 2^28 float32", lambda: cp.argsort(x))
    m = x.reshape(1 << 14, 1 << 14)
    t("cupy.sort(axis=-1) 2^14 x 2^14 float32", lambda: cp.sort(m, axis=-1))
    t("cupy.cumsum 2^28 float32", lambda: cp.cumsum(x))
    del m
    bins = cp.zeros(1 << 20, dtype=cp.float32)
    idx = rng.integers(0, 1 << 20, size=1 << 26, dtype=cp.int64)
    b = rng.random(1 << 26, dtype=cp.float32)
    t("cupyx.scatter_add: 2^26 indices into 2^20 float32 bins", lambda: cupyx.scatter_add(bins, idx, b))
    del bins, idx, b, x
    z = (rng.random(1 << 27, dtype=cp.float32) + 1j * rng.random(1 << 27, dtype=cp.float32)).astype(cp.complex64)
    t("cupy.sum 2^27 complex64", lambda: cp.sum(z))
    del z
    a = (rng.random((4096, 4096), dtype=cp.float32) + 1j * rng.random((4096, 4096), dtype=cp.float32)).astype(cp.complex64)
    t("cupy.matmul 4096^3 complex64", lambda: cp.matmul(a, a))


def run_torch():
    import torch

    ev, sync = gpu_timing.torch_timing()
    t = lambda name, fn: gpu_timing.timed(name, fn, ev, sync, show)  # noqa: E731
    g = torch.Generator(device="cuda").manual_seed(20261129)
    x = torch.rand(1 << 28, device="cuda", generator=g)
    t("torch.sort 2^28 float32 (stable=True)", lambda: torch.sort(x, stable=True))
    t("torch.argsort 2^28 float32 (stable=True)", lambda: torch.argsort(x, stable=True))
    t("torch.argsort 2^28 float32 (default)", lambda: torch.argsort(x))
    m = x.view(1 << 14, 1 << 14)
    t("torch.sort(dim=-1) 2^14 x 2^14 float32 (stable=True)", lambda: torch.sort(m, dim=-1, stable=True))
    k = x[: 8192 * 8192].view(8192, 8192)
    t("torch.topk(k=16, dim=-1) 8192 x 8192 float32", lambda: torch.topk(k, 16, dim=-1))
    t("torch.cumsum 2^28 float32", lambda: torch.cumsum(x, 0))
    del m, k
    bins = torch.zeros(1 << 20, device="cuda")
    idx = torch.randint(0, 1 << 20, (1 << 26,), device="cuda", generator=g)
    b = torch.rand(1 << 26, device="cuda", generator=g)
    t("torch.index_add_: 2^26 indices into 2^20 float32 bins", lambda: bins.index_add_(0, idx, b))
    del bins, idx, b, x
    z = torch.complex(torch.rand(1 << 27, device="cuda", generator=g), torch.rand(1 << 27, device="cuda", generator=g))
    t("torch.sum 2^27 complex64", lambda: torch.sum(z))
    del z
    a = torch.complex(torch.rand(4096, 4096, device="cuda", generator=g), torch.rand(4096, 4096, device="cuda", generator=g))
    t("torch.matmul 4096^3 complex64", lambda: torch.matmul(a, a))


for name, fn in (("cupy", run_cupy), ("torch", run_torch)):
    try:
        fn()
    except ImportError as e:
        print("%s: not importable (%s)" % (name, e))
