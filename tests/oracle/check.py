#!/usr/bin/env python3
"""Recomputes every case of a ufunc_oracle_gen run with NumPy and compares.

    check.py PREFIX [--same-as OTHER_PREFIX] [--gen PATH]

PREFIX.jsonl holds one JSON line per case, PREFIX.bin its arrays (README.md in
this folder). A case passes when ufunc and NumPy agree:
  - both raise: ufunc's typed error must match NumPy's exception class
    (shape_error -> ValueError or IndexError, value_error -> ValueError);
  - both return: same shape, same dtype, and values
      * integers and bools: exactly;
      * floats, single correctly rounded operations (add, subtract, multiply,
        maximum, minimum, comparisons, copies, transposes, slices): exactly
        (NaN equals NaN);
      * hypot: within 2 ulp of NumPy's (libm and CUDA differ in the last bits);
      * anything else (sums, means, products, accumulate, matmul, fused
        expressions): within a bound against a float64 reference computed from
        the same inputs (see tolerance()), with non-finite references matched
        exactly;
  - or the difference is explained by an entry of known_differences.py (each
    with its reason and the fix that will remove it); the count per entry is
    printed, so an entry that stops matching after its fix can be deleted.
Anything else fails with a reproducer: the case's seed/category/index, the
command that regenerates it alone, the shapes, dtypes, inputs when small, the
one-line C++ call, and both results.

--same-as: also compares this run's results byte for byte with another run of
the same seed (another OMP thread count), case by case (this run may hold a
part of the other's cases), except float reductions, which may differ in
rounding within their bound (both runs are checked against NumPy).
"""
import json
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import known_differences  # noqa: E402

warnings.simplefilter("ignore")  # NaN means, overflow in int8 arithmetic: expected
np.seterr(all="ignore")

ERROR_CLASSES = {"shape_error": (ValueError, IndexError), "value_error": (ValueError,)}


class Blob:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()

    def arr(self, d):
        shape = tuple(d["shape"])
        n = int(np.prod(shape, dtype=np.int64))
        a = np.frombuffer(self.data, dtype=np.dtype(d["dtype"]), count=n, offset=d["off"])
        return a.reshape(shape).copy()

    def raw(self, d):
        n = int(np.prod(d["shape"], dtype=np.int64)) * np.dtype(d["dtype"]).itemsize
        return self.data[d["off"]: d["off"] + n]


try:
    from numpy.lib.array_utils import normalize_axis_index  # NumPy >= 2
except ImportError:
    from numpy.core.multiarray import normalize_axis_index  # NumPy 1.x (Debian 12: 1.24)


def slice_axis(v, axis, start, stop, step):
    axis = normalize_axis_index(axis, v.ndim)  # AxisError (a ValueError and an IndexError)
    idx = [slice(None)] * v.ndim
    idx[axis] = slice(start, stop, step)
    return v[tuple(idx)]


def operand(blob, spec):
    """(base, view): the case's input rebuilt with NumPy indexing."""
    base = blob.arr(spec["base"])
    v = base
    for axis, start, stop, step in spec["slices"]:
        v = slice_axis(v, axis, start, stop, step)
    if spec["perm"] is not None:
        v = v.transpose(spec["perm"])
    return base, v


def operand_mask(spec, inside):
    """Marks (in a boolean array of the base's shape) the elements of the view."""
    v = inside
    for axis, start, stop, step in spec["slices"]:
        v = slice_axis(v, axis, start, stop, step)
    v[...] = True


BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum, "hypot": np.hypot, "less": np.less, "not_equal": np.not_equal}


def ufunc_of(name, dtype):
    if name == "subtract" and dtype == np.bool_:
        return np.not_equal  # C++ bool(a - b) is a xor b; NumPy has no bool subtract
    return BINARY[name]


def is_float(dt):
    return np.issubdtype(dt, np.floating)


def blob_init(c):
    """The initial value of a sharded reduce(op, init) case (read by check_file)."""
    return c["_init"][()]


