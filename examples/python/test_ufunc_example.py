"""Tests of the ufunc_example module (examples/python): every function against a
NumPy float64 reference, out= written in place, results not copied, errors as
Python exceptions, lifetimes. The GPU tests (torch, cupy) run where the module
was built with the CUDA backend and torch/cupy and a GPU exist; else they skip.

Run: PYTHONPATH=<build dir> python3 -m pytest examples/python
"""
import gc
import math

import numpy as np
import pytest

import ufunc_example as u

EPS = np.finfo(np.float32).eps
SIZES = [0, 1, 1000, 100_000]


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def pdf_ref(x, mean=0.0, sigma=1.0):
    z = (np.asarray(x, np.float64) - mean) / sigma
    return np.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


def check_pdf(y, x, mean=0.0, sigma=1.0):
    ref = pdf_ref(x, mean, sigma)
    z = (np.asarray(x, np.float64) - mean) / sigma
    # (4 + 3 z^2/2) eps relative: the bound derived in examples/gaussian_pdf.cpp
    bound = (4.0 + 1.5 * z * z) * EPS * ref + 1e-38
    assert y.shape == ref.shape
    assert np.all(np.abs(np.asarray(y, np.float64) - ref) <= bound)


def weighted_exp_ref(x, y, w, a=0.0, b=0.0):
    x, y, w = (np.asarray(v, np.float64) for v in (x, y, w))
    return np.exp(-0.5 * ((x - a) ** 2 + (y - b) ** 2)) * w


def kernel_sum_ref(p, s, w, sigma):
    p, s, w = (np.asarray(v, np.float64) for v in (p, s, w))
    d2 = ((p[:, None, :] - s[None, :, :]) ** 2).sum(-1)
    return (np.exp(-0.5 * d2 / sigma**2) * w[None, :]).sum(1)


def sum_bound(x, axis):
    n = x.size if axis is None else (x.shape[axis] if x.ndim else 1)
    # docs/reductions.md: |computed - exact| <= (log2(N) + 32) eps sum|x_i|
    return (math.log2(max(n, 1)) + 32) * EPS * np.abs(np.asarray(x, np.float64)).sum(axis=axis)


def address(a):
    return a.__array_interface__["data"][0]


# ---------------------------------------------------------------------------
# gaussian_pdf


@pytest.mark.parametrize("n", SIZES)
def test_gaussian_pdf_sizes(rng, n):
    x = (rng.standard_normal(n) * 2).astype(np.float32)
    y = u.gaussian_pdf(x)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    check_pdf(y, x)
    y2 = u.gaussian_pdf(x, mean=0.5, sigma=2.0)
    check_pdf(y2, x, 0.5, 2.0)


def test_gaussian_pdf_strided(rng):
    x = rng.standard_normal(2001).astype(np.float32)
    check_pdf(u.gaussian_pdf(x[::2]), x[::2])
    check_pdf(u.gaussian_pdf(x[::-3]), x[::-3])  # negative stride
    m = rng.standard_normal((40, 30)).astype(np.float32)
    check_pdf(u.gaussian_pdf(m.T), m.T)  # transposed view
    check_pdf(u.gaussian_pdf(m[::3, 1::2]), m[::3, 1::2])
    s = np.float32(1.5) * np.ones((), np.float32)
    check_pdf(u.gaussian_pdf(s), s)  # 0-d


