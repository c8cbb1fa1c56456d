"""Device-event timing shared by the GPU peer scripts (random_peers.py,
primitives_peers.py): 3 warm-up calls, then the median of `reps` calls, each
between two events recorded on the current stream."""


def elapsed_ms(a, b):
    """Milliseconds between two recorded events: PyTorch's Event.elapsed_time, or
    CuPy's cupy.cuda.get_elapsed_time (its Event has no such method)."""
    if hasattr(a, "elapsed_time"):
        return a.elapsed_time(b)
    import cupy as cp

    return cp.cuda.get_elapsed_time(a, b)


def median_ms(fn, event, sync, reps=25):
    """The median time of fn() in milliseconds. event(): a new timing event;
    sync(): waits for the device."""
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
    return ts[len(ts) // 2]


def timed(name, fn, event, sync, show, reps=25):
    """Prints show(name, ms) for fn's median time, or why the peer failed (an API
    that differs in the installed version: say so and go on)."""
    try:
        show(name, median_ms(fn, event, sync, reps))
    except Exception as e:  # noqa: BLE001
        print("%-58s failed: %s: %s" % (name, type(e).__name__, e))


def cupy_timing():
    import cupy as cp

    return (lambda: cp.cuda.Event()), cp.cuda.Device().synchronize


def torch_timing():
    import torch

    return (lambda: torch.cuda.Event(enable_timing=True)), torch.cuda.synchronize