def numpy_expected(c, blob, ins):
    """NumPy's result for case c: an ndarray (or ('out', base)); raises NumPy's error."""
    cat, op = c["cat"], c["op"]
    dt = np.dtype(c["dtype"]) if "dtype" in c else None
    x = [v for _, v in ins]
    if cat == "binary":
        f = ufunc_of(op, dt)
        if "out_is_input" in c:
            base0 = ins[0][0]
            f(x[0], x[1], out=x[0])
            return ("out", base0)
        if "out" in c:
            obase, ov = operand(blob, c["out"])
            f(x[0], x[1], out=ov)
            return ("out", obase)
        return np.asarray(f(x[0], x[1]))
    if cat == "reduce":
        f = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean,
             "argmin": np.argmin, "argmax": np.argmax}[op]
        form = c["form"]
        arg = op.startswith("arg")
        if form == 0:
            return np.asarray(f(x[0]))
        if form == 3:
            return np.asarray(f(x[0], keepdims=True))
        axes = c["axes"][0] if arg else tuple(c["axes"])
        if form == 4 and "out" in c:
            obase, ov = operand(blob, c["out"])
            f(x[0], axis=axes, out=ov)
            return ("outview", np.copy(ov, order="C"), obase)
        return np.asarray(f(x[0], axis=axes, keepdims=form == 2))
    if cat == "methods":
        f = ufunc_of(op, dt)
        m = c["method"]
        if m == "outer":
            return np.asarray(f.outer(x[0], x[1]))
        kw = {"axis": c["axis"]} if "axis" in c else {}
        if m == "reduce":
            return np.asarray(f.reduce(x[0], dtype=dt, keepdims=c["form"] >= 2, **kw))
        return np.asarray(f.accumulate(x[0], dtype=dt, **kw))
    if cat == "matmul":
        return np.asarray(np.matmul(x[0], x[1]))
    if cat == "transpose":
        return np.copy(np.transpose(x[0], c.get("axes")), order="C")  # ascontiguousarray makes 0-d 1-d
    if cat.startswith("sliced"):
        v = ins[0][0]
        for step in c["chain"]:
            if step[0] == "slice":
                v = slice_axis(v, *step[1:])
            elif step[0] == "transpose":
                v = v.T
            else:
                v = v.transpose(step[1])
        return np.copy(v, order="C")
    if cat == "lazy":
        form = c["form"]
        add, mul, sub = ufunc_of("add", dt), ufunc_of("multiply", dt), ufunc_of("subtract", dt)
        if form == 0:
            return np.asarray(add(mul(x[0], x[1]), x[2]))
        if form == 1:  # C++'s arithmetic conversions: compute in the result type
            rt = np.dtype(c["result"]["dtype"]) if "result" in c else np.result_type(dt, np.int32)
            y = [a.astype(rt) for a in x]
            return np.asarray(y[0] * y[1] - y[2])
        if form == 2:
            return np.asarray(sub(mul(x[0], x[1]), x[2]))
        if form == 3:
            return np.asarray(np.sum(mul(x[0], x[1]), axis=tuple(c["axes"]), keepdims=c["keepdims"]))
        return np.asarray(np.max(add(x[0], x[1])))
    if cat == "pairwise":
        t = pairwise_terms(c, x, dt)
        f = {"plus": np.sum, "minimum": np.min, "maximum": np.max, "argmin": np.argmin, "argmax": np.argmax}[op]
        kw = {}
        if op in ("minimum", "maximum"):  # ufunc's ops have identities (README): NumPy's `initial`
            big = np.inf if is_float(dt) else np.iinfo(dt).max
            kw["initial"] = dt.type(big if op == "minimum" else -big - (0 if is_float(dt) else 1))
        if c["form"] == 1 and "out" not in c:  # ufunc raised before making out: NumPy's error, if any
            return np.asarray(f(t, axis=c["axis"], keepdims=True, **kw))
        if c["form"] == 1:
            obase, ov = operand(blob, c["out"])
            f(t, axis=c["axis"], keepdims=True, out=ov, **kw)
            return ("outview", np.copy(ov, order="C"), obase)
        return np.asarray(f(t, axis=c["axis"], **kw))
    if cat == "sharded":  # the sharded array's data is x[0] (its split is ufunc's business only)
        form = c["form"]
        kw = {} if form == 0 else {"keepdims": True} if form == 3 else {"axis": tuple(c["axes"]),
                                                                          "keepdims": form == 2}
        if form == 0 or form == 3:
            kw["axis"] = None
        a = x[0]
        if op == "map_reduce_square":
            return np.asarray(np.sum(np.multiply(a, a), **kw))
        if op == "lazy_sum":
            return np.asarray(np.sum(np.add(a, a), **kw))
        if op == "reduce_plus_init":
            return np.asarray(np.sum(a, initial=blob_init(c), **kw))
        if op in ("reduce_larger", "reduce_larger_init"):
            if op == "reduce_larger_init":
                kw["initial"] = blob_init(c)
            return np.asarray(np.maximum.reduce(a, **kw))
        f = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean}[op]
        return np.asarray(f(a, **kw))
    if cat == "gufunc":
        form = c["form"]
        if form <= 1:  # a gufunc's rules (np.einsum would broadcast core dims of 1)
            cores = [["m", "n"], ["n"]] if form == 0 else [["n"], ["n"]]
            gufunc_bind(cores, x)
            return np.asarray(np.einsum("...mn,...n->...m" if form == 0 else "...n,...n->...", x[0], x[1]))
        want = np.flip(x[0], -1) if form == 2 else np.swapaxes(x[0], -1, -2)
        if "out" in c:
            obase, ov = operand(blob, c["out"])
            ov[...] = want
            return ("out", obase)
        return np.copy(want, order="C")
    if cat == "primitives":
        form = c["form"]
        if form in (0, 1, 3):
            r = np.asarray((np.cumprod if form == 1 else np.cumsum)(x[0], axis=c["axis"]))
            return shift(r, c["axis"] % r.ndim) if form == 3 else r  # exclusive: 0 first
        if form == 2:
            return np.asarray(np.cumsum(x[0]))
        if form == 4:
            return np.asarray(np.searchsorted(x[0], x[1], side=c["side"]))
        if form == 6:
            return np.asarray(BINARY[c["ufunc"]].reduceat(x[0], x[1], axis=c["axis"]))
        a = np.copy(x[0])
        np.add.at(a, x[1], x[2])
        return a
    if cat == "sort":
        return sort_expected(c, x[0])
    if cat == "complex":
        form = c["form"]
        if form == 0:
            return np.asarray(x[0] * np.conj(x[1]))
        if form == 1:
            return np.asarray(np.abs(x[0]))
        f = {2: np.sum, 3: np.prod, 4: np.mean}[form]
        return np.asarray(f(x[0], axis=c.get("axis")))
    raise RuntimeError("check.py: unknown category " + cat)