def test_gaussian_pdf_out_in_place(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    out = np.full(1000, -1.0, np.float32)
    r = u.gaussian_pdf(x, out=out)
    assert r is out
    check_pdf(out, x)
    # a strided out: every other element written, the rest untouched
    big = np.full(2000, -1.0, np.float32)
    r = u.gaussian_pdf(x, out=big[::2])
    assert np.shares_memory(r, big) and address(r) == address(big)
    check_pdf(big[::2], x)
    assert np.all(big[1::2] == -1.0)
    # in place: out is the input
    x2 = x.copy()
    assert u.gaussian_pdf(x2, out=x2) is x2
    check_pdf(x2, x)


def test_gaussian_pdf_out_errors(rng):
    x = rng.standard_normal(10).astype(np.float32)
    with pytest.raises(ValueError, match="gaussian_pdf"):
        u.gaussian_pdf(x, out=np.empty(11, np.float32))
    with pytest.raises(TypeError, match="out has dtype float64, float32 is required"):
        u.gaussian_pdf(x, out=np.empty(10, np.float64))
    ro = np.empty(10, np.float32)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        u.gaussian_pdf(x, out=ro)


def test_result_not_copied(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    y = u.gaussian_pdf(x)
    assert address(y) == u._last_result_address()
    assert not y.flags.owndata  # the memory belongs to the ufunc array behind it
    s = u.sum(x.reshape(10, 100), axis=1)
    assert address(s) == u._last_result_address()


def test_wrong_dtype_messages():
    x64 = np.ones(4, np.float64)
    x32 = np.ones(4, np.float32)
    with pytest.raises(TypeError, match=r"gaussian_pdf\(\): x has dtype float64, float32 is required"):
        u.gaussian_pdf(x64)
    with pytest.raises(TypeError, match=r"weighted_exp\(\): y has dtype int32"):
        u.weighted_exp(x32, np.ones(4, np.int32), x32)
    with pytest.raises(TypeError, match=r"kernel_sum\(\): weights has dtype float64"):
        u.kernel_sum(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), np.ones(2))
    with pytest.raises(TypeError, match=r"sum\(\): x must be an array that speaks DLPack"):
        u.sum([1.0, 2.0])  # a list speaks neither DLPack nor the buffer protocol
    with pytest.raises(TypeError):
        u.sum(np.ones(3, np.float16))


def test_read_only_input(rng):
    x = rng.standard_normal(100).astype(np.float32)
    x.flags.writeable = False
    check_pdf(u.gaussian_pdf(x), x)


# ---------------------------------------------------------------------------
# Lifetimes


def test_result_outlives_everything(rng):
    base = u._live_results()
    x = rng.standard_normal(100_000).astype(np.float32)
    ref = pdf_ref(x)
    y = u.gaussian_pdf(x)
    assert u._live_results() == base + 1
    del x  # the input freed after the call
    gc.collect()
    z = y[10:]  # a view keeps the result alive too
    del y
    gc.collect()
    np.testing.assert_allclose(z, ref[10:], rtol=1e-5, atol=1e-30)
    assert u._live_results() == base + 1
    del z
    gc.collect()
    assert u._live_results() == base  # freed once Python drops it: no leak


def test_many_results_freed(rng):
    base = u._live_results()
    x = rng.standard_normal(1000).astype(np.float32)
    for _ in range(200):
        u.sum(x)
        u.gaussian_pdf(x)
    gc.collect()
    assert u._live_results() == base


# ---------------------------------------------------------------------------
# Any DLPack object in: the framework-neutral result


class DLPackOnly:
    """An object that speaks DLPack and nothing else (no buffer protocol)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_any_dlpack_object(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    y = u.gaussian_pdf(DLPackOnly(x))
    assert not isinstance(y, np.ndarray)
    assert hasattr(y, "__dlpack__")  # nanobind's ndarray: DLPack both ways
    yn = np.from_dlpack(y)
    assert address(yn) == u._last_result_address()
    check_pdf(yn, x)


# ---------------------------------------------------------------------------
# weighted_exp (a lazy expression)


@pytest.mark.parametrize("n", SIZES)
def test_weighted_exp_sizes(rng, n):
    x, y, w = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    r = u.weighted_exp(x, y, w, a=0.25, b=-0.5)
    assert isinstance(r, np.ndarray) and r.shape == (n,) and r.dtype == np.float32
    np.testing.assert_allclose(r, weighted_exp_ref(x, y, w, 0.25, -0.5), rtol=2e-5, atol=1e-30)


def test_weighted_exp_broadcast_strided_out(rng):
    m = rng.standard_normal((60, 50)).astype(np.float32)
    x = m.T  # (50, 60), transposed
    y = rng.standard_normal(120).astype(np.float32)[::2]  # (60,), strided
    w = rng.random((50, 1)).astype(np.float32)
    r = u.weighted_exp(x, y, w)
    assert r.shape == (50, 60)
    np.testing.assert_allclose(r, weighted_exp_ref(x, y, w), rtol=2e-5, atol=1e-30)
    out = np.empty((50, 60), np.float32)
    assert u.weighted_exp(x, y, w, out=out) is out
    np.testing.assert_array_equal(out, r)
    with pytest.raises(ValueError, match="broadcast"):
        u.weighted_exp(x, np.ones(7, np.float32), w)


# ---------------------------------------------------------------------------
# kernel_sum (vec<3>, map_reduce over axis 1)


@pytest.mark.parametrize("n,m", [(0, 5), (5, 0), (1, 1), (1000, 1000), (100_000, 4), (3, 100_000)])
def test_kernel_sum_sizes(rng, n, m):
    p = rng.standard_normal((n, 3)).astype(np.float32)
    s = rng.standard_normal((m, 3)).astype(np.float32)
    w = rng.random(m).astype(np.float32)
    r = u.kernel_sum(p, s, w, sigma=0.75)
    assert isinstance(r, np.ndarray) and r.shape == (n,) and r.dtype == np.float32
    # weights >= 0: the reference is sum |term|; error like log2(m) ulps (README)
    np.testing.assert_allclose(r, kernel_sum_ref(p, s, w, 0.75), rtol=1e-5, atol=1e-30)


def test_kernel_sum_strided(rng):
    pt = rng.standard_normal((3, 200)).astype(np.float32)
    p = pt.T  # (200, 3), coordinates stored by column
    s = rng.standard_normal((600, 3)).astype(np.float32)[::2]
    w = rng.random(600).astype(np.float32)[::-2]
    r = u.kernel_sum(p, s, w, 0.5)
    np.testing.assert_allclose(r, kernel_sum_ref(p, s, w, 0.5), rtol=1e-5, atol=1e-30)


def test_kernel_sum_errors():
    p = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"points must be \(n,3\)"):
        u.kernel_sum(np.ones((4, 2), np.float32), p, np.ones(4, np.float32))
    with pytest.raises(ValueError, match="weights"):
        u.kernel_sum(p, p, np.ones(5, np.float32))
    with pytest.raises(ValueError, match="sigma must be positive"):
        u.kernel_sum(p, p, np.ones(4, np.float32), sigma=0.0)


# ---------------------------------------------------------------------------
# sum with axis


@pytest.mark.parametrize("n", SIZES)
def test_sum_sizes(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    r = u.sum(x)
    assert isinstance(r, np.ndarray) and r.shape == () and r.dtype == np.float32
    assert abs(float(r) - x.astype(np.float64).sum()) <= sum_bound(x, None) + 1e-30
    r0 = u.sum(x, axis=0)
    assert r0.shape == () and float(r0) == float(r)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -2])
def test_sum_axes(rng, axis):
    m = rng.standard_normal((300, 200)).astype(np.float32)
    for x in (m, m.T, m[::2, ::-3]):
        r = u.sum(x, axis=axis)
        ref = x.astype(np.float64).sum(axis=axis)
        assert r.shape == np.shape(ref)
        assert np.all(np.abs(r - ref) <= sum_bound(x, axis) + 1e-30)


def test_sum_3d_and_errors(rng):
    x = rng.standard_normal((7, 0, 5)).astype(np.float32)
    np.testing.assert_array_equal(u.sum(x, axis=1), np.zeros((7, 5), np.float32))
    x = rng.standard_normal((7, 11, 5)).astype(np.float32)
    np.testing.assert_allclose(u.sum(x, axis=1), x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        u.sum(x, axis=3)


# ---------------------------------------------------------------------------
# GPU: torch and cupy (CUDA-backend builds only)


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if u.backend != "cuda":
        pytest.skip("ufunc_example was built with the host backend")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    return torch


def test_torch_roundtrip():
    torch = _torch_cuda()
    x = torch.randn(100_000, device="cuda", dtype=torch.float32)
    y = u.gaussian_pdf(x)
    assert isinstance(y, torch.Tensor) and y.device == x.device and y.dtype == torch.float32
    assert y.data_ptr() == u._last_result_address()  # not copied
    check_pdf(y.cpu().numpy(), x.cpu().numpy())
    out = torch.empty_like(x)
    assert u.gaussian_pdf(x, out=out) is out
    torch.testing.assert_close(out, y)
    m = torch.randn(300, 200, device="cuda")
    torch.testing.assert_close(u.sum(m.T, axis=1).double(), m.T.double().sum(1), rtol=1e-5, atol=1e-4)
    s = u.sum(m)
    assert isinstance(s, torch.Tensor) and s.shape == ()
    p, q = torch.randn(500, 3, device="cuda"), torch.randn(700, 3, device="cuda")
    w = torch.rand(700, device="cuda")
    k = u.kernel_sum(p, q, w, 0.5)
    np.testing.assert_allclose(k.cpu().numpy(), kernel_sum_ref(p.cpu(), q.cpu(), w.cpu(), 0.5), rtol=1e-5)
    r = u.weighted_exp(x, x, x)
    np.testing.assert_allclose(r.cpu().numpy(), weighted_exp_ref(*(x.cpu().numpy(),) * 3), rtol=2e-5, atol=1e-30)
    with pytest.raises(TypeError, match="float32 is required"):
        u.gaussian_pdf(x.double())
    with pytest.raises(TypeError, match="one place"):
        u.weighted_exp(x, x.cpu(), x)


def test_torch_views_read_directly():
    """Plain float32 tensors are read without a DLPack capsule (pointer, shape and
    element strides from the tensor): every kind of view gives the values of the
    same view through NumPy, on the CPU and on the GPU."""
    torch = pytest.importorskip("torch")
    devices = ["cpu"] + (["cuda"] if u.backend == "cuda" and torch.cuda.is_available() else [])
    for dev in devices:
        base = torch.randn(64, 48, device=dev)
        views = [base, base.T, base[::3, 5:], base[:, 7], base[10:11, :].expand(9, 48), base[0, 0], base[:0]]
        for v in views:
            y = u.gaussian_pdf(v)
            assert isinstance(y, torch.Tensor) and y.shape == v.shape and y.device == v.device
            check_pdf(y.cpu().numpy(), v.cpu().numpy())
            # A transposed (strided) out of v's shape for matrices.
            out = (torch.empty(tuple(reversed(v.shape)), device=dev).T if v.dim() == 2
                   else torch.empty(v.shape, device=dev))
            assert u.gaussian_pdf(v, out=out) is out
            check_pdf(out.cpu().numpy(), v.cpu().numpy())
        # A tensor requiring grad goes through nanobind's DLPack import (its data,
        # no autograd): the same values, a result without grad.
        g = base.clone().requires_grad_(True)
        r = u.gaussian_pdf(g)
        assert not r.requires_grad
        torch.testing.assert_close(r, u.gaussian_pdf(base))


def test_torch_current_stream():
    torch = _torch_cuda()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randn(1 << 20, device="cuda")
        y = u.gaussian_pdf(x)  # on s: ordered after x's fill, before what s does next
        z = y * 2
    s.synchronize()
    check_pdf((z / 2).cpu().numpy(), x.cpu().numpy())
    y2 = u.gaussian_pdf(x, stream=s.cuda_stream)  # an explicit stream, DLPack's integer
    s.synchronize()
    torch.testing.assert_close(y2, y)


def test_import_before_torch():
    """The module first, then torch (whose libcudart may be newer than the one the
    module was built with): both work. With a shared libcudart the loader gave
    torch the module's older runtime and torch's import crashed."""
    _torch_cuda()
    import os
    import subprocess
    import sys

    code = ("import ufunc_example as u, torch; x = torch.randn(4096, device='cuda'); "
            "y = u.gaussian_pdf(x); torch.cuda.synchronize(); print(float((y - u.gaussian_pdf(x)).abs().max()))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "0.0"


def test_torch_caching_allocator_undisturbed():
    """ufunc allocates from its own pool: the caching allocator's reserved bytes
    follow the same sequence with and without ufunc calls in the loop, and the
    device's default pool (shared with cudaMallocAsync users) keeps its release
    threshold and reserve."""
    torch = _torch_cuda()
    dev = torch.cuda.current_device()
    before = u._default_pool_state(dev)

    def loop(with_ufunc):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        reserved = []
        for i in range(24):
            x = torch.randn(1 << (14 + i % 7), device="cuda")
            y = torch.exp(x)
            if with_ufunc:
                z = u.gaussian_pdf(x)  # a result from ufunc's pool, freed below
                u.gaussian_pdf(x, out=y)
                s = u.sum(x)
                w = u.sum(x.view(-1, 64), axis=0)
                del z, s, w
            reserved.append(torch.cuda.memory_reserved(dev))
            del x, y
        torch.cuda.synchronize()
        return reserved

    loop(True)  # warm-up: the module's kernels and ufunc's pool
    a = loop(False)
    b = loop(True)
    c = loop(False)
    assert a == b == c
    assert u._default_pool_state(dev) == before


def cupy_negative_strides_broken(cp):
    """Whether this CuPy's __dlpack__ gives a reversed view a wrong stride (CuPy
    issue #10172, fixed by its PR #10228): the capsule's DLTensor read with ctypes."""
    import ctypes

    class DLDevice(ctypes.Structure):
        _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

    class DLDataType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                    ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                    ("byte_offset", ctypes.c_uint64)]

    v = cp.arange(4, dtype=cp.float32)[::-1]
    cap = v.__dlpack__()  # unversioned: a "dltensor" capsule, deleted with it
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = DLTensor.from_address(get(cap, b"dltensor"))
    return t.ndim != 1 or not t.strides or t.strides[0] != -1


