"""cupyx.scatter_add and torch index_add_ alone (primitives_peers.py's add.at lines), for
alternating with bench_primitives in one lease (session 17, call 3)."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "peers"))
import gpu_timing


def show(name, ms):
    print("%-58s %9.3f ms" % (name, ms))


import cupy as cp
import cupyx

ev, sync = gpu_timing.cupy_timing()
rng = cp.random.default_rng(20261129)
bins = cp.zeros(1 << 20, dtype=cp.float32)
idx = rng.integers(0, 1 << 20, size=1 << 26, dtype=cp.int64)
b = rng.random(1 << 26, dtype=cp.float32)
gpu_timing.timed("cupyx.scatter_add: 2^26 indices into 2^20 float32 bins", lambda: cupyx.scatter_add(bins, idx, b), ev, sync, show)
import torch

tev, tsync = gpu_timing.torch_timing()
tb = torch.zeros(1 << 20, dtype=torch.float32, device="cuda")
ti = torch.as_tensor(idx, device="cuda")
tv = torch.as_tensor(b, device="cuda")
gpu_timing.timed("torch.index_add_: 2^26 indices into 2^20 float32 bins", lambda: tb.index_add_(0, ti, tv), tev, tsync, show)