def sort_expected(c, x):
    """NumPy's counterpart of a "sort" case (cat_sort.cpp's forms)."""
    form = c["form"]
    if form == 0:
        return np.sort(x, axis=c["axis"], kind="stable")
    if form == 1:
        return np.argsort(x, axis=c["axis"], kind="stable")
    if form == 2:
        return np.unique(x)
    if form == 3:
        return np.unique(x, return_counts=True)[1]
    if form == 4:
        return np.unique(x, return_inverse=True)[1].reshape(x.shape)
    if form == 5:
        return np.unique(x, return_index=True)[1]
    # topk: the first k of the stable order, descending for largest (NaN first,
    # ties lower index first: the reversed stable argsort of the flipped row).
    ax = np.lib.array_utils.normalize_axis_index(c["axis"], x.ndim)
    n, k = x.shape[ax], c["k"]
    if not 0 <= k <= n:
        raise ValueError("k = %d not in [0, %d]" % (k, n))
    if c["largest"]:
        idx = n - 1 - np.flip(np.argsort(np.flip(x, ax), axis=ax, kind="stable"), ax)
    else:
        idx = np.argsort(x, axis=ax, kind="stable")
    idx = np.take(idx, np.arange(k), axis=ax)
    return np.take_along_axis(x, idx, axis=ax) if form == 6 else idx


def shift(r, ax):
    """r moved one place along axis ax, 0 first (an exclusive scan from an inclusive one)."""
    e = np.zeros_like(r)
    n = r.shape[ax]
    if n > 1:
        dst = [slice(None)] * r.ndim
        src = [slice(None)] * r.ndim
        dst[ax], src[ax] = slice(1, n), slice(0, n - 1)
        e[tuple(dst)] = r[tuple(src)]
    return e


def gufunc_bind(cores, xs):
    """NumPy's gufunc checks: each operand has its core dims, a name one extent, the loop dims broadcast."""
    sizes = {}
    for core, a in zip(cores, xs):
        if a.ndim < len(core):
            raise ValueError("an operand has fewer dims than its core")
        for name, e in zip(core, a.shape[a.ndim - len(core):]):
            if sizes.setdefault(name, e) != e:
                raise ValueError("core dimension %s mismatch" % name)
    np.broadcast_shapes(*[a.shape[:a.ndim - len(core)] for core, a in zip(cores, xs)])


def pairwise_parts(c, x):
    """The coordinates of x and y (D arrays each, or one for plain points) and the weights."""
    d = c["D"]
    comps = (lambda a: [a[..., k] for k in range(d)]) if d > 0 else (lambda a: [a])
    return comps(x[0]), comps(x[1]), (x[2] if len(x) > 2 else None)


