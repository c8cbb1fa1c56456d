"""CuPy's and PyTorch's float32 sums on bench_sum_accuracy's data (issue 36):
N copies of 0.1f, and 2^24 followed by ones, at N = 2^27, 2^30, 2^32; whole sum
and column 0 of the (N / 1024, 1024) axis-0 sum; relative error against the
exact value. Prints one line per figure; a library that does not import is skipped."""
import math

def exact(kind, n):
    return n * float(__import__("numpy").float32(0.1)) if kind == 0 else 16777216.0 + (n - 1)

def run(name, full, sum_all, sum_axis0, free_bytes):
    for lg in (27, 30, 32):
        n = 1 << lg
        if free_bytes() < n * 4 + (1 << 30):
            print(f"{name} 2^{lg}: skipped (memory)")
            continue
        for kind in (0, 1):
            x = full(n, 0.1 if kind == 0 else 1.0)
            if kind == 1:
                x[0] = 16777216.0
            s = float(sum_all(x))
            c = float(sum_axis0(x.reshape(n // 1024, 1024))[0])
            rows = n // 1024
            e0 = exact(kind, rows)
            data = "0.1f each" if kind == 0 else "2^24 then ones"
            print(f"{name:8s} 2^{lg} {data:15s} sum {abs(s - exact(kind, n)) / exact(kind, n):.3g} "
                  f"axis0 {abs(c - e0) / e0:.3g}  target {2 * lg * 2.0 ** -24:.3g}")
            del x

try:
    import cupy as cp
    run("cupy", lambda n, v: cp.full(n, v, dtype=cp.float32), lambda x: x.sum(), lambda m: m.sum(axis=0),
        lambda: cp.cuda.runtime.memGetInfo()[0])
    cp.get_default_memory_pool().free_all_blocks()
except ImportError:
    print("cupy: not installed")
try:
    import torch
    run("pytorch", lambda n, v: torch.full((n,), v, dtype=torch.float32, device="cuda"), lambda x: x.sum(),
        lambda m: m.sum(dim=0), lambda: torch.cuda.mem_get_info()[0])
except ImportError:
    print("pytorch: not installed")