def test_cupy_roundtrip():
    cp = pytest.importorskip("cupy")
    if u.backend != "cuda":
        pytest.skip("ufunc_example was built with the host backend")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device for cupy")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device for cupy")
    x = cp.random.standard_normal(100_000, dtype=cp.float32)
    y = u.gaussian_pdf(x)
    assert isinstance(y, cp.ndarray)
    assert y.data.ptr == u._last_result_address()
    check_pdf(cp.asnumpy(y), cp.asnumpy(x))
    out = cp.empty_like(x)
    if cupy_negative_strides_broken(cp):
        # CuPy before PR #10228 (issue #10172) exports a negative stride divided as
        # unsigned (-4 bytes -> 2^62 - 1 elements): the view is refused, never read.
        with pytest.raises(ValueError, match="strides"):
            u.gaussian_pdf(x[::-1], out=out)
    else:
        assert u.gaussian_pdf(x[::-1], out=out) is out
        check_pdf(cp.asnumpy(out), cp.asnumpy(x[::-1]))
    out3 = cp.empty((x.size + 2) // 3, dtype=cp.float32)
    assert u.gaussian_pdf(x[::3], out=out3) is out3
    check_pdf(cp.asnumpy(out3), cp.asnumpy(x[::3]))
    m = cp.random.standard_normal((300, 200), dtype=cp.float32)
    np.testing.assert_allclose(cp.asnumpy(u.sum(m, axis=0)), cp.asnumpy(m).astype(np.float64).sum(0), rtol=1e-4,
                               atol=1e-4)