def pairwise_terms(c, x, dt):
    """The pairwise case's mapped terms f(x_i, y_j[, b_j]) over the broadcast loop shape,
    computed in the case's dtype with the C++ functors' order of operations."""
    xs, ys, b = pairwise_parts(c, x)
    fn = c["fn"]
    if fn == "dot":
        s = xs[0] * ys[0]
        for k in range(1, len(xs)):
            s = s + xs[k] * ys[k]
        return s * b
    s = (xs[0] - ys[0]) * (xs[0] - ys[0])
    for k in range(1, len(xs)):
        s = s + (xs[k] - ys[k]) * (xs[k] - ys[k])
    if fn == "sqdist":
        return s
    return np.exp(dt.type(-0.5) * s) * b  # gauss


def pairwise_sum_tolerance(c, ins, eps):
    """(float64 reference, bound) of a pairwise sum over m terms. The engines fold
    up to 256 terms serially (the GPU's tile; the host's runs are 32) and combine
    those partials as a tree, so on top of the tree's (ceil(log2 m) + 2) the bound
    allows sqrt(min(m, 256)) * eps * sum|t| for the serial runs (their error's
    probabilistic bound: Higham's sqrt(n) rule; the worst case, m eps, is never
    approached by rounding errors of random sign). Each term's own rounding (the
    float computation of f) adds k * eps * its magnitude: sqdist and dot about
    D + 2 roundings of sum|products|, gauss exp's argument error 0.5 s (D + 2) eps
    plus 4 ulp."""
    x = [v.astype(np.float64) for _, v in ins]
    xs, ys, b = pairwise_parts(c, x)
    nc = len(xs)
    axis = c["axis"]
    s = sum((xs[k] - ys[k]) ** 2 for k in range(nc))
    fn = c["fn"]
    if fn == "sqdist":
        t, mag = s, s
    elif fn == "dot":
        t = sum(xs[k] * ys[k] for k in range(nc)) * b
        mag = sum(np.abs(xs[k] * ys[k]) for k in range(nc)) * np.abs(b)
    else:
        t = np.exp(-0.5 * s) * b
        mag = np.where(t == 0, 0.0, np.abs(t) * (0.5 * s + 1.0))  # exp(-inf) * b is an exact 0
    t, mag = np.broadcast_arrays(t, mag)
    m = t.shape[axis] if t.ndim else 1
    ref = np.sum(t, axis=axis, keepdims=c["form"] == 1)
    bound = ((math.ceil(math.log2(max(m, 2))) + 2 + math.sqrt(min(m, 256))) * eps
             * np.sum(np.abs(t), axis=axis, keepdims=c["form"] == 1)
             + (nc + 4) * eps * np.sum(mag, axis=axis, keepdims=c["form"] == 1))
    return ref, bound


def float_reduction(c):
    """Cases whose float result depends on the order of a reduction."""
    if not is_float(np.dtype(c.get("dtype", "int8"))):
        return False
    return ((c["cat"] in ("reduce", "sharded") and c["op"] in ("sum", "prod", "mean", "map_reduce_square",
                                                              "reduce_plus_init", "lazy_sum"))
            or (c["cat"] == "methods" and c["method"] != "outer" and c["op"] != "maximum")
            or c["cat"] == "matmul" or (c["cat"] == "lazy" and c["form"] == 3)
            or (c["cat"] == "primitives" and c["form"] not in (4, 6)))  # reduceat: the same order on any thread count


