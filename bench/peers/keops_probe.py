#!/usr/bin/env python3
"""Issue 43: what KeOps needs on this machine, printed before keops_peers.py runs:
Python headers (pykeops compiles its pybind11 binder, pykeops_nvrtc, with g++
against Python.h at first use), g++, the CUDA driver, NVRTC and cudart as
ctypes.util.find_library sees them (keopscore's way of finding them), the CUDA
headers (CUDA_PATH/include: cuda.h, nvrtc.h), pykeops' own check_health(), and a
1000-point test of both formulas against dense torch. Exit status 0 when the test
passed. Warms KeOps' build folder (KEOPS_CACHE_FOLDER) for keops_peers.py."""
import ctypes.util, os, shutil, subprocess, sys, sysconfig, time, traceback


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as ex:  # noqa: BLE001
        return "(%s)" % ex


def main():
    print("python %s (%s)" % (sys.version.split()[0], sys.executable))
    inc = sysconfig.get_paths()["include"]
    print("Python.h: %s/Python.h %s" % (inc, "found" if os.path.isfile(os.path.join(inc, "Python.h")) else "MISSING"))
    print("pybind11 --includes: %s" % sh("%s -m pybind11 --includes" % sys.executable))
    print("g++: %s (%s)" % (shutil.which("g++"), sh("g++ --version | head -1")))
    print("nvcc: %s (%s)" % (shutil.which("nvcc"), sh("nvcc --version | tail -1")))
    for v in ("CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH", "KEOPS_CACHE_FOLDER", "PYTHONPATH"):
        print("%s=%s" % (v, os.environ.get(v)))
    for lib in ("cuda", "nvrtc", "cudart"):
        print("find_library(%r) = %s" % (lib, ctypes.util.find_library(lib)))
    print("ldconfig: " + " ".join(sh("ldconfig -p | grep -E 'libnvrtc|libcuda.so|libcudart' | awk '{print $NF}'").split()))
    cp = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    for h in ("cuda.h", "nvrtc.h", "cuda_fp16.h"):
        print("%s/include/%s: %s" % (cp, h, os.path.isfile(os.path.join(cp, "include", h))))
    print("nvidia-smi: %s" % sh("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader"))
    t0 = time.time()
    try:
        import torch
        print("torch %s, CUDA %s, GPU %s" % (torch.__version__, torch.version.cuda, torch.cuda.is_available()))
        import keopscore, pykeops
        print("pykeops %s, keopscore from %s, imported in %.1f s, build folder %s"
              % (pykeops.__version__, os.path.dirname(keopscore.__file__), time.time() - t0, pykeops.get_build_folder()),
              flush=True)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 1
    try:
        pykeops.check_health()
    except Exception:  # noqa: BLE001
        print("check_health failed:")
        traceback.print_exc()
    sys.stdout.flush()
    try:
        from pykeops.torch import LazyTensor
        g = torch.Generator().manual_seed(0)
        x = (torch.rand(1000, 3, generator=g) * 2 - 1).cuda()
        y = (torch.rand(1000, 3, generator=g) * 2 - 1).cuda()
        b = torch.rand(1000, 1, generator=g).cuda()
        t0 = time.time()
        x_i, y_j, b_j = LazyTensor(x[:, None, :]), LazyTensor(y[None, :, :]), LazyTensor(b[None, :, :])
        d2 = ((x_i - y_j) ** 2).sum(-1)
        a = ((-d2 / 2).exp() * b_j).sum(dim=1)
        torch.cuda.synchronize()
        print("kernel sum: first call (code generation + NVRTC) %.1f s" % (time.time() - t0), flush=True)
        t0 = time.time()
        nn = d2.argmin(dim=1)
        torch.cuda.synchronize()
        print("argmin: first call %.1f s" % (time.time() - t0), flush=True)
        D = ((x.double()[:, None, :] - y.double()[None, :, :]) ** 2).sum(-1)
        ref = torch.exp(-D / 2) @ b.double()
        err = ((a.double() - ref).abs() / ref.abs()).max().item()
        dn = D.gather(1, nn.long().reshape(-1, 1)).reshape(-1)
        bad = int((dn > D.min(dim=1).values * (1 + 1e-5) + 1e-9).sum().item())
        ok = err < 1e-5 and bad == 0
        print("1000-point test: kernel sum worst relative error %.2e, 1-NN %d of 1000 wrong: %s"
              % (err, bad, "OK" if ok else "FAILED"))
        return 0 if ok else 1
    except Exception:  # noqa: BLE001
        print("1000-point test FAILED:")
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
