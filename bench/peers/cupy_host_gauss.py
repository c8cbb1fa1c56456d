"""CuPy's answer to issue 14's small-call figure: gaussian_pdf of a 2^20-float
host array as ``cp.asnumpy(kernel(cp.asarray(h)))`` (copy in, ElementwiseKernel,
copy out), median of timed calls after a warm-up; bench_stream prints ufunc's
time for the same call (a std::vector in, a new std::vector out), run just
before or after this in the same session. Usage: python3 cupy_host_gauss.py [log2 n]"""
import sys
import time

import numpy as np
import cupy as cp

n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 20)
ek = cp.ElementwiseKernel("float32 x", "float32 y", "y = expf(-0.5f * x * x) / 2.5066282746310002f", "gauss")
h = np.random.default_rng().standard_normal(n, dtype=np.float32)
want = np.exp(-0.5 * h.astype(np.float64) ** 2) / np.sqrt(2 * np.pi)


def call():
    return cp.asnumpy(ek(cp.asarray(h)))


assert np.allclose(call(), want, rtol=1e-5, atol=1e-7), "CuPy result wrong"
for _ in range(10):
    call()
t = []
for _ in range(100):
    t0 = time.perf_counter()
    call()
    t.append(time.perf_counter() - t0)
print("CuPy asnumpy(kernel(asarray(h))) 2^%d float32: median %.1f us" % (n.bit_length() - 1, 1e6 * float(np.median(t))))