def tolerance(c, ins, want):
    """(reference in float64, bound) for float results that are not exact, else None.

    A reduction of n terms in any order (a tree, pairwise, chunks) is within
    (ceil(log2 n) + 2) * eps * sum|x| of the exact sum for a tree, n * eps * sum|x|
    for a sequential scan; products within (n + 2) * eps * |p|; a fused
    multiply-add within 2 * eps * (|a b| + |c|); matmul within (k + 2) * eps * (|A| @ |B|).
    eps is the result type's machine epsilon.
    """
    cat, op = c["cat"], c["op"]
    dt = want.dtype
    if not is_float(dt):
        return None
    eps = float(np.finfo(dt).eps)
    x = [v.astype(np.float64) for _, v in ins]
    if cat == "binary" or cat in ("transpose",) or cat.startswith("sliced"):
        if op == "hypot":  # against NumPy's own float result (also an out's whole base)
            ref = want.astype(np.float64)
            return ref, 2 * eps * np.abs(ref)
        return None
    if cat == "reduce":
        if op in ("min", "max", "argmin", "argmax"):
            return None
        form = c["form"]
        axes = None if form in (0, 3) else tuple(c["axes"])
        keep = form in (2, 3)
        n = x[0].size // max(want.size, 1) if want.size else 0
        if op == "prod":
            ref = np.prod(x[0], axis=axes, keepdims=keep)
            return ref, (n + 2) * eps * np.abs(ref)
        ref = np.sum(x[0], axis=axes, keepdims=keep)
        b = (math.ceil(math.log2(max(n, 2))) + 2) * eps * np.sum(np.abs(x[0]), axis=axes, keepdims=keep)
        if op == "mean":
            m = np.mean(x[0], axis=axes, keepdims=keep)  # NaN for an empty input
            return m, b / max(n, 1) + eps * np.abs(m)
        return ref, b
    if cat == "sharded":
        # The unsharded bound plus one rounding per shard: each shard's tree sum
        # (or product), then the partials combined in shard order.
        if op in ("min", "max", "reduce_larger", "reduce_larger_init"):
            return None
        form = c["form"]
        axes = None if form in (0, 3) else tuple(c["axes"])
        keep = form in (2, 3)
        shards = len(c["shards"])
        a = x[0]
        if op == "map_reduce_square":  # the terms as the map rounds them
            a = np.multiply(ins[0][1], ins[0][1]).astype(np.float64)
        elif op == "lazy_sum":
            a = np.add(ins[0][1], ins[0][1]).astype(np.float64)
        n = a.size // max(want.size, 1) if want.size else 0
        if op == "prod":
            ref = np.prod(a, axis=axes, keepdims=keep)
            return ref, (n + 2 + shards) * eps * np.abs(ref)
        ref = np.sum(a, axis=axes, keepdims=keep)
        scale = np.sum(np.abs(a), axis=axes, keepdims=keep)
        if op == "reduce_plus_init":
            init = float(blob_init(c))
            ref, scale, n = ref + init, scale + abs(init), n + 1
        b = (math.ceil(math.log2(max(n, 2))) + 2 + shards) * eps * scale
        if op == "mean":
            m = np.mean(a, axis=axes, keepdims=keep)  # NaN for an empty input
            return m, b / max(n, 1) + eps * np.abs(m)
        return ref, b
    if cat == "methods":
        m = c["method"]
        if m == "outer":
            return (np.hypot.outer(x[0], x[1]), 2 * eps * np.abs(np.hypot.outer(x[0], x[1]))) if op == "hypot" else None
        if op == "maximum":
            return None
        ax = c.get("axis", 0)
        n = x[0].shape[ax] if x[0].ndim else 1
        f = {"add": np.add, "multiply": np.multiply, "hypot": np.hypot}[op]
        if m == "reduce":
            keep = c["form"] >= 2
            ref = f.reduce(x[0], axis=ax, keepdims=keep)
            scale = np.add.reduce(np.abs(x[0]), axis=ax, keepdims=keep) if op == "add" else np.abs(ref)
        else:
            ref = f.accumulate(x[0], axis=ax)
            scale = np.add.accumulate(np.abs(x[0]), axis=ax) if op == "add" else np.abs(ref)
        return ref, (n + 2) * 2 * eps * scale
    if cat == "matmul":
        ref = np.matmul(x[0], x[1])
        k = x[0].shape[-1]
        return ref, (k + 2) * eps * np.matmul(np.abs(x[0]), np.abs(x[1]))
    if cat == "primitives":
        form = c["form"]
        if form == 4:
            return None  # indices: exactly
        if form == 6:  # each output a reduction of at most n (the axis' length) elements, in any order
            f = BINARY[c["ufunc"]]
            if f in (np.maximum, np.minimum):
                return None  # picks an element: exactly
            v, idx = x[0], ins[1][1]
            ax = c["axis"]
            n = v.shape[ax]
            ref = f.reduceat(v, idx, axis=ax)
            scale = np.add.reduceat(np.abs(v), idx, axis=ax) if f is np.add else np.abs(ref)
            return ref, (n + 2) * 2 * eps * scale
        if form == 5:  # the sums at each index, in any order
            a, idx, b = x[0], ins[1][1], x[2]  # (x is float64; the indices as given)
            ref, scale, cnt = np.copy(a), np.abs(a), np.zeros(a.shape)
            np.add.at(ref, idx, b)
            np.add.at(scale, idx, np.abs(b))
            np.add.at(cnt, idx, 1)
            return ref, (cnt + 2) * eps * scale
        v = x[0].astype(np.float64)
        if v.ndim == 0:  # NumPy scans a 0-d array as one element
            v = v.reshape(1)
        if form == 2:
            v = v.reshape(-1)
            ax = 0
        else:
            ax = c["axis"]
        n = v.shape[ax] if v.ndim else 1
        if form == 1:
            ref = np.cumprod(v, axis=ax)
            return ref, (n + 2) * 2 * eps * np.abs(ref)
        ref, scale = np.cumsum(v, axis=ax), np.cumsum(np.abs(v), axis=ax)
        if form == 3:
            ref, scale = shift(ref, ax % v.ndim), shift(scale, ax % v.ndim)
        return ref, (n + 2) * 2 * eps * scale
    if cat == "gufunc":
        if c["form"] > 1:
            return None  # copies: exactly
        sub = "...mn,...n->...m" if c["form"] == 0 else "...n,...n->..."
        a, b = x[0].astype(np.float64), x[1].astype(np.float64)
        n = x[1].shape[-1]  # a sequential sum of n products, each rounded once
        return np.einsum(sub, a, b), (n + 2) * eps * np.einsum(sub, np.abs(a), np.abs(b))
    if cat == "pairwise":
        if op != "plus":
            return None  # extrema and arg* of exact terms: exactly
        return pairwise_sum_tolerance(c, ins, eps)
    if cat == "lazy":
        form = c["form"]
        if form in (0, 1, 2):
            prod = x[0] * x[1]
            ref = prod + x[2] if form == 0 else prod - x[2]
            return ref, 2 * eps * (np.abs(prod) + np.abs(x[2]))
        if form == 3:
            prod = x[0] * x[1]
            axes = tuple(c["axes"])
            ref = np.sum(prod, axis=axes, keepdims=c["keepdims"])
            n = prod.size // max(want.size, 1) if want.size else 0
            b = (math.ceil(math.log2(max(n, 2))) + 3) * eps * np.sum(np.abs(prod), axis=axes, keepdims=c["keepdims"])
            return ref, b
        return None
    return None


def complex_tolerance(c, ins, want):
    """(complex128 reference, bound on each part) of a complex case's result:
    x * conj(y) within 4 eps |x| |y|, |x| within 2 eps |x|, a sum of n terms within
    (log2 n + 32) eps sum|part| per part (docs/reductions.md), a product within
    (n + 2) 4 eps prod|x|, a mean the sum's bound / n plus eps |mean|."""
    eps = float(np.finfo(want.real.dtype).eps)
    x = [v.astype(np.complex128) for _, v in ins]
    form, ax = c["form"], c.get("axis")
    if form == 0:
        ref = x[0] * np.conj(x[1])
        b = 4 * eps * np.abs(x[0]) * np.abs(x[1])
        return ref, b, b
    if form == 1:
        ref = np.abs(x[0])
        return ref, 2 * eps * ref, None
    n = x[0].size // max(want.size, 1) if want.size else 0
    lg = math.log2(max(n, 2)) + 32
    if form == 3:
        ref = np.prod(x[0], axis=ax)
        b = (n + 2) * 4 * eps * np.prod(np.abs(x[0]), axis=ax)
        return ref, b, b
    ref = np.sum(x[0], axis=ax)
    bre = lg * eps * np.sum(np.abs(x[0].real), axis=ax)
    bim = lg * eps * np.sum(np.abs(x[0].imag), axis=ax)
    if form == 4:  # (an empty mean: NaN, as NumPy's)
        m = np.mean(x[0], axis=ax)
        return m, bre / max(n, 1) + eps * np.abs(m), bim / max(n, 1) + eps * np.abs(m)
    return ref, bre, bim


def complex_match(c, ins, got, want):
    """values_match for the complex category: each part within its bound."""
    ref, bre, bim = complex_tolerance(c, ins, want)
    g = got.astype(np.complex128) if np.iscomplexobj(got) else got.astype(np.float64)
    parts = [(g.real, np.real(ref), bre)] + ([(g.imag, np.imag(ref), bim)] if bim is not None else [])
    for gp, rp, b in parts:
        rp, b = np.broadcast_to(rp, gp.shape), np.broadcast_to(b, gp.shape)
        # A non-finite reference (an empty mean's NaN): the same class.
        ok = np.where(np.isfinite(rp), np.abs(gp - rp) <= b + np.finfo(np.float64).tiny,
                      (np.isnan(gp) & np.isnan(rp)) | (gp == rp))
        if not np.all(ok):
            i = np.unravel_index(int(np.argmin(ok.reshape(-1))), ok.shape) if ok.ndim else ()
            return "outside the bound at %s: ufunc %r, reference %r" % (i, got[i], np.asarray(ref)[i])
    return None


def values_match(c, ins, got, want):
    """None when got matches want (already of one shape), else a short reason."""
    if c["cat"] == "complex":
        return complex_match(c, ins, got, want)
    if not is_float(want.dtype) or not is_float(got.dtype):
        return None if np.array_equal(got, want) else "values differ"
    tol = tolerance(c, ins, want)
    if tol is None:
        return None if np.array_equal(got, want, equal_nan=True) else "values differ (exact comparison)"
    ref, bound = tol
    ref = np.broadcast_to(np.asarray(ref, dtype=np.float64), got.shape)
    bound = np.broadcast_to(np.asarray(bound, dtype=np.float64), got.shape)
    g = got.astype(np.float64)
    finite = np.isfinite(ref) & np.isfinite(bound)
    ok_fin = np.abs(g - ref) <= bound + np.finfo(got.dtype).tiny
    # Non-finite reference: the same class (NaN, or inf of the same sign); a
    # float32 result may also overflow where the float64 reference does not.
    ok_inf = (np.isnan(g) & np.isnan(ref)) | (g == ref)
    ok = np.where(finite, ok_fin & np.isfinite(g), ok_inf) | (np.isinf(g) & ~np.isfinite(want.astype(np.float64)) & (g == want))
    if ok.all():
        return None
    i = np.unravel_index(int(np.argmin(ok.reshape(-1))), ok.shape) if ok.ndim else ()
    return "outside the bound at %s: ufunc %r, reference %r, bound %r" % (i, g[i], ref[i], bound[i])


def fmt_small(a):
    if a.size <= 24:
        return np.array2string(a, separator=", ", threshold=24).replace("\n", " ")
    return "(%d elements)" % a.size


def check_file(prefix, gen):
    blob = Blob(prefix + ".bin")
    counts, known, failures = {}, {}, []
    with open(prefix + ".jsonl") as f:
        for line in f:
            c = json.loads(line)
            if "init" in c:
                c["_init"] = blob.arr(c["init"])
            key = c["cat"]
            counts[key] = counts.get(key, 0) + 1
            ins = [operand(blob, s) for s in c.get("inputs", [])]
            got_err = c.get("error")
            got, want_base = None, None
            if "result" in c:
                got = blob.arr(c["result"])
            elif "out_base" in c:
                got = blob.arr(c["out_base"])
            want, want_err = None, None
            try:
                # fresh copies: an in-place or out case writes into them
                w = numpy_expected(c, blob, [operand(blob, s) for s in c.get("inputs", [])])
                want = w[1] if isinstance(w, tuple) else w
                if isinstance(w, tuple) and w[0] == "outview":  # the view compared below, the rest of its base here
                    want_base = w[2]
            except Exception as e:  # noqa: BLE001 (NumPy's error is the expectation)
                want_err = e
            problem = None
            if got_err and want_err is not None:
                if not isinstance(want_err, ERROR_CLASSES.get(got_err["type"], ())):
                    problem = "ufunc raised %s, NumPy %s" % (got_err["type"], type(want_err).__name__)
            elif got_err:
                problem = "ufunc raised %s (%s); NumPy returned shape %s" % (got_err["type"], got_err["what"], want.shape)
            elif want_err is not None:
                problem = "NumPy raised %s (%s); ufunc returned shape %s" % (type(want_err).__name__, want_err, got.shape)
            elif got.shape != want.shape:
                problem = "shape: ufunc %s, NumPy %s" % (got.shape, want.shape)
            elif got.dtype != want.dtype:
                problem = "dtype: ufunc %s, NumPy %s" % (got.dtype, want.dtype)
                if values_match(c, ins, got, want.astype(got.dtype) if not is_float(got.dtype) else want) is not None:
                    problem += "; values differ too"
            else:
                problem = values_match(c, ins, got, want)
            if problem is None and want_base is not None:
                inside = np.zeros(want_base.shape, dtype=bool)
                operand_mask(c["out"], inside)
                got_base = blob.arr(c["out_base"])
                if not np.array_equal(got_base[~inside], want_base[~inside], equal_nan=is_float(want_base.dtype)):
                    problem = "out: elements outside the out view changed"
            if problem is None:
                continue
            ctx = known_differences.Context(c, ins, got, got_err, want, want_err, problem)
            entry = next((k for k in known_differences.KNOWN if k["applies"](ctx)), None)
            if entry is not None:
                known[entry["name"]] = known.get(entry["name"], 0) + 1
                continue
            failures.append(reproducer(c, ins, got, got_err, want, want_err, problem, prefix, gen))
    return counts, known, failures


def reproducer(c, ins, got, got_err, want, want_err, problem, prefix, gen):
    lines = ["FAIL %s seed %s index %s: %s" % (c["cat"], c["seed"], c["index"], problem),
             "  rerun alone: %s --category %s --seed %s --first %s --cases 1 --out /tmp/case && %s %s /tmp/case"
             % (gen or "ufunc_oracle_gen", c["cat"], c["seed"], c["index"], sys.executable, os.path.abspath(__file__)),
             "  call: " + c.get("call", "?")]
    for i, spec in enumerate(c.get("inputs", [])):
        base, v = ins[i]
        lines.append("  x%d: %s %s = base %s%s%s; values %s" % (
            i, v.dtype, v.shape, tuple(base.shape),
            "".join(".sliced(%d, %d, %d, %d)" % tuple(s) for s in spec["slices"]),
            ".permuted(%s)" % spec["perm"] if spec["perm"] is not None else "", fmt_small(v)))
    for k in ("axes", "axis", "form", "method", "keepdims", "chain", "devices", "shards", "k", "largest"):
        if k in c:
            lines.append("  %s: %s" % (k, c[k]))
    if "_init" in c:
        lines.append("  init: %r" % (c["_init"][()],))
    lines.append("  ufunc: " + ("%s: %s" % (got_err["type"], got_err["what"]) if got_err else
                                "%s %s %s" % (got.dtype, got.shape, fmt_small(got))))
    lines.append("  numpy: " + ("%s: %s" % (type(want_err).__name__, want_err) if want_err is not None else
                                "%s %s %s" % (want.dtype, want.shape, fmt_small(want))))
    return "\n".join(lines)


def compare_runs(a, b):
    """Cases of run a whose results are not byte-identical to run b's (float reductions excepted).
    Cases meet by index: run a may hold any of run b's cases (run.sh's later thread counts)."""
    ba, bb = Blob(a + ".bin"), Blob(b + ".bin")
    diffs, compared, skipped, skipped_same = [], 0, 0, 0
    with open(b + ".jsonl") as fb:
        in_b = {}
        for lb in fb:
            cb = json.loads(lb)
            in_b[cb["index"]] = cb
    with open(a + ".jsonl") as fa:
        for la in fa:
            ca = json.loads(la)
            cb = in_b.get(ca["index"])
            if cb is None or cb["seed"] != ca["seed"]:
                diffs.append("%s seed %s index %s: not in %s" % (ca["cat"], ca["seed"], ca["index"], b))
                continue
            key = "result" if "result" in ca else "out_base" if "out_base" in ca else None
            same = (ca.get("error") == cb.get("error") and (key is None or (
                key in cb and ca[key]["shape"] == cb[key]["shape"] and ca[key]["dtype"] == cb[key]["dtype"]
                and ba.raw(ca[key]) == bb.raw(cb[key]))))
            if float_reduction(ca):
                skipped += 1
                skipped_same += same
                continue
            compared += 1
            if not same:
                diffs.append("%s seed %s index %s: %s" % (ca["cat"], ca["seed"], ca["index"], ca.get("call")))
    return compared, skipped, skipped_same, diffs


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    prefix, other, gen = args[0], None, None
    if "--same-as" in args:
        other = args[args.index("--same-as") + 1]
    if "--gen" in args:
        gen = args[args.index("--gen") + 1]
    counts, known, failures = check_file(prefix, gen)
    total = sum(counts.values())
    summary = ", ".join("%s %d" % kv for kv in sorted(counts.items()))
    print("oracle %s: %d cases (%s), %d failed; known differences: %s" % (
        os.path.basename(prefix), total, summary, len(failures),
        ", ".join("%s %d" % kv for kv in sorted(known.items())) or "none"))
    for f in failures[:20]:
        print(f)
    if len(failures) > 20:
        print("... and %d more" % (len(failures) - 20))
    rc = 1 if failures else 0
    if other:
        compared, skipped, skipped_same, diffs = compare_runs(prefix, other)
        print("threads: %d cases byte-identical to %s, %d differ; %d float reductions checked against NumPy "
              "instead (%d of them identical too)"
              % (compared - len(diffs), os.path.basename(other), len(diffs), skipped, skipped_same))
        for d in diffs[:20]:
            print("  DIFFERS " + d)
        if diffs:
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
